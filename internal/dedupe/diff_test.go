package dedupe

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// rebuild gives back the text that a diff pointer replaced, from the text
// of the result it names and the pointer's own text: what a reader of the
// output can do, and what the tests check for every diff.
func rebuild(base, pointer string) (string, error) {
	line, diff, ok := strings.Cut(pointer, "\n")
	if !ok {
		return "", fmt.Errorf("no diff after the marker line")
	}
	if !strings.Contains(line, "(line numbers stripped)") {
		return applyUnified(base, diff, 0)
	}
	n, ok := outcome.SplitNumbered(base)
	if !ok {
		return "", fmt.Errorf("line numbers stripped, but the base has none")
	}
	body, err := applyUnified(n.Body, diff, n.Start-1)
	if err != nil {
		return "", err
	}
	return number(n, body), nil
}

// number gives lines their numbers back: the inverse of
// outcome.SplitNumbered.
func number(n outcome.Numbered, body string) string {
	lines := append(append([]string{}, n.Head...), testutil.NumberLines(n.Start, n.Sep, strings.Split(body, "\n")...))
	return strings.Join(append(lines, n.Tail...), "\n")
}

// applyUnified applies a unified diff as unifiedDiff writes it to base, with
// udiff.Apply. Its hunk headers count lines from offset+1. Every context and
// deleted line must match base.
func applyUnified(base, diff string, offset int) (string, error) {
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no diff header")
	}
	baseLines := strings.SplitAfter(base, "\n")
	starts := make([]int, len(baseLines)+1)
	for i, l := range baseLines {
		starts[i+1] = starts[i] + len(l)
	}
	type op struct {
		kind byte
		text string
	}
	var edits []udiff.Edit
	var hunk []op
	from := 0
	flush := func() error {
		pos := from
		for i := 0; i < len(hunk); {
			if hunk[i].kind == ' ' {
				if pos >= len(baseLines) || baseLines[pos] != hunk[i].text {
					return fmt.Errorf("context line %d does not match the base", pos+1)
				}
				pos++
				i++
				continue
			}
			e := udiff.Edit{Start: starts[min(pos, len(baseLines))]}
			for ; i < len(hunk) && hunk[i].kind != ' '; i++ {
				switch hunk[i].kind {
				case '-':
					if pos >= len(baseLines) || baseLines[pos] != hunk[i].text {
						return fmt.Errorf("deleted line %d does not match the base", pos+1)
					}
					pos++
				case '+':
					e.New += hunk[i].text
				}
			}
			e.End = starts[min(pos, len(baseLines))]
			edits = append(edits, e)
		}
		hunk = nil
		return nil
	}
	for _, l := range lines[2:] {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@ -"):
			if err := flush(); err != nil {
				return "", err
			}
			spec, _, _ := strings.Cut(strings.TrimPrefix(l, "@@ -"), " ")
			a, count, _ := strings.Cut(spec, ",")
			n, err := strconv.Atoi(a)
			if err != nil {
				return "", fmt.Errorf("bad hunk header %q", l)
			}
			from = n - offset - 1
			if n == 0 && count == "0" {
				from = 0
			}
			if from < 0 || from > len(baseLines) {
				return "", fmt.Errorf("hunk header %q out of range", l)
			}
		case strings.HasPrefix(l, `\ No newline at end of file`):
			if len(hunk) == 0 {
				return "", fmt.Errorf("no line before %q", l)
			}
			hunk[len(hunk)-1].text = strings.TrimSuffix(hunk[len(hunk)-1].text, "\n")
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			hunk = append(hunk, op{l[0], l[1:]})
		default:
			return "", fmt.Errorf("unexpected diff line %q", l)
		}
	}
	if err := flush(); err != nil {
		return "", err
	}
	return udiff.Apply(base, edits)
}

