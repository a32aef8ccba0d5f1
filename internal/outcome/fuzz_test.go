package outcome

import (
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// FuzzReadLines: any output gives lines that are in it, in order, and a
// first line number only when the output numbers its lines.
func FuzzReadLines(f *testing.F) {
	f.Add(testutil.NumberLines(5, "→", "a", "b") + "\n\n<system-reminder>x</system-reminder>")
	f.Add("<returncode>0</returncode>\n<output>\nx\ny\n</output>")
	f.Add("Here's the result of running `cat -n` on a:\n     1\tx\n")
	f.Add("plain\ntext\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines, first := ReadLines(text)
		if first < 0 || first > 0 && len(lines) == 0 {
			t.Fatalf("ReadLines(%q) = %q, %d", text, lines, first)
		}
		rest := text
		for _, l := range lines {
			i := strings.Index(rest, l)
			if i < 0 {
				t.Fatalf("ReadLines(%q): line %q is not in the text, in order", text, l)
			}
			rest = rest[i+len(l):]
		}
	})
}

// FuzzPaths: every path found is in the text, once.
func FuzzPaths(f *testing.F) {
	f.Add("src/app.go:12:3: undefined: x\n  File \"/usr/lib/x.py\", line 3")
	f.Add("see https://example.com/a/b.html and ./docs/x.md, CI/CD")
	f.Fuzz(func(t *testing.T, text string) {
		seen := map[string]bool{}
		for _, p := range Paths(text) {
			if !strings.Contains(text, p) || seen[p] || p == "" {
				t.Fatalf("Paths(%q) gave %q", text, p)
			}
			seen[p] = true
		}
	})
}
