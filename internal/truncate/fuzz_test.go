package truncate

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

const maxFuzzLen = 3000

func fuzzSeeds(f *testing.F) []string {
	seeds := []string{
		"",
		"a\nb\n",
		strings.Repeat("x", 300),
		strings.Repeat("日本語\n", 80),
		strings.Repeat("line\r\n", 90) + "FAIL: x\r\n" + strings.Repeat("line\r\n", 90),
		"[ctx-truncate] 500 chars, 1 line; 440 chars cut here, inside line 1; kept the first 30 and last 30 chars.\n" + strings.Repeat("y", 300),
		strings.Repeat("    at x (y.js:1:2)\n", 40) + "Error: boom\n" + strings.Repeat("// c\n", 40),
		"Traceback (most recent call last):\n" + strings.Repeat("  File \"a.py\", line 1, in f\n    g()\n", 30) + "ValueError: x\n",
		strings.Repeat("🙂", 200) + "\n" + strings.Repeat("é\u0301", 200),
		strings.Repeat("=", 900),
		numbered(80, "src/pkg%d/file.go"),
		numbered(80, "internal/app/file%d.go:12:\treturn err") + "grep: x: binary file matches\n",
		"Chunk ID: 1\nProcess exited with code 0\nOutput:\n" + numbered(60, "%d:match"),
		"<returncode>1</returncode>\n<output>\n" + numbered(60, "./a/b%d") + "find: ‘./c’: Permission denied\n</output>",
		"net:\nhttp\n\nnet/http:\n" + numbered(60, "f%d.go"),
	}
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	for _, l := range logs {
		s := readLog(f, filepath.Base(l))
		seeds = append(seeds, s[:textfmt.RuneOffset(s, 1500)])
	}
	return seeds
}

// FuzzCut checks the cutting function, for the output of a call of any
// kind (a listing's and a search's are grouped): valid UTF-8 in, valid UTF-8 out;
// never longer, never more tokens (fewer in token mode); a text that is not
// cut comes back as it was; the head is the text's own start; and Cut of
// its output changes nothing. With a handle, the cut cites it.
func FuzzCut(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, uint16(200), uint16(40), uint16(40), uint8(5), i%2 == 0, i%3 == 0, i%4 == 1, uint8(i))
	}
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		f.Fatal(err)
	}
	kinds := []tools.Kind{"", tools.List, tools.Search, tools.Shell, tools.Git, tools.Read}
	f.Fuzz(func(t *testing.T, text string, max, head, tail uint16, keep uint8, failed, tokenMode, cite bool, kind uint8) {
		if len(text) > maxFuzzLen {
			t.Skip() // tiktoken-go's merging is quadratic in a piece's length
		}
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		r := Rules{Max: int(max % 4000), Head: int(head % 1000), Tail: int(tail % 1000), KeepMatches: int(keep % 30),
			Failed: failed, TokenMode: tokenMode, Counter: ctr, Kind: kinds[int(kind)%len(kinds)]}
		if tokenMode {
			r.Max, r.Head, r.Tail = r.Max/4, r.Head/4, r.Tail/4
		}
		if cite {
			r.Handle = "toolu_01MGqJNAucDoKPyZKrzvWLmx"
		}
		out, ok := Cut(text, r)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out: %q", out)
		}
		if !ok {
			if out != text {
				t.Fatalf("not cut, but changed")
			}
			return
		}
		if n, m := utf8.RuneCountInString(text), utf8.RuneCountInString(out); m >= n {
			t.Fatalf("not shorter: %d chars → %d", n, m)
		}
		if n, m := ctr.Count(text), ctr.Count(out); m > n || tokenMode && m == n {
			t.Fatalf("more tokens: %d → %d", n, m)
		}
		if !marker.IsCut(out) || marker.CitedCut(out) != r.Handle {
			t.Fatalf("the cut is not recognised, or cites %q, not %q:\n%s", marker.CitedCut(out), r.Handle, out)
		}
		i := strings.Index(out, marker.CutPrefix)
		if !strings.HasPrefix(text, strings.TrimSuffix(out[:i], "\n")) {
			t.Fatalf("the head is not the text's start")
		}
		if again, ok := Cut(out, r); ok || again != out {
			t.Fatalf("a second cut changed it:\n%s\n----\n%s", out, again)
		}
	})
}

// FuzzSure: what Sure says of any start of a text is where every cut of
// the whole text starts, whatever the rules: a filter that passed it on as
// the text came never has to take it back. Once final, no more of the text
// changes it.
func FuzzSure(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, uint16(i*37), uint16(200), uint16(40), uint16(40), i%2 == 0, i%3 == 0, uint8(i))
	}
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		f.Fatal(err)
	}
	kinds := []tools.Kind{"", tools.List, tools.Search, tools.Shell}
	f.Fuzz(func(t *testing.T, text string, split, max, head, tail uint16, failed, tokenMode bool, kind uint8) {
		if len(text) > maxFuzzLen {
			t.Skip() // tiktoken-go's merging is quadratic in a piece's length
		}
		text = strings.ToValidUTF8(text, "\uFFFD")
		r := Rules{Max: int(max % 4000), Head: int(head % 1000), Tail: int(tail % 1000), KeepMatches: 5,
			Failed: failed, TokenMode: tokenMode, Counter: ctr, Kind: kinds[int(kind)%len(kinds)]}
		if tokenMode {
			r.Max, r.Head, r.Tail = r.Max/4, r.Head/4, r.Tail/4
		}
		p := int(split) % (len(text) + 1)
		n, final := r.Sure(text[:p])
		out, _ := Cut(text, r)
		if n > p || !strings.HasPrefix(out, text[:n]) {
			t.Fatalf("Sure of the first %d bytes is %d, but the cut starts %q, not %q", p, n, out[:min(len(out), n)], text[:n])
		}
		if whole, _ := r.Sure(text); whole < n || final && whole != n {
			t.Fatalf("Sure of the first %d bytes is %d (final %v), of the whole %d", p, n, final, whole)
		}
	})
}
