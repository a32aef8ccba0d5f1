package tokens

import "sync/atomic"

// countPiece returns the number of tokens of one piece of the split.
//
// Most pieces are short, and the same few thousand come back all the time
// (" the", "err", "\n\t\t"): a rank-table lookup for each is a cache miss in
// a table of megabytes, and pieces that are not one token need merging. So
// the counts of pieces of up to 16 bytes, 99.8% of them in agent text, are
// kept in two direct-mapped tables small enough to stay in the CPU's cache.
// Both are lock-free, with the pieces' bytes stored in the slots: a slot
// holds the latest piece that hashed to it, and a lost race costs a recount,
// never a wrong count.
func (e *encoder) countPiece(p string) int {
	switch {
	case len(p) == 1:
		return 1 // every byte is a token
	case len(p) <= maxShort:
		return e.countShort(p)
	case len(p) <= maxLong:
		return e.countLong(p)
	}
	return e.countUncached(p)
}

func (e *encoder) countUncached(p string) int {
	if e.ranks.rank(p) != noRank {
		return 1
	}
	return e.merge(p)
}

const (
	maxShort  = 7  // bytes of a piece that fit in a word beside length and count
	maxLong   = 16 // bytes of a piece that fit in a long slot
	shortBits = 15 // 256 KiB of short slots
	longBits  = 12 // 128 KiB of long slots
	countLow  = 59 // a short slot's count bits; below are 56 bits of bytes and 3 of length
)

// pieceCache holds the counts of recent pieces for one encoder.
type pieceCache struct {
	// short slots are single words: bytes, length, count.
	short [1 << shortBits]atomic.Uint64
	long  [1 << longBits]longSlot
}

// longSlot is a sequence lock around a piece of 8 to 16 bytes and its
// count: seq is odd while a writer fills the slot, and a reader that sees
// seq change under it has read a mix of two pieces and discards it.
type longSlot struct {
	seq  atomic.Uint64
	a, b atomic.Uint64 // the piece's bytes, zero-padded, little-endian
	meta atomic.Uint64 // length | count<<8
}

// countShort counts a piece of 2 to 7 bytes.
func (e *encoder) countShort(p string) int {
	key := head8(p) | uint64(len(p))<<56
	slot := &e.cache.short[(key*0x9e3779b97f4a7c15)>>(64-shortBits)]
	if w := slot.Load(); w&(1<<countLow-1) == key {
		return int(w >> countLow)
	}
	return e.fillShort(slot, key, p)
}

// fillShort counts p and records the count in its slot.
func (e *encoder) fillShort(slot *atomic.Uint64, key uint64, p string) int {
	n := e.countUncached(p)
	slot.Store(key | uint64(n)<<countLow)
	return n
}

func (e *encoder) countLong(p string) int {
	a, b := head8(p), head8(p[8:])
	meta := uint64(len(p))
	h := (a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f ^ meta) * 0xbf58476d1ce4e5b9
	slot := &e.cache.long[h>>(64-longBits)]
	if seq := slot.seq.Load(); seq&1 == 0 && slot.a.Load() == a && slot.b.Load() == b {
		if m := slot.meta.Load(); m&0xff == meta && slot.seq.Load() == seq {
			return int(m >> 8)
		}
	}
	n := e.countUncached(p)
	// Take the slot only if no one else is writing it.
	if seq := slot.seq.Load(); seq&1 == 0 && slot.seq.CompareAndSwap(seq, seq+1) {
		slot.a.Store(a)
		slot.b.Store(b)
		slot.meta.Store(meta | uint64(n)<<8)
		slot.seq.Store(seq + 2)
	}
	return n
}
