package proxy

import (
	"context"
	"sync"
)

// budget is the bytes of request bodies the proxy may hold at once: a
// request waits for its share, so that many large bodies at once do not
// take the memory of the machine.
type budget struct {
	total int64
	mu    sync.Mutex
	free  int64
	freed chan struct{} // closed, and replaced, when bytes are given back
}

func newBudget(total int64) *budget {
	return &budget{total: total, free: total, freed: make(chan struct{})}
}

// fits reports whether n bytes can ever be had.
func (b *budget) fits(n int64) bool { return n <= b.total }

// acquire takes n bytes, waiting until they are free or ctx is done.
func (b *budget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}
