package tokens

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// splitsAddUp checks that s has as many tokens as its pieces cut at every
// safe point.
func splitsAddUp(t *testing.T, c Counter, s string) {
	t.Helper()
	sum, start := 0, 0
	for i := 1; i < len(s); i++ {
		if SafeAt(s, i) {
			sum += c.Count(s[start:i])
			start = i
		}
	}
	sum += c.Count(s[start:])
	if whole := c.Count(s); whole != sum {
		t.Errorf("%s: %d tokens whole, %d in pieces: %.200q", c.Name(), whole, sum, s)
	}
}

// TestSplitPointsAddUp checks the rule on real text: the multi-line strings
// of the fixtures and of the corpus where it is present (tool output, code,
// prose).
func TestSplitPointsAddUp(t *testing.T) {
	var texts []string
	for _, f := range testutil.FixturesAndCorpus(t) {
		strs, err := jsonStrings(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range strs {
			if i%3 == 0 && strings.Contains(s, "\n") {
				texts = append(texts, s)
			}
		}
	}
	budget := 400_000
	if testing.Short() || raceEnabled {
		budget = 60_000
	}
	for _, enc := range exactNames {
		c := fast(t, enc)
		left := budget
		for _, s := range texts {
			if left <= 0 {
				break
			}
			if len(s) > left {
				s = s[:left]
				for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
					s = s[:len(s)-1]
				}
			}
			left -= len(s)
			splitsAddUp(t, c, s)
		}
	}
}

// TestSplitPointsAddUpOnOddText tries the characters that pre-tokenizers
// treat specially after a newline: spaces of every kind, slashes,
// apostrophes, digits, marks, CR.
func TestSplitPointsAddUpOnOddText(t *testing.T) {
	parts := []string{"\n", "\n\n", "\r\n", " ", "\t", "\u00a0", "\u3000", "\u2028", "/", "//", "'s", "'", "a", "Z", "é",
		"\u0301", "1", "123456", "日本", "{", "}\n", "-->", "*/", "$", "  ", "x/y", ".", "🙂", "\v", "\f",
		"✓", "—", "\u0085", "\u2029", "\u1680", "\ufeff", "    ", "\t\t", "--- PASS", "\\"}
	rng := rand.New(rand.NewSource(1))
	for _, enc := range exactNames {
		c := fast(t, enc)
		for i := 0; i < 300; i++ {
			var b strings.Builder
			for j := 0; j < 40; j++ {
				b.WriteString(parts[rng.Intn(len(parts))])
			}
			splitsAddUp(t, c, b.String())
		}
	}
}

func TestAtLeast(t *testing.T) {
	c := fast(t, "o200k_base")
	var b strings.Builder
	for i := range 3000 {
		b.WriteString("2026-05-11 INFO request " + strings.Repeat("x", i%7) + " served\n")
	}
	text := b.String()
	n := c.Count(text)
	for _, k := range []int{0, 1, 100, n - 1, n} {
		if !AtLeast(c, text, k) {
			t.Errorf("AtLeast(%d tokens, %d) = false", n, k)
		}
	}
	if AtLeast(c, text, n+1) {
		t.Errorf("AtLeast(%d tokens, %d) = true", n, n+1)
	}
	a := fast(t, Approx)
	if AtLeast(a, "12345678", 3) || !AtLeast(a, "12345678", 2) {
		t.Error("approx: AtLeast is wrong")
	}
}

// TestMinTokens: the bound never exceeds the count, on the corpus's odd
// pieces and on plain text.
func TestMinTokens(t *testing.T) {
	c := fast(t, "o200k_base")
	for _, s := range []string{"", "a b", "x hello world y", "a  b", "1234567 x", "it's a cat's toy", "日本 語 text here ok"} {
		if got, n := MinTokens(s, 1<<30), c.Count(s); got > n {
			t.Errorf("MinTokens(%q) = %d, more than its %d tokens", s, got, n)
		}
	}
}

// FuzzSplitPointsAddUp checks the rule under piece-by-piece counting: a
// text split at its safe points has as many tokens as its pieces, and
// MinTokens never exceeds its count.
func FuzzSplitPointsAddUp(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "x /y\n/z", "line\r\n  FAIL: x\r\n", "Traceback:\n  File \"a.py\"\n", "日本語\n 🙂 é\u0301"} {
		f.Add(s)
	}
	ctr := fast(f, Default)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 3000 {
			t.Skip()
		}
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		splitsAddUp(t, ctr, text)
		if n := MinTokens(text, 1<<30); n > ctr.Count(text) {
			t.Errorf("MinTokens(%q) = %d, more than its %d tokens", text, n, ctr.Count(text))
		}
	})
}
