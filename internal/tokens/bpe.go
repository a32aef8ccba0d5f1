package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// encoder counts tokens exactly as tiktoken does: split the text with the
// encoding's pattern, then merge each piece's bytes by rank.
type encoder struct {
	name  string
	o200k bool // which pre-tokenizer: nextO200k, else nextCl100k
	once  sync.Once
	ranks *rankTable
	cache *pieceCache
	texts *textCache // for Count and CountAll
	// bt counts the longest pieces; built when the first one comes.
	btOnce sync.Once
	bt     *backtracker
}

func newEncoder(name string, o200k bool) *encoder {
	return &encoder{name: name, o200k: o200k, cache: new(pieceCache), texts: newTextCache()}
}

func (e *encoder) Name() string { return e.name }

// Count counts s, remembering the count of a text of some length
// (textCache): a live loop counts the same summaries and cuts again on
// every request.
func (e *encoder) Count(s string) int {
	if len(s) < minCachedText {
		return e.count(s)
	}
	k := e.texts.key(s)
	if n, ok := e.texts.get(k); ok {
		return n
	}
	n := e.count(s)
	e.texts.put(k, n)
	return n
}

// count counts s.
func (e *encoder) count(s string) int {
	if s == "" {
		return 0
	}
	e.once.Do(e.load)
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	n := 0
	for i := 0; i < len(s); {
		// A branch rather than a func field: direct calls are cheaper, and
		// this one always goes the same way.
		var j int
		if e.o200k {
			j = nextO200k(s, i)
		} else {
			j = nextCl100k(s, i)
		}
		switch {
		case j-i == 1:
			n++ // every byte is a token
		case j-i <= maxShort && len(s)-i >= 8:
			// The short table's hit path, inline: the piece's bytes come
			// in one load from the text, the key keeps only theirs.
			key := le64(s, i)&(1<<(8*(j-i))-1) | uint64(j-i)<<56
			slot := &e.cache.short[(key*0x9e3779b97f4a7c15)>>(64-shortBits)]
			if w := slot.Load(); w&(1<<countLow-1) == key {
				n += int(w >> countLow)
			} else {
				n += e.fillShort(slot, key, s[i:j])
			}
		default:
			n += e.countPiece(s[i:j])
		}
		i = j
	}
	return n
}

// replaceInvalid turns each byte of invalid UTF-8 into U+FFFD, one for one,
// as tiktoken-go's conversion to runes does; those are the bytes it encodes.
func replaceInvalid(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func (e *encoder) load() {
	ranks, err := loadRanks(e.name)
	if err != nil {
		// The ranks are embedded in the binary: failing here means a broken build.
		panic(fmt.Sprintf("tokens: loading embedded %s: %v", e.name, err))
	}
	e.ranks = ranks
}

// smallPiece is the longest piece merged with the quadratic loop over arrays
// on the stack; longer ones, rare runs of letters or spaces, use a heap so a
// megabyte of base64 letters does not take minutes, and from bigPiece on
// the backtracker, linear in the piece (backtrack.go).
const smallPiece = 64

// merge runs byte-pair merging on p and returns the number of parts left:
// repeatedly join the adjacent pair whose bytes have the lowest rank, the
// leftmost on ties, until no pair is a token.
func (e *encoder) merge(p string) int {
	switch {
	case len(p) >= bigPiece:
		return e.backtracker().count(p)
	case len(p) > smallPiece:
		return e.mergeLong(p)
	}
	// start[k] is where part k begins; rank[k] the rank of part k joined
	// with part k+1. Both shrink by one element per merge.
	var startArr [smallPiece + 1]int
	var rankArr [smallPiece]uint32
	n := len(p)
	start, rank := startArr[:n+1], rankArr[:n]
	for k := range n + 1 {
		start[k] = k
	}
	for k := 0; k < n-1; k++ {
		rank[k] = e.ranks.rank(p[k : k+2])
	}
	rank[n-1] = noRank
	for parts := n; parts > 1; parts-- {
		best, bestRank := -1, uint32(noRank)
		for k := 0; k < parts-1; k++ {
			if rank[k] < bestRank {
				best, bestRank = k, rank[k]
			}
		}
		if best < 0 {
			return parts
		}
		// Join parts best and best+1, then re-rank the pairs around it.
		copy(start[best+1:], start[best+2:parts+1])
		copy(rank[best+1:], rank[best+2:parts])
		if best+2 < parts {
			rank[best] = e.ranks.rank(p[start[best]:start[best+2]])
		} else {
			rank[best] = noRank
		}
		if best > 0 {
			rank[best-1] = e.ranks.rank(p[start[best-1]:start[best+1]])
		}
	}
	return 1
}

// mergeLong is merge for long pieces, in O(n log n): the parts form a linked
// list and candidate pairs a min-heap ordered like merge's scan (rank, then
// position). An entry is stale once its pair has changed; since a pair only
// grows, its rank never comes back, so comparing ranks tells.
func (e *encoder) mergeLong(p string) int {
	n := len(p)
	next := make([]int, n+1) // start of the following part, for each part start
	prev := make([]int, n+1)
	cur := make([]uint32, n+1) // rank of the pair starting at each part start
	h := make(pairHeap, 0, n)
	for k := 0; k <= n; k++ {
		next[k], prev[k] = k+1, k-1
	}
	pairRank := func(k int) uint32 {
		if next[k] >= n {
			return noRank
		}
		return e.ranks.rank(p[k:next[next[k]]])
	}
	for k := 0; k < n; k++ {
		cur[k] = pairRank(k)
		if cur[k] != noRank {
			h = append(h, pair{cur[k], k})
		}
	}
	h.init()
	parts := n
	for len(h) > 0 {
		top := h.pop()
		k := top.pos
		if cur[k] != top.rank {
			continue
		}
		// Join part k with the one after it.
		gone := next[k]
		next[k] = next[gone]
		prev[next[k]] = k
		cur[gone] = noRank
		parts--
		if cur[k] = pairRank(k); cur[k] != noRank {
			h.push(pair{cur[k], k})
		}
		if k > 0 {
			q := prev[k]
			if cur[q] = pairRank(q); cur[q] != noRank {
				h.push(pair{cur[q], q})
			}
		}
	}
	return parts
}

type pair struct {
	rank uint32
	pos  int
}

func (a pair) less(b pair) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// pairHeap is a binary min-heap, written out rather than through
// container/heap to avoid an interface call per comparison.
type pairHeap []pair

func (h pairHeap) init() {
	for k := len(h)/2 - 1; k >= 0; k-- {
		h.down(k)
	}
}

func (h *pairHeap) push(x pair) {
	*h = append(*h, x)
	s := *h
	for k := len(s) - 1; k > 0; {
		up := (k - 1) / 2
		if !s[k].less(s[up]) {
			break
		}
		s[k], s[up] = s[up], s[k]
		k = up
	}
}

func (h *pairHeap) pop() pair {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h pairHeap) down(k int) {
	for {
		c := 2*k + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(h[k]) {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}
