package outcome

import (
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// renumber gives a numbered read its text back: its head, its body numbered
// again, its tail.
func renumber(n Numbered) string {
	lines := append(append([]string{}, n.Head...), testutil.NumberLines(n.Start, n.Sep, strings.Split(n.Body, "\n")...))
	return strings.Join(append(lines, n.Tail...), "\n")
}

func TestSplitNumbered(t *testing.T) {
	cases := []struct {
		name, text string
		ok         bool
		start      int
		sep, body  string
		head, tail int
	}{
		{"claude code", testutil.NumberLines(1, "→", "a", "b", ""), true, 1, "→", "a\nb\n", 0, 0},
		{"a range", testutil.NumberLines(998, "→", "x", "y", "z"), true, 998, "→", "x\ny\nz", 0, 0},
		{"past six digits", testutil.NumberLines(999999, "→", "x", "y"), true, 999999, "→", "x\ny", 0, 0},
		{"cat -n with a header", "Here's the result of running `cat -n` on f:\n" + testutil.NumberLines(1, "\t", "a", "b") + "\n", true, 1, "\t", "a\nb", 1, 1},
		{"a note after", testutil.NumberLines(5, "→", "a") + "\n\n<system-reminder>note</system-reminder>", true, 5, "→", "a", 0, 2},
		{"not counting up", "     1→a\n     3→b", true, 1, "→", "a", 0, 1},
		{"two separators", "     1→a\n     2\tb", true, 1, "→", "a", 0, 1},
		{"not padded", "1→a", false, 0, "", "", 0, 0},
		{"too padded", "      1→a", false, 0, "", "", 0, 0},
		{"a leading zero", "    01→a", false, 0, "", "", 0, 0},
		{"no separator", "     1 a", false, 0, "", "", 0, 0},
		{"plain text", "hello\nworld", false, 0, "", "", 0, 0},
		{"empty", "", false, 0, "", "", 0, 0},
	}
	for _, c := range cases {
		n, ok := SplitNumbered(c.text)
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if n.Start != c.start || n.Sep != c.sep || n.Body != c.body || len(n.Head) != c.head || len(n.Tail) != c.tail {
			t.Errorf("%s: got start %d sep %q body %q head %d tail %d; want %d %q %q %d %d",
				c.name, n.Start, n.Sep, n.Body, len(n.Head), len(n.Tail), c.start, c.sep, c.body, c.head, c.tail)
		}
		if got := renumber(n); got != c.text {
			t.Errorf("%s: numbered again: %q, want %q", c.name, got, c.text)
		}
	}
}

func TestReadContent(t *testing.T) {
	cases := []struct {
		in, want        string
		numbered, empty bool
	}{
		{"     1→package a\n     2→\n     3→func f() {}\n     4→", "package a\n\nfunc f() {}\n", true, false},
		{"     1→no newline at the end", "no newline at the end", true, false},
		{"     1\ta\n     2\tb\n", "a\nb\n", true, false}, // cat -n
		{"Here's the result of running `cat -n` on /w/x.py:\n     1\ta\n", "a\n", true, false},
		{"     1→a\n\n<system-reminder>\nWhenever you read a file, consider whether it is malware.\n</system-reminder>\n", "a", true, false},
		{"<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", "", false, true},
		{"     1→a <system-reminder> in the text", "a <system-reminder> in the text", true, false},
		{"     1→a\n     3→b", "     1→a\n     3→b", false, false}, // a gap
		{"    10→a\n    11→b", "    10→a\n    11→b", false, false}, // not from the top
		{"File unchanged since last read.", "File unchanged since last read.", false, false},
		{"     1→a\nplain", "     1→a\nplain", false, false},
	}
	for _, c := range cases {
		got, numbered, empty := ReadContent(c.in)
		if got != c.want || numbered != c.numbered || empty != c.empty {
			t.Errorf("ReadContent(%q) = %q, %v, %v; want %q, %v, %v", c.in, got, numbered, empty, c.want, c.numbered, c.empty)
		}
	}
}

func TestReadLines(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
		first    int
	}{
		{"claude code", testutil.NumberLines(50, "→", "a", "b") + "\n\n<system-reminder>\nnote\n</system-reminder>\n", []string{"a", "b"}, 50},
		{"cat -n", testutil.NumberLines(1, "\t", "a", "", "c") + "\n", []string{"a", "", "c"}, 1},
		{"str_replace_editor view", "Here's the result of running `cat -n` on /w/x.py:\n" + testutil.NumberLines(7, "\t", "x") + "\n", []string{"x"}, 7},
		{"sed -n, mini-swe-agent", "<returncode>0</returncode>\n<output>\nline 10\nline 11\n</output>", []string{"line 10", "line 11"}, 0},
		{"codex", "Chunk ID: 4f2a\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nx\ny\n", []string{"x", "y"}, 0},
		{"plain, no newline at the end", "a\nb", []string{"a", "b"}, 0},
		{"an empty last line kept", "a\n\n", []string{"a", ""}, 0},
		{"numbered, then text", "     1→a\nplain", []string{"     1→a", "plain"}, 0},
		{"empty", "", nil, 0},
	}
	for _, c := range cases {
		lines, first := ReadLines(c.in)
		if strings.Join(lines, "\x00") != strings.Join(c.want, "\x00") || len(lines) != len(c.want) || first != c.first {
			t.Errorf("%s: ReadLines = %q, %d; want %q, %d", c.name, lines, first, c.want, c.first)
		}
	}
}
