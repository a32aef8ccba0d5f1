package summarize

import (
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

const (
	shellTail   = 3 // last lines kept of a command's output
	shellErrors = 5 // error lines kept, the last ones
)

// shell keeps a command's key numbers (test counts), its last error lines
// and its last lines. The command and how it ended are on the marker line.
func shell(o output) ([]string, string, bool) {
	total := countLines(o.body)
	errs := errorLines(o.body, shellErrors)
	last := tail(o.body, shellTail, total)
	kept := merge(errs, last)
	shown := "the last " + textfmt.Plural(len(last), "line", "lines") + " shown"
	if n := len(kept) - len(last); n > 0 {
		shown = textfmt.Plural(n, "error line", "error lines") + " and " + shown
	}
	tests := outcome.Tests(o.body).String()
	o.must.facts = append(o.must.facts, tests)
	for _, e := range errs {
		o.must.errors = append(o.must.errors, e.text)
	}
	return []string{tests, size(o.body) + ", " + shown}, excerpt(o.body, total, kept), true
}

// errorLines returns the last n distinct lines that say what went wrong, as
// internal/outcome finds them: a message repeated for every failed test is
// kept once, where it last appears.
func errorLines(body string, n int) []piece {
	var out []piece
	for l := range outcome.Lines(body) {
		if !l.Kind.IsError() {
			continue
		}
		for j, p := range out {
			if p.text == l.Text {
				out = append(out[:j], out[j+1:]...)
				break
			}
		}
		if len(out) == n {
			out = out[1:]
		}
		out = append(out, piece{l.N - 1, l.Text})
	}
	return out
}
