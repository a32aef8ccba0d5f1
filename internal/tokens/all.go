package tokens

import (
	"hash/maphash"
	"sync"

	"github.com/ctxkit/ctxkit/internal/parallel"
)

// CountAll returns the token count of each text, as c.Count would. Texts are
// counted on all cores when there is enough of them, and a text seen before
// by the same exact counter, in this call or an earlier one, is looked up by
// a hash of its content instead of counted again: transcripts re-read files
// and re-send tool output.
func CountAll(c Counter, texts []string) []int {
	counts := make([]int, len(texts))
	if _, ok := c.(approx); ok {
		for k, s := range texts {
			counts[k] = c.Count(s)
		}
		return counts
	}
	cache := textCacheOf(c)
	// Find the distinct texts that still need counting; copies of a text
	// take its count at the end.
	var todo []int
	firstOf := map[textKey]int{}
	copies := map[int]int{} // index of a copy to the index of its first
	keys := make([]textKey, len(texts))
	size := 0
	for k, s := range texts {
		if cache == nil || len(s) < minCachedText {
			todo = append(todo, k)
			size += len(s)
			continue
		}
		keys[k] = cache.key(s)
		if n, ok := cache.get(keys[k]); ok {
			counts[k] = n
		} else if first, ok := firstOf[keys[k]]; ok {
			copies[k] = first
		} else {
			firstOf[keys[k]] = k
			todo = append(todo, k)
			size += len(s)
		}
	}
	countEach(c, texts, todo, counts, size)
	for k, first := range copies {
		counts[k] = counts[first]
	}
	if cache != nil {
		for key, k := range firstOf {
			cache.put(key, counts[k])
		}
	}
	return counts
}

// Sum returns the total number of tokens in texts, counted as CountAll does.
func Sum(c Counter, texts []string) int {
	total := 0
	for _, n := range CountAll(c, texts) {
		total += n
	}
	return total
}

// parallelText is how much text makes a second core worth waking: below it,
// starting goroutines costs more than the counting they share.
const parallelText = 64 << 10

// countEach sets counts[k] for each k in todo; size is their total bytes.
func countEach(c Counter, texts []string, todo, counts []int, size int) {
	minEach := 1
	if size < parallelText {
		minEach = len(todo) + 1 // one worker: the caller
	}
	count := c.Count
	if e, ok := c.(*encoder); ok {
		count = e.count // CountAll looked in the cache, and fills it
	}
	parallel.For(len(todo), minEach, func(i int) {
		k := todo[i]
		counts[k] = count(texts[k])
	})
}

// minCachedText is the shortest text whose count is cached: shorter ones
// count about as fast as they hash, and would crowd the cache.
const minCachedText = 128

// maxCachedTexts bounds the cache; when full it starts over, which costs a
// recount of what comes back, never a wrong count.
const maxCachedTexts = 1 << 16

// textCache maps a text's content hash to its count, for one encoder. The
// hash is 128 bits (two seeds) plus the length: for a collision to give a
// wrong count, two different texts of the same length would have to agree on
// both, which is not going to happen.
type textCache struct {
	seeds  [2]maphash.Seed
	mu     sync.Mutex
	counts map[textKey]int
}

type textKey struct {
	h   [2]uint64
	len int
}

func newTextCache() *textCache {
	return &textCache{
		seeds:  [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		counts: map[textKey]int{},
	}
}

func (t *textCache) key(s string) textKey {
	return textKey{[2]uint64{maphash.String(t.seeds[0], s), maphash.String(t.seeds[1], s)}, len(s)}
}

func (t *textCache) get(k textKey) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.counts[k]
	return n, ok
}

func (t *textCache) put(k textKey, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.counts) >= maxCachedTexts {
		clear(t.counts)
	}
	t.counts[k] = n
}

// textCacheOf returns the cache of an exact counter of this package, or nil
// for counters it does not know, whose counts it cannot vouch for.
func textCacheOf(c Counter) *textCache {
	if e, ok := c.(*encoder); ok {
		return e.texts
	}
	return nil
}
