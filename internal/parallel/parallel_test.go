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

// TestWorkers: every index once, on no more goroutines than asked, however
// many cores there are.
func TestWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, c := range []struct{ n, workers int }{{0, 4}, {1, 4}, {5, 1}, {100, 3}, {3, 8}} {
		seen := make([]atomic.Int32, c.n)
		var busy, most atomic.Int32
		Workers(c.n, c.workers, func(i int) {
			now := busy.Add(1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			runtime.Gosched()
			seen[i].Add(1)
			busy.Add(-1)
		})
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("Workers(%d, %d): index %d called %d times", c.n, c.workers, i, got)
			}
		}
		if m := int(most.Load()); m > max(c.workers, 1) {
			t.Errorf("Workers(%d, %d): %d at once", c.n, c.workers, m)
		}
	}
}
