package tokens

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// TestMergeLongMatchesMerge checks the heap merge, which long pieces take,
// against the quadratic one on pieces both can take.
func TestMergeLongMatchesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	alphabets := []string{"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
		" \t\n", "aaaaab", "\x00\xff\x80é中"}
	for _, name := range exactNames {
		e := fast(t, name).(*encoder)
		e.Count("load")
		for range 3000 {
			alpha := alphabets[rng.IntN(len(alphabets))]
			var b strings.Builder
			for n := 2 + rng.IntN(smallPiece-1); b.Len() < n; {
				b.WriteByte(alpha[rng.IntN(len(alpha))])
			}
			p := b.String()[:min(b.Len(), smallPiece)]
			if got, want := e.mergeLong(p), e.merge(p); got != want {
				t.Fatalf("%s: mergeLong(%q) = %d, merge says %d", name, p, got, want)
			}
		}
	}
}

// TestPieceCacheConcurrent counts thousands of distinct pieces of 2 to 16
// bytes, more long ones than the long table has slots, from several
// goroutines at once, so that slots are overwritten while others read them;
// every count must stay exact. Run it with -race.
func TestPieceCacheConcurrent(t *testing.T) {
	var pieces []string
	rng := rand.New(rand.NewPCG(11, 12))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	n := 1 << 13
	if raceEnabled || testing.Short() {
		n = 1 << 11
	}
	for range n {
		var b strings.Builder
		for size := 2 + rng.IntN(maxLong-1); b.Len() < size; {
			b.WriteByte(letters[rng.IntN(len(letters))])
		}
		pieces = append(pieces, b.String())
	}
	for _, name := range exactNames {
		e := fast(t, name).(*encoder)
		e.Count("load")
		want := make([]int, len(pieces))
		for k, p := range pieces {
			want[k] = e.countUncached(p)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := range 3 {
					for k := range pieces {
						k := (k*(g+1) + round) % len(pieces)
						if got := e.countPiece(pieces[k]); got != want[k] {
							t.Errorf("%s: countPiece(%q) = %d, want %d", name, pieces[k], got, want[k])
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}
