package proxy

import "sync"

// budget is the bytes of request bodies the proxy may hold at once. A body
// takes its share as it arrives, never more than it has sent, and a
// request that finds the budget spent is not held waiting: it goes
// upstream as it came. So clients that announce large bodies and stall
// neither take the memory of the machine nor block the others.
type budget struct {
	total int64
	mu    sync.Mutex
	free  int64
}

func newBudget(total int64) *budget { return &budget{total: total, free: total} }

// take takes n bytes if they are free, and reports whether it did.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.free < n {
		return false
	}
	b.free -= n
	return true
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
}
