package summarize

import (
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

const shellTail = 3 // last lines kept of a command's output

// shell keeps a command's key numbers (test counts), every line that says
// what went wrong (once each, where it last appears) and its last lines.
// The command and how it ended are on the marker line.
func shell(o output) ([]string, string, bool) {
	total := countLines(o.body)
	var errs []piece
	for _, l := range o.errorLines() {
		errs = append(errs, piece{l.N - 1, l.Text})
	}
	last := tail(o.body, shellTail, total)
	kept := merge(errs, last)
	shown := "the last " + textfmt.Plural(len(last), "line", "lines") + " shown"
	if n := len(kept) - len(last); n > 0 {
		shown = textfmt.Plural(n, "error line", "error lines") + " and " + shown
	}
	tests := outcome.Tests(o.body).String()
	o.must.facts = append(o.must.facts, tests)
	return []string{tests, size(o.body) + ", " + shown}, excerpt(o.body, total, kept), true
}
