package tokens

import "math/bits"

// The heap merge takes O(n log n) time and some 40 bytes a byte of the
// piece: a piece of 50 MB (one letter repeated on one line) took 20 seconds
// and 2 GB. Pieces that long are counted instead by backtracking over the
// tokens themselves, in time and memory linear in the piece (a bit and at
// most four bytes a byte), after the method of GitHub's bpe crate (Neubeck
// and Hoffmann, "So many tokens, so little time", 2024).
//
// It rests on two facts about byte-pair encoding. A token sequence is the
// encoding of its text exactly when each pair of neighbours is one the
// merges would leave apart, which is decided by undoing both tokens' merges
// (valid). And the encoding is found by taking, from the left, the longest
// token that keeps the last pair valid, shorter ones when it does not, and
// stepping back a token when no token fits: a position once found to lead
// nowhere is marked and not tried again, which bounds the work.

// bigPiece is the length from which a piece is counted by backtracking: the
// tables it needs take a few tenths of a second to build, paid only by a process
// that meets a piece this long.
const bigPiece = 32 << 10

// backtracker holds what the backtracking count needs of an encoding,
// derived from its ranks (a token's id is its rank).
type backtracker struct {
	ranks *rankTable
	// trie holds the bytes of every token, for the longest token at a
	// position: an open-addressing table of (node<<8 | byte) + 1 in the
	// high half of a word and the child node in the low half.
	trie      []uint64
	trieShift uint
	nodeToken []uint32 // the token a node spells, if it is one that merges can make; else noRank
	// prefix is, by token, the longest token that merges can make which is
	// a proper prefix of it, or noRank.
	prefix []uint32
	// split is, by token, the two tokens whose merge makes it (itself twice
	// for a single byte); pairs is split reversed: an open-addressing
	// table of (left<<32 | right) + 1 and the token.
	split     [][2]uint32
	pairs     []pairSlot
	pairShift uint
}

type pairSlot struct {
	key   uint64
	token uint32
}

// backtracker builds the tables on first use.
func (e *encoder) backtracker() *backtracker {
	e.btOnce.Do(func() { e.bt = newBacktracker(e.ranks) })
	return e.bt
}

func newBacktracker(r *rankTable) *backtracker {
	n := len(r.start) - 1
	b := &backtracker{ranks: r, split: make([][2]uint32, n), prefix: make([]uint32, n), nodeToken: []uint32{noRank}}
	size := 1 << bits.Len(uint(2*n))
	b.pairs, b.pairShift = make([]pairSlot, size), uint(64-bits.Len(uint(size-1)))
	b.trie, b.trieShift = make([]uint64, 1<<16), 64-16
	// In rank order, which tokens merges can make and from which pair: a
	// token is made from two made before it, the longest left one whose
	// pair the merges before it would leave apart. Every token before it
	// is in the trie by then; none after it can be its part.
	made := make([]bool, n)
	var lefts []uint32
	for t := range n {
		tok := b.token(uint32(t))
		node := uint32(0)
		lefts = lefts[:0]
		for i := 0; i < len(tok); i++ {
			node = b.child(node, tok[i], true)
			if l := b.nodeToken[node]; l != noRank && i < len(tok)-1 && made[l] {
				lefts = append(lefts, l)
			}
		}
		b.nodeToken[node] = uint32(t)
		if len(tok) == 1 {
			b.split[t], made[t] = [2]uint32{uint32(t), uint32(t)}, true
			continue
		}
		for k := len(lefts) - 1; k >= 0; k-- {
			left := lefts[k]
			right := r.rank(tok[b.tokenLen(left):])
			if right < uint32(t) && made[right] && b.valid(left, right) {
				b.split[t], made[t] = [2]uint32{left, right}, true
				b.addPair(left, right, uint32(t))
				break
			}
		}
	}
	// A token merges cannot make never ends a match, nor is tried as a
	// shorter one.
	for node, t := range b.nodeToken {
		if t != noRank && !made[t] {
			b.nodeToken[node] = noRank
		}
	}
	for t := range n {
		tok := b.token(uint32(t))
		b.prefix[t] = b.longest(tok[:len(tok)-1])
	}
	return b
}

func (b *backtracker) token(t uint32) string {
	return b.ranks.pool[b.ranks.start[t]:b.ranks.start[t+1]]
}

