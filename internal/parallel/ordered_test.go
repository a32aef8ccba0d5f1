package parallel

import (
	"errors"
	"sync/atomic"
	"testing"
)

// counter is a next that gives 0, 1, ... n-1 and counts what is taken.
func counter(n int, taken *atomic.Int64) func() (int, bool) {
	i := 0
	return func() (int, bool) {
		if i == n {
			return 0, false
		}
		i++
		taken.Add(1)
		return i - 1, true
	}
}

// TestOrderedKeepsOrder: results come out in the order of the items even
// when a later item finishes first (item 0 waits for item 3's work).
func TestOrderedKeepsOrder(t *testing.T) {
	for _, jobs := range []int{1, 2, 4, 8} {
		const n = 200
		var taken atomic.Int64
		third := make(chan struct{})
		work := func(i int) int {
			if jobs > 1 {
				switch i {
				case 0:
					<-third
				case 3:
					close(third)
				}
			}
			return i * i
		}
		var got []int
		err := Ordered(jobs, 2*jobs, counter(n, &taken), work, func(r int) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("jobs %d: %d results, want %d", jobs, len(got), n)
		}
		for i, r := range got {
			if r != i*i {
				t.Fatalf("jobs %d: result %d is %d, want %d", jobs, i, r, i*i)
			}
		}
	}
}

// TestOrderedWindow: no more than window items are taken and not yet done.
func TestOrderedWindow(t *testing.T) {
	for _, c := range []struct{ jobs, window int }{{2, 2}, {2, 5}, {4, 4}, {3, 1}} {
		var taken, done atomic.Int64
		peak := int64(0)
		next := counter(500, &taken)
		watch := func() (int, bool) {
			i, ok := next()
			if d := taken.Load() - done.Load(); d > peak {
				peak = d
			}
			return i, ok
		}
		err := Ordered(c.jobs, c.window, watch, func(i int) int { return i }, func(int) error {
			done.Add(1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if limit := int64(max(c.window, c.jobs)); peak > limit {
			t.Errorf("jobs %d, window %d: %d items under way at once, want at most %d", c.jobs, c.window, peak, limit)
		}
		if done.Load() != 500 {
			t.Errorf("jobs %d, window %d: %d done, want 500", c.jobs, c.window, done.Load())
		}
	}
}

// TestOrderedStops: an error from done stops the run: it is returned, done
// is not called again, and no more than the window is taken after it.
func TestOrderedStops(t *testing.T) {
	stop := errors.New("stop")
	for _, jobs := range []int{1, 2, 4} {
		var taken atomic.Int64
		calls := 0
		err := Ordered(jobs, 2*jobs, counter(1000, &taken), func(i int) int { return i }, func(i int) error {
			calls++
			if i == 10 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Fatalf("jobs %d: err %v, want %v", jobs, err, stop)
		}
		if calls != 11 {
			t.Errorf("jobs %d: done called %d times, want 11", jobs, calls)
		}
		if n := taken.Load(); n > int64(11+2*jobs) {
			t.Errorf("jobs %d: %d items taken, want at most %d", jobs, n, 11+2*jobs)
		}
	}
}
