// Package parallel runs independent pieces of work on every core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n), on up to GOMAXPROCS goroutines that
// each take the next index when they finish one, so that one long piece does
// not leave the other cores idle behind a fixed share. Each worker is given
// at least minEach pieces (fewer workers start for small n); with one worker
// f runs on the caller's goroutine. f must touch only what belongs to its
// index, so that the outcome does not depend on the order.
func For(n, minEach int, f func(i int)) {
	Workers(n, min(runtime.GOMAXPROCS(0), n/max(minEach, 1)), f)
}

// Workers calls f(i) for every i in [0, n) on up to workers goroutines,
// for work that waits rather than computes (requests to a server): each
// takes the next index, in order, when it finishes one. With one worker f
// runs on the caller's goroutine.
func Workers(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}
