//go:build !unix

package commands

import "errors"

func mkfifo(string) error { return errors.New("no named pipes here") }
