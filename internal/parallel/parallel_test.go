package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestForCallsEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct{ n, minEach int }{{0, 1}, {1, 1}, {3, 16}, {1000, 1}, {1000, 64}, {7, 0}} {
		seen := make([]atomic.Int32, c.n)
		For(c.n, c.minEach, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("For(%d, %d): index %d called %d times", c.n, c.minEach, i, got)
			}
		}
	}
}
