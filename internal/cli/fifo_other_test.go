//go:build !unix

package cli

import "testing"

// endlessFIFO is "": there are no FIFOs.
func endlessFIFO(*testing.T, int) string { return "" }
