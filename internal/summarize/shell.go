package summarize

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
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
	return []string{tests, o.printed(), size(o.body) + ", " + shown}, excerpt(o.body, total, kept), true
}

// printed names the files a command printed (cat a.json b.json, find … |
// xargs cat), which its summary, made as a log's, does not show: "the
// files a.json, b.json", "the files `find . -name '*.json'` lists"; "" for
// a command that prints none.
func (o output) printed() string {
	files, lister := tools.Printed(o.call.Args.Command)
	switch {
	case lister != "":
		return "the files " + "`" + oneLine(lister, 100) + "` lists"
	case len(files) == 0:
		return ""
	}
	fact := "the files " + strings.Join(files[:min(len(files), maxPaths)], ", ")
	if more := len(files) - maxPaths; more > 0 {
		fact += ", … (" + textfmt.Int(more) + " more)"
	}
	o.must.facts = append(o.must.facts, fact)
	return fact
}
