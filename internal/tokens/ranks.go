package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"math/bits"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

const noRank = math.MaxUint32

// rankTable maps token bytes to ranks. Lookups are most of the work, and
// most miss the CPU's caches, so the table is laid out for locality rather
// than as a Go map of strings (several misses a lookup: control bytes, slot,
// then the key's bytes elsewhere):
//
//   - two-byte tokens, where every merge starts, in a direct table;
//   - tokens of one, three and four bytes, which merging short pieces asks
//     about most, in a compact open-addressing table of one word a slot
//     (512 KiB);
//   - longer ones in an open-addressing table whose slots hold the first
//     eight bytes, so most are found with one miss.
type rankTable struct {
	pair []uint32 // by the two bytes

	small      []uint64 // bytes | length<<32 | rank<<35; 0 when empty
	smallShift uint     // 64 minus log2(len(small)): hashes index by their top bits

	slots []slot
	shift uint
	// pool holds every token's bytes; token r is pool[start[r]:start[r+1]].
	pool  string
	start []uint32
}

const (
	maxSmall  = 4
	smallKey  = 1<<35 - 1 // a small slot's bytes and length
	smallRank = 35
)

type slot struct {
	head uint64 // the first eight bytes, little-endian, zero-padded
	rank uint32
	len  uint32 // 0 for an empty slot
}

// head8 packs the first eight bytes of p, zero-padded, little-endian.
func head8(p string) uint64 {
	switch {
	case len(p) >= 8:
		return le64(p, 0)
	case len(p) >= 4:
		// Two loads that overlap on the bytes both cover.
		return le32(p, 0) | le32(p, len(p)-4)<<(8*(len(p)-4))
	}
	var h uint64
	for k := 0; k < len(p); k++ {
		h |= uint64(p[k]) << (8 * k)
	}
	return h
}

// le32 reads four bytes of s from i, little-endian.
func le32(s string, i int) uint64 {
	s = s[i : i+4]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// le64 reads eight bytes of s from i, little-endian: one load, inlined.
func le64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func hashOf(head uint64, p string) uint64 {
	h := head ^ uint64(len(p))*0x9e3779b97f4a7c15
	if len(p) > 8 {
		h ^= head8(p[len(p)-8:]) * 0xc2b2ae3d27d4eb4f
	}
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// rank returns the rank of the token p, or noRank if p is not a token.
func (t *rankTable) rank(p string) uint32 {
	switch {
	case len(p) == 2:
		return t.pair[uint16(p[0])<<8|uint16(p[1])]
	case len(p) <= maxSmall:
		key := head8(p) | uint64(len(p))<<32
		mask := len(t.small) - 1
		for k := int((key * 0x9e3779b97f4a7c15) >> t.smallShift); ; k = (k + 1) & mask {
			w := t.small[k]
			if w == 0 {
				return noRank
			}
			if w&smallKey == key {
				return uint32(w >> smallRank)
			}
		}
	}
	head := head8(p)
	mask := len(t.slots) - 1
	for k := int(hashOf(head, p) >> t.shift); ; k = (k + 1) & mask {
		s := &t.slots[k]
		if s.len == 0 {
			return noRank
		}
		if s.head == head && int(s.len) == len(p) &&
			(len(p) <= 8 || t.pool[t.start[s.rank]+8:t.start[s.rank+1]] == p[8:]) {
			return s.rank
		}
	}
}

// loadRanks parses an embedded .tiktoken file: one token a line, its bytes
// in base64 then its rank. Ranks must run 0, 1, 2... as tiktoken writes
// them, so a rank also indexes the token's bytes in the pool.
func loadRanks(name string) (*rankTable, error) {
	data, err := assets.Assets.ReadFile(name + ".tiktoken")
	if err != nil {
		return nil, err
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	pool := make([]byte, 0, len(data)*3/4)
	start := make([]uint32, 1, lines+1)
	for len(data) > 0 {
		line := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("malformed line %q", line)
		}
		if rank, ok := atoi(line[sp+1:]); !ok || rank != len(start)-1 {
			return nil, fmt.Errorf("rank %q on line %d: ranks must count up from 0", line[sp+1:], len(start))
		}
		at := len(pool)
		pool = pool[:at+base64.StdEncoding.DecodedLen(sp)]
		n, err := base64.StdEncoding.Decode(pool[at:], line[:sp])
		if err != nil {
			return nil, err
		}
		pool = pool[:at+n]
		start = append(start, uint32(len(pool)))
	}
	n := len(start) - 1
	nSmall, nLong := 0, 0
	for r := range n {
		switch l := start[r+1] - start[r]; {
		case l == 2:
		case l <= maxSmall:
			nSmall++
		default:
			nLong++
		}
	}
	// Both hash tables are under 3/4 full (0.68 and 0.58 for o200k_base,
	// 0.42 and 0.53 for cl100k_base), so that lookups of non-tokens,
	// frequent while merging, meet an empty slot within a few probes.
	smallSize := 1 << bits.Len(uint(nSmall*4/3))
	size := 1 << bits.Len(uint(nLong*4/3))
	t := &rankTable{
		pair:       make([]uint32, 1<<16),
		small:      make([]uint64, smallSize),
		smallShift: uint(64 - bits.Len(uint(smallSize-1))),
		slots:      make([]slot, size),
		shift:      uint(64 - bits.Len(uint(size-1))),
		pool:       string(pool),
		start:      start,
	}
	for k := range t.pair {
		t.pair[k] = noRank
	}
	for r := range n {
		tok := t.pool[start[r]:start[r+1]]
		switch {
		case len(tok) == 2:
			t.pair[uint16(tok[0])<<8|uint16(tok[1])] = uint32(r)
		case len(tok) <= maxSmall:
			key := head8(tok) | uint64(len(tok))<<32
			k := int((key * 0x9e3779b97f4a7c15) >> t.smallShift)
			for t.small[k] != 0 {
				k = (k + 1) & (smallSize - 1)
			}
			t.small[k] = key | uint64(r)<<smallRank
		default:
			head := head8(tok)
			k := int(hashOf(head, tok) >> t.shift)
			for t.slots[k].len != 0 {
				k = (k + 1) & (size - 1)
			}
			t.slots[k] = slot{head, uint32(r), uint32(len(tok))}
		}
	}
	return t, nil
}

// atoi parses a rank; strconv.Atoi would need a string, one allocation a
// line.
func atoi(b []byte) (int, bool) {
	n := 0
	for _, d := range b {
		if d < '0' || d > '9' || n > 1<<31 {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, len(b) > 0
}