func TestUnifiedDiff(t *testing.T) {
	long := make([]string, 40)
	for i := range long {
		long[i] = "line " + strconv.Itoa(i+1)
	}
	inserted := append(append(append([]string{}, long[:10]...), "new"), long[10:]...)
	cases := []struct {
		name, base, text string
		stripped         bool
		want             string // the diff's hunk headers and changed lines
	}{
		{"numbered: an insertion is one line", testutil.NumberLines(1, "→", long...), testutil.NumberLines(1, "→", inserted...), true,
			"@@ -8,6 +8,7 @@|+new"},
		{"numbered range: file line numbers in the headers", testutil.NumberLines(100, "→", long...), testutil.NumberLines(100, "→", inserted...), true,
			"@@ -107,6 +107,7 @@|+new"},
		{"numbered from another start: raw", testutil.NumberLines(1, "→", long...), testutil.NumberLines(2, "→", long...), false, ""},
		{"plain text", "a\nb\nc\n", "a\nB\nc\n", false, "@@ -1,3 +1,3 @@|-b|+B"},
		{"no newline at the end", "a\nb", "a\nc", false, "@@ -1,2 +1,2 @@|-b|+c"},
		{"equal", "a\n", "a\n", false, "="},
	}
	for _, c := range cases {
		diff, stripped := unifiedDiff("f.go", c.base, c.text)
		if stripped != c.stripped {
			t.Errorf("%s: stripped = %v, want %v", c.name, stripped, c.stripped)
		}
		if c.want == "=" {
			if diff != "" {
				t.Errorf("%s: diff of equal texts: %q", c.name, diff)
			}
			continue
		}
		for _, w := range strings.Split(c.want, "|") {
			if w != "" && !strings.Contains(diff, "\n"+w+"\n") {
				t.Errorf("%s: diff lacks line %q:\n%s", c.name, w, diff)
			}
		}
		if !strings.HasPrefix(diff, "--- f.go\n+++ f.go\n") {
			t.Errorf("%s: diff header: %q", c.name, diff)
		}
		checkRebuild(t, c.base, c.text, diff, stripped)
	}
}

// checkRebuild checks that the diff, as a pointer carries it, gives text
// back from base.
func checkRebuild(t *testing.T, base, text, diff string, stripped bool) {
	t.Helper()
	line := marker.Line(tool, "test.")
	if stripped {
		line = marker.Line(tool, "test (line numbers stripped).")
	}
	got, err := rebuild(base, line+"\n"+diff)
	if err != nil {
		t.Fatalf("rebuild: %v\nbase %q\ntext %q\ndiff:\n%s", err, base, text, diff)
	}
	if got != text {
		t.Fatalf("rebuilt %q, want %q\nbase %q\ndiff:\n%s", got, text, base, diff)
	}
}

// FuzzUnifiedDiff checks that every diff gives its text back from its base:
// of any two texts, and of two numbered reads made of them.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", 1)
	f.Add("a\nb", "a\nb\n", 7)
	f.Add("", "x", 1)
	f.Add("x", "", 1)
	f.Add("\r\n\r\n", "\n", 1000000)
	f.Add("     1→a\n     2→b", "     1→a\n     2→c\n     3→d", 3)
	f.Add("é\n\\ No newline at end of file\n", "+\n-\n @@ -1 +1 @@\n", 2)
	f.Fuzz(func(t *testing.T, base, text string, start int) {
		if base == text {
			return
		}
		diff, stripped := unifiedDiff("f", base, text)
		checkRebuild(t, base, text, diff, stripped)
		if start < 0 || start > 1e7 {
			return
		}
		nb, nt := testutil.NumberLines(start, "→", strings.Split(base, "\n")...), testutil.NumberLines(start, "→", strings.Split(text, "\n")...)
		diff, stripped = unifiedDiff("f", nb, nt)
		if !stripped {
			t.Fatalf("numbered reads from %d not stripped:\n%q\n%q", start, nb, nt)
		}
		checkRebuild(t, nb, nt, diff, stripped)
	})
}
