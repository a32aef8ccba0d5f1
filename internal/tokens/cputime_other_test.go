//go:build !unix

package tokens

import "time"

// cpuTime is unknown here; the benchmarks then report wall-clock rates only.
func cpuTime() time.Duration { return 0 }
