//go:build unix

package tokens

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system: on a
// shared machine it measures the work, where the wall clock measures the
// share of the cores the benchmark got.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
