package truncate

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript/transcripttest"
)

// splitsAddUp checks that s has as many tokens as its pieces cut at every
// safe point.
func splitsAddUp(t *testing.T, c tokens.Counter, s string) {
	t.Helper()
	sum, start := 0, 0
	for i := 1; i < len(s); i++ {
		if safeAt(s, i) {
			sum += c.Count(s[start:i])
			start = i
		}
	}
	sum += c.Count(s[start:])
	if whole := c.Count(s); whole != sum {
		t.Errorf("%s: %d tokens whole, %d in pieces: %.200q", c.Name(), whole, sum, s)
	}
}

// TestSplitPointsAddUp checks the rule the token checks rest on, on real
// text: the logs, and a sample of the corpus's tool results.
func TestSplitPointsAddUp(t *testing.T) {
	var texts []string
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	for _, f := range logs {
		texts = append(texts, readLog(t, filepath.Base(f)))
	}
	budget := 400_000
	if testing.Short() || raceEnabled {
		budget = 60_000
	}
	for _, f := range testutil.CorpusIfPresent(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, data)
		for i, r := range tr.Results {
			if i%3 == 0 && strings.Contains(r.Text(), "\n") {
				texts = append(texts, r.Text())
			}
		}
	}
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		c := counter(t, enc)
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
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		c := counter(t, enc)
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
	c := counter(t, "o200k_base")
	text := numbered(3000, "2026-05-11 INFO request %d served")
	n := c.Count(text)
	for _, k := range []int{0, 1, 100, n - 1, n} {
		if !atLeast(c, text, k) {
			t.Errorf("atLeast(%d tokens, %d) = false", n, k)
		}
	}
	if atLeast(c, text, n+1) {
		t.Errorf("atLeast(%d tokens, %d) = true", n, n+1)
	}
	a := counter(t, "approx")
	if atLeast(a, "12345678", 3) || !atLeast(a, "12345678", 2) {
		t.Error("approx: atLeast is wrong")
	}
}
