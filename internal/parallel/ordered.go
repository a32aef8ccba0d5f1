package parallel

import "sync"

// Ordered runs work over the items next gives, on up to jobs goroutines,
// and hands each result to done in the order of the items, on the
// caller's goroutine, as soon as it and those before it are ready. next
// returns false when there are no more items; it is called from one
// goroutine at a time, as are work's results' done.
//
// At most window items (at least jobs) are taken and not yet done at
// once, so that memory follows the window, not the number of items: an
// item is let go when done has it. When done returns an error, no more
// items are taken, the items under way finish without done, and Ordered
// returns that error. With one job everything runs on the caller's
// goroutine.
func Ordered[T, R any](jobs, window int, next func() (T, bool), work func(T) R, done func(R) error) error {
	if jobs <= 1 {
		for {
			item, ok := next()
			if !ok {
				return nil
			}
			if err := done(work(item)); err != nil {
				return err
			}
		}
	}
	window = max(window, jobs)
	type numbered[V any] struct {
		seq int
		v   V
	}
	var (
		slots   = make(chan struct{}, window) // one per item taken and not done
		stop    = make(chan struct{})
		items   = make(chan numbered[T])
		results = make(chan numbered[R], window)
		wg      sync.WaitGroup
	)
	go func() { // the feeder: the one caller of next
		defer close(items)
		for seq := 0; ; seq++ {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			item, ok := next()
			if !ok {
				return
			}
			select {
			case items <- numbered[T]{seq, item}:
			case <-stop:
				return
			}
		}
	}()
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				results <- numbered[R]{it.seq, work(it.v)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	var err error
	pending := map[int]R{}
	want := 0
	for r := range results {
		if err != nil {
			continue // draining the items under way
		}
		pending[r.seq] = r.v
		for {
			v, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			want++
			if err = done(v); err != nil {
				close(stop)
				break
			}
			<-slots
		}
	}
	return err
}
