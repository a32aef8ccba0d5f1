package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// widenPipe asks for a pipe buffer of a megabyte (Linux's default most for
// a process that is not root; 64 KiB otherwise): a writer then fills it in
// one go and the reader takes it in one read, sixteen times fewer of each
// and of the switches between them. It does its best: a pipe it cannot
// widen is read as it is.
func widenPipe(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20)
}
