package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBacktrackEveryToken: every token of both encodings is one token, as
// merging makes it; so the backtracker knows a way to make each.
func TestBacktrackEveryToken(t *testing.T) {
	for _, name := range exactNames {
		e := fast(t, name).(*encoder)
		e.Count("load")
		b := e.backtracker()
		for r := range uint32(len(b.split)) {
			if got := b.count(b.token(r)); got != 1 {
				t.Fatalf("%s: token %d %q counts %d", name, r, b.token(r), got)
			}
		}
	}
}

// TestBacktrackMatchesMerge checks the backtracking count against the
// heap merge, itself checked against tiktoken-go: on random pieces of
// every length up to a few thousand bytes over small alphabets (long runs
// of few letters are where merges compete most), and on pairs and runs of
// tokens put together, where each boundary is one the merges may cross.
func TestBacktrackMatchesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	alphabets := []string{"a", "ab", "aab", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
		" ", " \t\n", "=-", "\x00\xff\x80é中"}
	rounds := 400
	if raceEnabled || testing.Short() {
		rounds = 60
	}
	for _, name := range exactNames {
		e := fast(t, name).(*encoder)
		e.Count("load")
		b := e.backtracker()
		check := func(p string) {
			t.Helper()
			if got, want := b.count(p), e.mergeLong(p); got != want {
				t.Fatalf("%s: backtracking counts %d in %q, merging %d", name, got, p, want)
			}
		}
		for range rounds {
			alpha := alphabets[rng.IntN(len(alphabets))]
			var s strings.Builder
			for n := 1 + rng.IntN(3000); s.Len() < n; {
				s.WriteByte(alpha[rng.IntN(len(alpha))])
			}
			check(s.String())
		}
		for range 50 * rounds {
			var s strings.Builder
			for k := 2 + rng.IntN(4); k > 0; k-- {
				s.WriteString(b.token(uint32(rng.IntN(len(b.split)))))
			}
			check(s.String())
		}
	}
}

// TestBacktrackMatchesTiktoken compares the backtracking count with
// tiktoken-go's itself, on pieces as long as tiktoken-go counts in a
// moment (its merge is quadratic), and checks that a piece long enough to
// be counted by backtracking gives, through Count, the heap merge's count.
func TestBacktrackMatchesTiktoken(t *testing.T) {
	pieces := []string{strings.Repeat("a", 5000), strings.Repeat("ab", 1500), strings.Repeat(" ", 4000),
		strings.Repeat("Zm9vYmFyYmF6", 300), strings.Repeat("-", 3000), strings.Repeat("é", 2000)}
	for _, name := range exactNames {
		e := fast(t, name).(*encoder)
		o := oracle(t, name)
		for _, p := range pieces {
			if got, want := e.backtracker().count(p), o.Count(p); got != want {
				t.Errorf("%s: backtracking counts %d in %.20q... (%d bytes), tiktoken-go %d", name, got, p, len(p), want)
			}
		}
		long := strings.Repeat("x", bigPiece+7)
		if got, want := e.Count(long), e.mergeLong(long); got != want {
			t.Errorf("%s: Count of %d letters = %d, the heap merge says %d", name, len(long), got, want)
		}
	}
}
