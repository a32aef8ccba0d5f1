//go:build unix

package mcpserver

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// goneWatch returns a channel that is closed when the reader of out is
// gone: out is a pipe or a socket whose other end was closed (POLLERR,
// POLLHUP), or a descriptor no longer open. It watches until stop is
// closed; for an out it cannot watch (not a file), the channel is never
// closed. A client that dies closes its end of stdin, which the server
// reads as the end of the input, and of stdout, which this sees: without
// it, the end of the input would wait for the answers of requests that no
// one will read.
func goneWatch(out io.Writer, stop <-chan struct{}) <-chan struct{} {
	gone := make(chan struct{})
	sc, ok := out.(syscall.Conn)
	if !ok {
		return gone
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return gone
	}
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			hup := false
			err := rc.Control(func(fd uintptr) {
				// No events asked for: poll reports the end's closing
				// alone, and waits at most 100 ms for it.
				fds := []unix.PollFd{{Fd: int32(fd)}}
				n, err := unix.Poll(fds, 100)
				hup = err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0
			})
			if err != nil || hup {
				close(gone)
				return
			}
		}
	}()
	return gone
}