// child returns the node under node for byte c, adding it if add is set;
// 0 when there is none.
func (b *backtracker) child(node uint32, c byte, add bool) uint32 {
	key := uint64(node)<<8 | uint64(c) + 1
	mask := len(b.trie) - 1
	for k := int((key * 0x9e3779b97f4a7c15) >> b.trieShift); ; k = (k + 1) & mask {
		w := b.trie[k]
		switch {
		case w>>32 == key:
			return uint32(w)
		case w != 0:
			continue
		case !add:
			return 0
		}
		child := uint32(len(b.nodeToken))
		b.nodeToken = append(b.nodeToken, noRank)
		b.trie[k] = key<<32 | uint64(child)
		if len(b.nodeToken)*3 > len(b.trie)*2 {
			b.grow()
		}
		return child
	}
}

// grow doubles the trie's table.
func (b *backtracker) grow() {
	old := b.trie
	b.trie, b.trieShift = make([]uint64, 2*len(old)), b.trieShift-1
	mask := len(b.trie) - 1
	for _, w := range old {
		if w == 0 {
			continue
		}
		k := int(((w >> 32) * 0x9e3779b97f4a7c15) >> b.trieShift)
		for b.trie[k] != 0 {
			k = (k + 1) & mask
		}
		b.trie[k] = w
	}
}

func (b *backtracker) addPair(left, right, t uint32) {
	key := uint64(left)<<32 | uint64(right) + 1
	mask := len(b.pairs) - 1
	k := int((key * 0x9e3779b97f4a7c15) >> b.pairShift)
	for b.pairs[k].key != 0 {
		k = (k + 1) & mask
	}
	b.pairs[k] = pairSlot{key, t}
}

// pair returns the token that merging left and right makes, or noRank.
func (b *backtracker) pair(left, right uint32) uint32 {
	key := uint64(left)<<32 | uint64(right) + 1
	mask := len(b.pairs) - 1
	for k := int((key * 0x9e3779b97f4a7c15) >> b.pairShift); ; k = (k + 1) & mask {
		switch b.pairs[k].key {
		case key:
			return b.pairs[k].token
		case 0:
			return noRank
		}
	}
}

// longest returns the longest token that merges can make at the start of s.
func (b *backtracker) longest(s string) uint32 {
	best, node := uint32(noRank), uint32(0)
	for i := 0; i < len(s); i++ {
		if node = b.child(node, s[i], false); node == 0 {
			break
		}
		if t := b.nodeToken[node]; t != noRank {
			best = t
		}
	}
	return best
}

// valid reports whether byte-pair merging leaves the neighbours left and
// right apart: undoing their merges from the latest, no pair across the
// boundary makes a token before the merge being undone.
func (b *backtracker) valid(left, right uint32) bool {
	limit := uint32(noRank)
	for {
		if t := b.pair(left, right); t < limit {
			return false
		}
		if left > right {
			limit = left
			if left = b.split[left][1]; left == limit {
				limit = right + 1
				if right = b.split[right][0]; right+1 == limit {
					return true
				}
			}
		} else {
			limit = right + 1
			if right = b.split[right][0]; right+1 == limit {
				limit = left
				if left = b.split[left][1]; left == limit {
					return true
				}
			}
		}
	}
}

// count returns the number of tokens of p.
func (b *backtracker) count(p string) int {
	// dead marks the positions found to lead to no encoding of the rest.
	dead := make([]uint64, len(p)/64+1)
	// The tokens so far: room for four bytes a token from the start, as
	// growing a slice of millions step by step allocates several times it.
	stack := make([]uint32, 0, len(p)/4+1)
	pos := 0
	next := b.longest(p)
	for pos < len(p) {
		t := next
		last := uint32(noRank)
		if len(stack) > 0 {
			last = stack[len(stack)-1]
		}
		for {
			end := pos + b.tokenLen(t)
			if dead[end/64]&(1<<(end%64)) == 0 && (last == noRank || b.valid(last, t)) {
				stack = append(stack, t)
				pos = end
				next = b.longest(p[pos:])
				break
			}
			if t = b.prefix[t]; t != noRank {
				continue
			}
			// Nothing fits here: step back and try the last token shorter.
			dead[pos/64] |= 1 << (pos % 64)
			stack = stack[:len(stack)-1]
			pos -= b.tokenLen(last)
			next = last
			break
		}
	}
	return len(stack)
}

func (b *backtracker) tokenLen(t uint32) int { return int(b.ranks.start[t+1] - b.ranks.start[t]) }
