package summarize

import (
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// Summarizer makes the text that replaces an old tool result. Apply decides
// which results are old enough and checks that a summary is shorter; a
// Summarizer only writes summaries, so that another kind of summary (one a
// model writes) plugs in beside the built-in ones.
type Summarizer interface {
	// Summarize returns what replaces text, the output of call c (c.Result
	// tells how the call ended), and false when it has nothing to offer: the
	// output is short enough to keep whole, or of a kind it leaves alone.
	// A summary starts with a [ctx-summarize] marker line.
	Summarize(c *transcript.Call, text string) (string, bool)
}

// Rules is the summarizer of --mode summary: a summary made for each kind of
// tool, keeping what a summary must never lose (paths, error lines, success
// or failure, exit codes, counts).
type Rules struct {
	Cwd string // the session's working directory: paths under it are shown relative to it
	// Handle gives the archive's handle of a result, which its summary
	// cites; nil when there is no archive.
	Handle func(*transcript.Result) string
}

// kindSummary summarizes one kind of output: the facts of the marker line
// and the detail that follows it (kept lines, each on its own line). ok is
// false when it has nothing better than the output itself.
type kindSummary func(o output) (facts []string, detail string, ok bool)

// Summarize implements Summarizer.
func (s Rules) Summarize(c *transcript.Call, text string) (string, bool) {
	sum, _, ok := s.summarize(c, text)
	return sum, ok
}

// summarize is Summarize, and also returns the output it read, with what
// any summary of it must keep.
func (s Rules) summarize(c *transcript.Call, text string) (string, output, bool) {
	o := newOutput(c, text, s.Cwd, handleOf(s.Handle, c))
	whole := shortLines
	if c.Kind == tools.Read {
		whole = readWhole
	}
	if countLines(o.body) <= whole && len(o.body) <= whole*shortLine {
		return "", o, false // short enough to keep whole
	}
	if _, _, grouped := truncate.Grouped(o.body); grouped {
		// ctx-truncate kept a listing's paths or a search's files grouped,
		// as a summary would: summarized again, they would be read as paths.
		return "", o, false
	}
	f := pick(c, o.body)
	if f == nil {
		return "", o, false
	}
	if KeepsErrorLines(c.Kind) {
		o.keepErrors()
	}
	facts, detail, ok := f(o)
	if !ok {
		return "", o, false
	}
	switch c.Kind {
	case tools.Read, tools.List, tools.Search, tools.Git:
	default:
		// A kind that names no paths of its own: the paths the output names,
		// up to a bound, then how many more.
		o.must.paths, o.must.generic = outcome.Paths(o.body), true
		if n := len(o.must.paths); n > maxPaths {
			o.must.paths, o.must.morePaths = o.must.paths[:maxPaths], n-maxPaths
		}
	}
	return o.kept(o.line(append([]string{o.status()}, facts...), detail), o.must.generic), o, true
}

// KeepsErrorLines reports whether the summary of an output of this kind
// keeps every line that says what went wrong (outcome.ErrorLines): the
// output of a command or a tool that ran, not the content of files that a
// read, a search, a listing or git (a diff, a log) printed, where an
// "Error:" is text.
func KeepsErrorLines(k tools.Kind) bool {
	switch k {
	case tools.Read, tools.Search, tools.List, tools.Git, tools.Edit, tools.Write:
		return false
	}
	return true
}

// pick chooses the summary for a call by its kind (for shell tools, the kind
// of its command) and, where the kind covers several shapes, by the output.
func pick(c *transcript.Call, body string) kindSummary {
	switch c.Kind {
	case tools.Edit, tools.Write:
		return nil // edits and writes are never summarized
	case tools.Read:
		return read
	case tools.List:
		if isTree(c, body) {
			return tree
		}
		return list
	case tools.Search:
		return search
	case tools.Git:
		if gitSubcommand(c, body) == "status" {
			return gitStatus
		}
		return gitHistory
	case tools.Web:
		return web
	case tools.Shell:
		if strings.HasPrefix(body, "diff --git ") || strings.Contains(body, "\ndiff --git ") {
			return gitHistory // a command that printed a patch
		}
		return shell
	}
	if tools.IsCodeMap(c.Name) {
		return codeMap
	}
	return other
}

// Clear is the summarizer of --mode clear: one line that names the tool,
// what the call was about, how it ended and the size removed, as
// Anthropic's context editing clears old tool results; then what the agent
// would read or list again for: the names a read's file defines, the paths
// a listing or a search showed; and the lines of the output that say what
// went wrong, which are never cleared.
type Clear struct {
	Cwd     string
	Handle  func(*transcript.Result) string // as Rules.Handle
	Counter tokens.Counter                  // for the tokens removed
	// Bare leaves out the names and paths: the last step of a budget that
	// the history does not fit otherwise.
	Bare bool
}

// Summarize implements Summarizer.
func (s Clear) Summarize(c *transcript.Call, text string) (string, bool) {
	if c.Kind == tools.Edit || c.Kind == tools.Write || text == "" {
		return "", false
	}
	return s.clear(c, text, s.Counter.Count(text)), true
}

// clear is the clear of text, which has n tokens.
func (s Clear) clear(c *transcript.Call, text string, n int) string {
	o := newOutput(c, text, s.Cwd, handleOf(s.Handle, c))
	if KeepsErrorLines(c.Kind) {
		o.keepErrors()
	}
	removed := "output cleared: " + size(text) + ", " + textfmt.Plural(n, "token", "tokens") + ", not shown here"
	named := ""
	if !s.Bare {
		named = o.named()
	}
	return o.kept(o.line([]string{o.status(), removed}, named), false)
}

// The summaries of each kind.

const (
	// An output of up to shortLines lines (readWhole for a read), of
	// shortLine bytes a line on average, is kept whole: its summary would
	// save little and lose much.
	shortLines = 10
	readWhole  = 20
	shortLine  = 120

	readEnds  = 10 // the first and last lines kept of a read
	otherEnds = 5  // the first and last lines kept of any other output
	webHead   = 5  // the first lines kept of a page or search results
)

// web keeps the URL or query (in the marker line) and the first lines.
func web(o output) ([]string, string, bool) {
	total := countLines(o.body)
	return []string{size(o.body) + ", the first " + textfmt.Plural(min(webHead, total), "line", "lines") + " shown"},
		excerpt(o.body, total, head(o.body, webHead)), true
}

// other keeps the first and last lines of any other tool's output.
func other(o output) ([]string, string, bool) {
	total := countLines(o.body)
	return []string{size(o.body) + ", the first and last " + textfmt.Int(otherEnds) + " lines shown"},
		excerpt(o.body, total, head(o.body, otherEnds), tail(o.body, otherEnds, total)), true
}

// excerpt renders kept lines with "[N lines omitted]" between them.
func excerpt(body string, total int, lists ...[]piece) string {
	var b strings.Builder
	writeExcerpt(&b, merge(lists...), total)
	return b.String()
}

// firstChars keeps the first n characters of the output, on the lines
// after the marker line.
func firstChars(body string, n int) string {
	if utf8.RuneCountInString(body) <= n {
		return "\n" + body
	}
	i := textfmt.RuneOffset(body, n)
	return "\n" + body[:i] + "…\n[" + textfmt.Int(utf8.RuneCountInString(body[i:])) + " more chars omitted]"
}
