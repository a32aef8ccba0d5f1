//go:build !linux

package cli

import "os"

// widenPipe does nothing where the pipe's buffer cannot be set.
func widenPipe(*os.File) {}
