// Package measure says what a run of the filters kept of a transcript: the
// tokens it saved, and what must not be lost: the latest read of every file
// whole, the paths the tool outputs named (those of listings and searches
// in particular), the definitions of the files read, the lines that say
// what went wrong, the failed results. Tests and the numbers in the docs use it
// (docs/summarize.md, "Choosing the defaults"), so that the numbers can be
// made again.
package measure

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/outline"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Kept is what a run kept of one transcript. Each pair counts the things
// in the input and those the output still has.
type Kept struct {
	Tokens     stats.Change // the whole transcript's tokens
	ToolOutput stats.Change // the tool results' tokens
	// LatestReads is the files read; LatestWhole those whose latest read is
	// whole in the output: unchanged, or a pointer to the same text.
	LatestReads, LatestWhole int
	// Paths is the paths the outputs other than reads named
	// (outcome.Paths), one count per output and path; PathsKept those its
	// text in the output still names.
	Paths, PathsKept int
	// ErrorLines is the distinct lines that say what went wrong
	// (outcome.ErrorLines) of the outputs whose summaries keep them
	// (summarize.KeepsErrorLines); ErrorLinesKept those still in their
	// output.
	ErrorLines, ErrorLinesKept int
	// Failed is the failed results; FailedWhole those unchanged.
	Failed, FailedWhole int
	// Listed is the paths the listings and searches showed
	// (summarize.ShownPaths), one count per output and path; ListedInView
	// those its text in the output still names (whole, or its summary names
	// it in its directory's group).
	Listed, ListedInView int
	// Defs is the definitions the reads showed (outline.Find); DefsNamed
	// those whose name is somewhere in the history, DefsShown those that
	// the read's text in the output still names.
	Defs, DefsNamed, DefsShown int
}

// Add adds another transcript's counts.
func (k *Kept) Add(o Kept) {
	k.Tokens.Before += o.Tokens.Before
	k.Tokens.After += o.Tokens.After
	k.ToolOutput.Before += o.ToolOutput.Before
	k.ToolOutput.After += o.ToolOutput.After
	k.LatestReads += o.LatestReads
	k.LatestWhole += o.LatestWhole
	k.Paths += o.Paths
	k.PathsKept += o.PathsKept
	k.ErrorLines += o.ErrorLines
	k.ErrorLinesKept += o.ErrorLinesKept
	k.Failed += o.Failed
	k.FailedWhole += o.FailedWhole
	k.Listed += o.Listed
	k.ListedInView += o.ListedInView
	k.Defs += o.Defs
	k.DefsNamed += o.DefsNamed
	k.DefsShown += o.DefsShown
}

// Compare measures what after, the output of filters run on before, kept
// of it. The two must hold the same results in the same order.
func Compare(before, after *transcript.Transcript, ctr tokens.Counter) Kept {
	var k Kept
	tb, ta := stats.Count(before, ctr), stats.Count(after, ctr)
	k.Tokens = stats.Change{Before: tb.Tokens(), After: ta.Tokens()}
	k.ToolOutput = stats.Change{Before: tb.ToolOutput(), After: ta.ToolOutput()}

	byID := map[string]*transcript.Result{}
	for _, r := range after.Results {
		byID[r.CallID] = r
	}
	// seen is the text the output shows for a result: its own, and the
	// text of the result its marker points at.
	seen := func(r *transcript.Result) string {
		text := r.Text()
		for _, id := range marker.Refs(text) {
			if b := byID[id]; b != nil {
				text += "\n" + b.Text()
			}
		}
		return text
	}

	history := historyText(after)
	latest := map[string]int{}
	for i, r := range before.Results {
		c := r.Call
		if r.Failed() {
			k.Failed++
			if after.Results[i].Text() == r.Text() {
				k.FailedWhole++
			}
		}
		if c == nil {
			continue
		}
		switch c.Kind {
		case tools.Read:
			if f := c.Args.File(before.Cwd); f != "" && c.Continues == nil && r.OK() {
				latest[f] = i
				k.definitions(c, r.Text(), seen(after.Results[i]), before.Cwd, history)
			}
			continue
		case tools.Edit, tools.Write:
			continue
		case tools.List, tools.Search:
			if r.OK() {
				k.listed(c, r.Text(), seen(after.Results[i]), before.Cwd)
			}
		}
		text := r.Text()
		out := ""
		for _, p := range outcome.Paths(text) {
			if out == "" {
				out = seen(after.Results[i])
			}
			k.Paths++
			if strings.Contains(out, base(p)) {
				k.PathsKept++
			}
		}
		for _, l := range outcome.ErrorLines(outcome.Body(text)) {
			if !summarize.KeepsErrorLines(c.Kind) {
				break
			}
			if out == "" {
				out = seen(after.Results[i])
			}
			k.ErrorLines++
			if strings.Contains(out, clip(l.Text)) {
				k.ErrorLinesKept++
			}
		}
	}
	for _, i := range latest {
		k.LatestReads++
		if whole(before.Results[i], after.Results[i]) {
			k.LatestWhole++
		}
	}
	return k
}

// historyText is every text of a transcript that the model is sent:
// messages, tool inputs and results.
func historyText(t *transcript.Transcript) string {
	var b strings.Builder
	for _, m := range t.Messages {
		for _, bl := range m.Blocks {
			b.WriteString(bl.Text + "\n")
		}
	}
	for _, c := range t.Calls {
		b.WriteString(c.Input + "\n")
	}
	for _, r := range t.Results {
		b.WriteString(r.Text() + "\n")
	}
	return b.String()
}

// listed counts the paths a listing or a search showed, and those its
// text now (out) still names (summarize.Covered).
func (k *Kept) listed(c *transcript.Call, text, out, cwd string) {
	paths := summarize.ShownPaths(c, text, cwd)
	covered := summarize.Covered(out)
	for _, p := range paths {
		k.Listed++
		if named, _ := covered(p); strings.HasPrefix(out, text) || strings.Contains(out, p) || named {
			k.ListedInView++
		}
	}
}

// definitions counts the definitions a read showed (outline.Find), those
// whose name is somewhere in the history, and those the read's text in
// the output (out) still names.
func (k *Kept) definitions(c *transcript.Call, text, out, cwd, history string) {
	lines, first := outcome.FileLines(text, c.Args.Range.Start, c.Args.Range.Last != 0)
	if len(lines) == 0 {
		return
	}
	for _, d := range outline.Find(outline.Lang(c.Args.File(cwd), lines[0]), lines, max(first, 1)) {
		k.Defs++
		if strings.Contains(history, d.Name) {
			k.DefsNamed++
		}
		if strings.Contains(out, d.Name) {
			k.DefsShown++
		}
	}
}

// whole reports whether a read is whole in the output: its text unchanged,
// or a ctx-dedupe pointer to a result with the same text or lines.
func whole(before, after *transcript.Result) bool {
	text := after.Text()
	if text == before.Text() {
		return true
	}
	_, line, _ := marker.Parse(text)
	return marker.Is(text, "dedupe") && (strings.Contains(line, ": identical to the result of call ") || strings.Contains(line, ": the same text as "))
}

// clip is how much of a line a check looks for: summaries cut long lines.
func clip(line string) string {
	line = strings.TrimSpace(line)
	if len(line) > 120 {
		line = line[:120]
	}
	return line
}

// base is the last part of a path, which a summary that names paths
// relative to a common directory still shows.
func base(p string) string {
	return p[strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/')+1:]
}
