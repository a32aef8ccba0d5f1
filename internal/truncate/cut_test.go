package truncate

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

func counter(t testing.TB, name string) tokens.Counter {
	t.Helper()
	c, err := tokens.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// numbered returns n lines "line 1" ... "line n", each ending in a newline.
func numbered(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

func small() Rules {
	return Rules{Max: 100, Head: 30, Tail: 30, KeepMatches: 20}
}

func TestShortTextStaysWhole(t *testing.T) {
	for _, text := range []string{"", "ok\n", strings.Repeat("x", 100), strings.Repeat("é", 100)} {
		if out, ok := Cut(text, small()); ok || out != text {
			t.Errorf("Cut(%d chars) = %q, %v; want it whole", utf8.RuneCountInString(text), out, ok)
		}
	}
}

func TestLineCut(t *testing.T) {
	text := numbered(40, "line %02d") // 8 chars a line
	out, ok := Cut(text, small())
	if !ok {
		t.Fatal("not cut")
	}
	want := "line 01\nline 02\nline 03\n" +
		"[ctx-truncate] 320 chars, 40 lines; 272 chars (34 lines) cut here; kept the first 3 and last 3 lines.\n" +
		"line 38\nline 39\nline 40\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestKeptLinesAreNumbered(t *testing.T) {
	lines := strings.Split(numbered(60, "step %02d done"), "\n")
	lines[19] = "--- FAIL: TestPrice (0.00s)"
	lines[20] = "    price_test.go:12: Price(100) = 250, want 225"
	lines[40] = "ok  \texample.com/shop\t0.01s"
	text := strings.Join(lines, "\n")
	out, ok := Cut(text, Rules{Max: 200, Head: 50, Tail: 50, KeepMatches: 20})
	if !ok {
		t.Fatal("not cut")
	}
	for _, want := range []string{
		"and 3 lines that matter (numbered).\n",
		"\n  20: --- FAIL: TestPrice (0.00s)\n  21:     price_test.go:12: Price(100) = 250, want 225\n  41: ok  \texample.com/shop\t0.01s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestHugeLineIsCutInside(t *testing.T) {
	text := strings.Repeat("0123456789", 50) // one line, 500 chars
	out, ok := Cut(text, small())
	if !ok {
		t.Fatal("not cut")
	}
	want := "012345678901234567890123456789\n" +
		"[ctx-truncate] 500 chars, 1 line; 440 chars cut here, inside line 1; kept the first 30 and last 30 chars.\n" +
		"012345678901234567890123456789"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestHugeLineBetweenShortOnes(t *testing.T) {
	text := "a\n" + strings.Repeat("y", 300) + "\nz\n"
	out, ok := Cut(text, small())
	if !ok {
		t.Fatal("not cut")
	}
	want := "a\n" + strings.Repeat("y", 28) + "\n" +
		"[ctx-truncate] 305 chars, 3 lines; 245 chars cut here, inside line 2; kept the first 30 and last 30 chars.\n" +
		strings.Repeat("y", 27) + "\nz\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestNeverSplitsACharacter(t *testing.T) {
	for _, unit := range []string{"é", "日本", "🙂", "a\u0301"} {
		text := strings.Repeat(unit, 200)
		out, ok := Cut(text, small())
		if !ok {
			t.Fatalf("%q: not cut", unit)
		}
		if !utf8.ValidString(out) {
			t.Errorf("%q: invalid UTF-8 out", unit)
		}
		if again, ok := Cut(out, small()); ok || again != out {
			t.Errorf("%q: a second cut changed it", unit)
		}
	}
}

func TestCharsNotBytes(t *testing.T) {
	text := strings.Repeat("ж", 90) // 180 bytes, 90 chars: under 100 chars
	if _, ok := Cut(text, small()); ok {
		t.Error("cut a text of 90 chars (180 bytes) with --max-chars 100")
	}
}

func TestFailedKeepsEveryErrorLine(t *testing.T) {
	lines := strings.Split(numbered(200, "compiling module %03d"), "\n")
	for i := 50; i < 80; i++ {
		lines[i] = fmt.Sprintf("src/m%03d.c:3:1: error: unknown type name 'strct'", i)
	}
	text := strings.Join(lines, "\n")
	r := Rules{Max: 1000, Head: 200, Tail: 200, KeepMatches: 5}
	out, _ := Cut(text, r)
	if n := strings.Count(out, "error: unknown type"); n != 5 {
		t.Errorf("a successful call kept %d error lines, want --keep-matches 5", n)
	}
	// The first and last of them.
	if !strings.Contains(out, "  51: src/m050.c") || !strings.Contains(out, "  80: src/m079.c") {
		t.Errorf("want the first and last error lines kept:\n%s", out)
	}
	r.Failed = true
	out, ok := Cut(text, r)
	if !ok {
		t.Fatal("not cut")
	}
	if n := strings.Count(out, "error: unknown type"); n != 30 {
		t.Errorf("a failed call kept %d of its 30 error lines", n)
	}
	r.KeepMatches = 0
	out, _ = Cut(text, r)
	if n := strings.Count(out, "error: unknown type"); n != 30 {
		t.Errorf("--keep-matches 0: a failed call kept %d of its 30 error lines", n)
	}
	r.Failed = false
	out, _ = Cut(text, r)
	if strings.Contains(out, "error:") || strings.Contains(out, "(numbered)") {
		t.Errorf("--keep-matches 0 kept lines:\n%s", out)
	}
}

func TestKeepPattern(t *testing.T) {
	lines := strings.Split(numbered(100, "request %03d served"), "\n")
	lines[40] = "WARN cache miss storm on shard 7"
	lines[41] = "error: upstream timeout"
	text := strings.Join(lines, "\n")
	r := Rules{Max: 500, Head: 100, Tail: 100, KeepMatches: 1, Keep: []*regexp.Regexp{regexp.MustCompile(`^WARN`)}}
	out, _ := Cut(text, r)
	if !strings.Contains(out, "  41: WARN cache miss") || strings.Contains(out, "upstream timeout") {
		t.Errorf("the user's pattern comes first:\n%s", out)
	}
}

func TestTraceback(t *testing.T) {
	text := numbered(40, "INFO record %d imported") +
		"Traceback (most recent call last):\n" +
		"  File \"/app/importer.py\", line 25, in import_all\n" +
		"    rec = load_record(line)\n" +
		"  File \"/app/importer.py\", line 12, in parse_amount\n" +
		"    return int(whole) * 100 + int(cents)\n" +
		"           ^^^^^^^^^^\n" +
		"ValueError: invalid literal for int() with base 10: '1,234'\n" +
		numbered(40, "INFO record %d imported")
	out, ok := Cut(text, Rules{Max: 500, Head: 100, Tail: 100, KeepMatches: 20})
	if !ok {
		t.Fatal("not cut")
	}
	want := "  41: Traceback (most recent call last):\n" +
		"  44:   File \"/app/importer.py\", line 12, in parse_amount\n" +
		"  45:     return int(whole) * 100 + int(cents)\n" +
		"  47: ValueError: invalid literal for int() with base 10: '1,234'\n"
	if !strings.Contains(out, want) {
		t.Errorf("want the traceback, its last frame and the exception:\n%s", out)
	}
}

func TestLongKeptLineShowsItsMatch(t *testing.T) {
	long := strings.Repeat("x", 1000) + " Error: disk full " + strings.Repeat("y", 1000)
	text := numbered(50, "line %d") + long + "\n" + numbered(50, "line %d")
	out, ok := Cut(text, Rules{Max: 500, Head: 100, Tail: 100, KeepMatches: 20})
	if !ok {
		t.Fatal("not cut")
	}
	i := strings.Index(out, "  51: …")
	if i < 0 {
		t.Fatalf("no kept line 51:\n%s", out)
	}
	kept := out[i:]
	kept = kept[:strings.IndexByte(kept, '\n')]
	if !strings.Contains(kept, "Error: disk full") || utf8.RuneCountInString(kept) > keptLineMax+10 {
		t.Errorf("kept line: %q", kept)
	}
}

func TestCRLF(t *testing.T) {
	text := strings.ReplaceAll(numbered(40, "line %02d"), "\n", "\r\n")
	text = strings.Replace(text, "line 20", "FAIL: line 20", 1)
	out, ok := Cut(text, Rules{Max: 100, Head: 30, Tail: 30, KeepMatches: 20})
	if !ok {
		t.Fatal("not cut")
	}
	if !strings.Contains(out, "\n  20: FAIL: line 20\n") {
		t.Errorf("kept line keeps its \\r or is missing:\n%q", out)
	}
	if !strings.HasPrefix(out, "line 01\r\nline 02\r\nline 03\r\n[ctx-truncate]") {
		t.Errorf("head: %q", out[:40])
	}
}

func TestNotShorterIsNotCut(t *testing.T) {
	// Head and tail leave nothing worth cutting.
	text := numbered(20, "line %02d")
	if out, ok := Cut(text, Rules{Max: 10, Head: 80, Tail: 80}); ok {
		t.Errorf("cut without gain:\n%s", out)
	}
}

func TestNeverMoreTokens(t *testing.T) {
	// A middle of one repeated character is a few tokens; the marker line
	// is more: a cut would add tokens.
	ctr := counter(t, tokens.Default)
	text := strings.Repeat("日本語のテキスト\n", 3) + strings.Repeat("=", 600) + "\n" + strings.Repeat("日本語のテキスト\n", 3)
	r := Rules{Max: 100, Head: 30, Tail: 30, Counter: ctr}
	if out, ok := Cut(text, r); ok {
		t.Errorf("cut to more tokens (%d → %d):\n%s", ctr.Count(text), ctr.Count(out), out)
	}
	// Without the counter it is cut, and it is longer in tokens.
	r.Counter = nil
	out, ok := Cut(text, r)
	if !ok || ctr.Count(out) <= ctr.Count(text) {
		t.Fatalf("the case does not test the rule: cut %v, %d → %d tokens", ok, ctr.Count(text), ctr.Count(out))
	}
}

func TestTokenMode(t *testing.T) {
	ctr := counter(t, tokens.Default)
	text := numbered(400, "2026-05-11 10:29:46 INFO request %d served in 3ms")
	r := Rules{Max: 1000, Head: 100, Tail: 100, TokenMode: true, Counter: ctr, KeepMatches: 20}
	out, ok := Cut(text, r)
	if !ok {
		t.Fatal("not cut")
	}
	head := out[:strings.Index(out, "[ctx-truncate]")]
	tail := out[strings.Index(out, ".\n")+2:]
	if n := ctr.Count(head); n > 100 || n < 80 {
		t.Errorf("head has %d tokens, want at most and about 100", n)
	}
	if n := ctr.Count(tail); n > 100 || n < 80 {
		t.Errorf("tail has %d tokens, want at most and about 100", n)
	}
	if short := numbered(20, "line %d"); ctr.Count(short) < 1000 {
		if _, ok := Cut(short, r); ok {
			t.Error("cut a text under --max-tokens")
		}
	}
	// A huge line in token mode is cut inside too.
	line := strings.Repeat("lorem ipsum dolor sit amet ", 400)
	out, ok = Cut(line, r)
	if !ok || !strings.Contains(out, "cut here, inside line 1") {
		t.Fatalf("one huge line: %v\n%.300s", ok, out)
	}
	if again, ok := Cut(out, r); ok || again != out {
		t.Error("token mode: a second cut changed it")
	}
}

func TestIsCut(t *testing.T) {
	text := numbered(40, "line %02d")
	out, _ := Cut(text, small())
	if !marker.IsCut(out) {
		t.Errorf("marker.IsCut(its own output) = false:\n%s", out)
	}
	for _, s := range []string{
		text,
		"[ctx-truncate] something else\n",
		"see [ctx-truncate] 320 chars, 40 lines; 272 chars (34 lines) cut here; kept the first 3 and last 3 lines.\n",
		// A marker that claims fewer chars than the text has is not a cut's.
		"[ctx-truncate] 3 chars, 1 line; 2 chars (1 line) cut here; kept the first 0 and last 0 lines.\n" + text,
		"[ctx-truncate] 900 chars, 40 lines; 800 chars (30 lines) grouped here: 30 paths, all of them; kept the first 10 lines.\n" + text,
	} {
		if marker.IsCut(s) {
			t.Errorf("marker.IsCut(%.60q) = true", s)
		}
	}
	// The shapes Cut writes, as docs/markers.md shows them.
	for _, line := range []string{
		"[ctx-truncate] 45,231 chars, 342 lines; 38,102 chars (301 lines) cut here; kept the first 40 and last 40 lines and 6 lines that matter (numbered).",
		"[ctx-truncate] 45,231 chars, 342 lines; 38,102 chars (301 lines) cut here; kept the first 40 and last 1 line.",
		"[ctx-truncate] 45,231 chars, 1 line; 41,231 chars cut here, inside line 1; kept the first 2,000 and last 2,000 chars.",
		"[ctx-truncate] 45,231 chars, 3 lines; 41,231 chars cut here, from inside line 1 to line 3; kept the first 2,000 and last 2,000 chars and 1 line that matters (numbered).",
		// A listing's and a search's, every form of what they keep.
		"[ctx-truncate] 15,455 chars, 144 lines; 13,480 chars (117 lines) grouped here: 117 paths under /r/src/, every one named below by directory; kept the first 27 lines.",
		"[ctx-truncate] 39,780 chars, 651 lines; 37,789 chars (601 lines) grouped here: 601 paths, counted below by directory with 268 of their names; kept the first 50 lines and 1 line that matters (numbered).",
		"[ctx-truncate] 39,780 chars, 651 lines; 37,789 chars (601 lines) grouped here: 601 paths under a; b/, counted below by their directories of the first 1 level with 0 of their names; kept the first 1 line.",
		"[ctx-truncate] 11,404 chars, 105 lines; 9,550 chars (91 lines) grouped here: 91 matches in 19 files under net/http/, every file named below with the line numbers of its matches and the text of 89 of them; kept the first 14 lines.",
		"[ctx-truncate] 11,404 chars, 105 lines; 9,550 chars (91 lines) grouped here: 91 matches in 1 file, every file named below with its count of matches and the text of 0 of them; kept the first 0 lines.",
		"[ctx-truncate] 38,838 chars, 271 lines; 38,705 chars (264 lines) grouped here: 264 matches in 25 files under ./, the files counted below by directory with 1 of their names; kept the first 7 lines.",
		"[ctx-truncate] 10,471 chars, 210 lines; 8,495 chars (167 lines) grouped here: 167 matches, the line number of every one below and the text of 157 of them; kept the first 43 lines.",
	} {
		if !marker.IsCut("head\n" + line + "\ntail") {
			t.Errorf("IsCut does not know %q", line)
		}
		cited := marker.Cite(line, "toolu_01AB")
		if !marker.IsCut("head\n"+cited+"\ntail") || marker.CitedCut("head\n"+cited+"\ntail") != "toolu_01AB" || marker.CitedCut("head\n"+line+"\ntail") != "" {
			t.Errorf("IsCut or Cited does not know %q", cited)
		}
	}
}

// TestCutCites: with a handle, the marker line cites it, in every shape of
// cut; the cut is recognised, and a second cut changes nothing.
func TestCutCites(t *testing.T) {
	for _, text := range []string{numbered(40, "line %02d"), strings.Repeat("0123456789", 50), "a\n" + strings.Repeat("y", 500) + "\nb\n"} {
		r := small()
		r.Handle = "ctx_3f9a1c2b7d0e"
		out, ok := Cut(text, r)
		if !ok {
			t.Fatalf("not cut: %.40q", text)
		}
		want, _ := Cut(text, small())
		i := strings.Index(want, marker.CutPrefix)
		line, _, _ := strings.Cut(want[i:], "\n")
		if !strings.Contains(out, "\n"+marker.Cite(line, r.Handle)+"\n") && !strings.HasPrefix(out, marker.Cite(line, r.Handle)) {
			t.Errorf("the marker line does not cite the handle:\n%s", out)
		}
		if !marker.IsCut(out) || marker.CitedCut(out) != r.Handle {
			t.Errorf("IsCut %v, Cited %q:\n%s", marker.IsCut(out), marker.CitedCut(out), out)
		}
		if again, ok := Cut(out, r); ok || again != out {
			t.Errorf("a second cut changed it")
		}
	}
}

// TestCutIsIdempotent runs Cut on its own output for many shapes of text.
func TestCutIsIdempotent(t *testing.T) {
	ctr := counter(t, tokens.Default)
	texts := []string{
		numbered(500, "line %d"),
		numbered(500, "error: line %d"),
		strings.Repeat("x", 5000),
		"a\n" + strings.Repeat("y", 5000) + "\nb\n" + strings.Repeat("z", 5000),
		numbered(100, "    indented %d") + numbered(100, "// comment %d"),
		strings.Repeat("\n", 3000),
	}
	for _, r := range []Rules{small(), {Max: 1000, Head: 200, Tail: 0, KeepMatches: 3, Failed: true, Counter: ctr},
		{Max: 1000, Head: 0, Tail: 200, KeepMatches: 3, Counter: ctr}, {Max: 300, Head: 40, Tail: 40, TokenMode: true, Counter: ctr, KeepMatches: 20}} {
		for _, text := range texts {
			out, _ := Cut(text, r)
			if again, ok := Cut(out, r); ok || again != out {
				t.Errorf("rules %+v: a second cut changed %.40q", r, text)
			}
			if utf8.RuneCountInString(out) > utf8.RuneCountInString(text) {
				t.Errorf("rules %+v: longer out", r)
			}
		}
	}
}

func TestRuneCount(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghé", "éééééééééé", "日本語のテキスト and ascii 🙂 mixed\n", strings.Repeat("x🙂", 33), "\xff\xfe invalid"} {
		for i := 0; i <= len(s); i++ {
			if got, want := textfmt.RuneCount(s[i:]), utf8.RuneCountInString(s[i:]); got != want && utf8.ValidString(s[i:]) {
				t.Errorf("textfmt.RuneCount(%q) = %d, want %d", s[i:], got, want)
			}
		}
	}
}
