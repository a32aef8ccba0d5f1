// Package dedupe replaces repeated reads of a file with pointers to an
// earlier read, or with a diff against it when the file changed in between,
// as ctx-dedupe does (docs/dedupe.md). A result is replaced only when what it
// said is still in the transcript, whole, above it: a pointer names a call
// whose result is identical to the one it replaces, a diff applied to the
// result it names gives the replaced text back. The first and the last read
// of every file and range stay whole, and so do failed reads.
package dedupe

import (
	"errors"
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Options are ctx-dedupe's settings.
type Options struct {
	// MaxReads is how many reads of one file and range the count rule keeps
	// whole: the first, the last, and MaxReads-2 evenly spaced in between
	// when there are more than MaxReads. At least 2.
	MaxReads int
	// NoDiff keeps changed re-reads whole instead of replacing them with a
	// diff.
	NoDiff bool
	// AllTools also replaces a call of any tool but reads, edits and writes
	// whose name, arguments and output equal an earlier call's.
	AllTools bool
	// KeepRecent is how many of the last tool results are never replaced.
	KeepRecent int
	// KeepMirrors leaves the copies of a replaced result's output that the
	// format keeps beside it (Claude Code's toolUseResult) as they are;
	// otherwise they get the marker line.
	KeepMirrors bool
	// Counter decides close calls: a replacement must have fewer tokens
	// than what it replaces.
	Counter tokens.Counter
	// Measure fills the token counts of the stats.Report (the whole
	// transcript's, before and after), for --stats.
	Measure bool
	// Handle gives the archive's handle of a result about to be replaced,
	// which its marker cites; nil when there is no archive.
	Handle marker.Handles
}

// DefaultMaxReads is --max-reads' default.
const DefaultMaxReads = 5

// Defaults are ctx-dedupe's defaults, counting with ctr.
func Defaults(ctr tokens.Counter) Options {
	return Options{MaxReads: DefaultMaxReads, Counter: ctr}
}

// Filter is a validated set of options.
type Filter struct{ opts Options }

// New checks the options once.
func New(opts Options) (*Filter, error) {
	switch {
	case opts.MaxReads < 2:
		return nil, errors.New("max-reads must be 2 or more: the first and the last read of a file always stay whole")
	case opts.KeepRecent < 0:
		return nil, errors.New("keep-recent must be 0 or more")
	case opts.Counter == nil:
		return nil, errors.New("dedupe: no token counter")
	}
	return &Filter{opts: opts}, nil
}

// Kind is how a result was replaced.
type Kind int

// The kinds of replacement.
const (
	Pointer Kind = iota // a re-read identical to an earlier read
	Diff                // a re-read that changed: a diff against an earlier read
	Repeat              // a repeated call with identical output (AllTools)
)

// Change is one result to replace.
type Change struct {
	Result *transcript.Result
	Kind   Kind
	Base   *transcript.Result // the whole result above that it points at
	Text   string             // what replaces its text: the marker line, and a diff after it
	Line   string             // the marker line alone, which replaces its mirrors
}

// Plan is what Apply does to a transcript, found without changing it:
// ctx-count shows what ctx-dedupe can save from the same plan.
type Plan struct {
	Reads   int      // reads of a file that did not fail
	Files   int      // the files they read
	Changes []Change // in transcript order
}

// Count is the number of changes of a kind.
func (r Plan) Count(k Kind) int {
	n := 0
	for _, c := range r.Changes {
		if c.Kind == k {
			n++
		}
	}
	return n
}

// apply is one run over one transcript.
type apply struct {
	*Filter
	t      *transcript.Transcript
	keep   map[string]bool // results that other markers point at: never replaced
	recent int             // results from this index on are never replaced
	ids    map[string]int  // how many calls have each id
	counts map[string]int  // tokens by text
	plan   Plan
}

// Apply replaces the repeated reads of t (and with AllTools its repeated
// calls), changing t in place, and reports what it did.
func (f *Filter) Apply(t *transcript.Transcript) stats.Report {
	p := f.Plan(t)
	run := stats.Start(t)
	for _, c := range p.Changes {
		run.SetText(c.Result, c.Text)
		if !f.opts.KeepMirrors {
			for i := range c.Result.NumMirrors() {
				t.SetMirror(c.Result, i, c.Line)
			}
		}
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.opts.Counter
	}
	return run.Report(ctr, p.detail())
}

// detail is the plan in words, for the stats line: "7 reads of 2 files: 1
// pointer, 3 diffs".
func (r Plan) detail() string {
	s := textfmt.Plural(r.Reads, "read", "reads") + " of " + textfmt.Plural(r.Files, "file", "files")
	var kinds []string
	for _, k := range []struct {
		kind      Kind
		one, many string
	}{{Pointer, "pointer", "pointers"}, {Diff, "diff", "diffs"}, {Repeat, "repeated call", "repeated calls"}} {
		if n := r.Count(k.kind); n > 0 {
			kinds = append(kinds, textfmt.Plural(n, k.one, k.many))
		}
	}
	if len(kinds) > 0 {
		s += ": " + strings.Join(kinds, ", ")
	}
	return s
}

// Plan finds the results Apply replaces, and what replaces them, without
// changing t.
func (f *Filter) Plan(t *transcript.Transcript) Plan {
	a := &apply{Filter: f, t: t, keep: marker.Referenced(t), recent: len(t.Results) - f.opts.KeepRecent, ids: map[string]int{}, counts: map[string]int{}}
	for _, c := range t.Calls {
		a.ids[c.ID]++
	}
	a.reads()
	if f.opts.AllTools {
		a.calls()
	}
	slices.SortFunc(a.plan.Changes, func(x, y Change) int { return x.Result.Index - y.Result.Index })
	return a.plan
}

// readKey is what makes two reads the same read: the file and the lines.
type readKey struct {
	file string
	rng  tools.Range
}

// reads replaces the re-reads of every file and range.
func (a *apply) reads() {
	groups := map[readKey][]*transcript.Result{}
	var order []readKey
	files := map[string]bool{}
	for _, r := range a.t.Results {
		c := r.Call
		if c == nil || c.Kind != tools.Read || c.Continues != nil || r.Failed() {
			continue // a continuation is more output of a read, not a read
		}
		k := readKey{file: c.Args.File(a.t.Cwd), rng: c.Args.Range}
		if k.file == "" {
			continue
		}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
		files[k.file] = true
		a.plan.Reads++
	}
	a.plan.Files = len(files)
	for _, k := range order {
		if rs := groups[k]; len(rs) > 2 {
			a.rereads(k, rs)
		}
	}
}

// rereads walks the reads of one file and range in order. The count rule
// says which may be replaced; one that may is replaced by a pointer when a
// whole read above is identical, else by a diff against the last whole read
// above, when that is shorter; else it stays whole, and later reads can
// point at it.
func (a *apply) rereads(k readKey, rs []*transcript.Result) {
	whole := wholeByCount(len(rs), a.opts.MaxReads)
	byText := map[string]*transcript.Result{} // the last whole read with this text
	var last *transcript.Result               // the last whole read
	for i, r := range rs {
		if a.skip(r) {
			continue
		}
		text := r.Text()
		if !whole[i] && a.mayReplace(r) {
			if base := byText[text]; base != nil {
				if a.replace(r, Pointer, base, pointerLine(k.file, k.rng, text, base.CallID), "") {
					continue
				}
			} else if last != nil && !a.opts.NoDiff {
				diff, stripped := unifiedDiff(oneLine(k.file, 160), last.Text(), text)
				if a.replace(r, Diff, last, diffLine(k.file, k.rng, text, last.CallID, stripped), diff) {
					continue
				}
			}
		}
		byText[text] = r
		last = r
	}
}

// wholeByCount is the count rule: of n reads of one file and range, the
// first and the last stay whole, and when there are more than maxReads,
// maxReads-2 more, evenly spaced in between.
func wholeByCount(n, maxReads int) []bool {
	whole := make([]bool, n)
	whole[0], whole[n-1] = true, true
	if n > maxReads {
		middles, k := n-2, maxReads-2
		for i := 0; i < k; i++ {
			// The middle of the i-th of k equal stretches.
			whole[1+(2*i+1)*middles/(2*k)] = true
		}
	}
	return whole
}

// callKey is what makes two calls the same call: the tool and the
// arguments as written.
type callKey struct{ name, input string }

// calls replaces the results of calls repeated with identical output: a
// tool other than reads, edits and writes, the same arguments.
func (a *apply) calls() {
	groups := map[callKey][]*transcript.Result{}
	var order []callKey
	for _, r := range a.t.Results {
		c := r.Call
		if c == nil || r.Failed() {
			continue
		}
		switch c.Kind {
		case tools.Read, tools.Edit, tools.Write:
			continue
		}
		k := callKey{c.Name, c.Input}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		rs := groups[k]
		if len(rs) < 2 {
			continue
		}
		byText := map[string]*transcript.Result{}
		for _, r := range rs {
			if a.skip(r) {
				continue
			}
			text := r.Text()
			if base := byText[text]; base != nil && a.mayReplace(r) {
				if a.replace(r, Repeat, base, repeatLine(r.Call.Name, what(r.Call, a.t.Cwd), text, base.CallID), "") {
					continue
				}
			}
			byText[text] = r
		}
	}
}

// what names a repeated call for its marker: the command, the pattern, or
// else what the call is about.
func what(c *transcript.Call, cwd string) string {
	switch {
	case c.Args.Command != "":
		return c.Args.Command
	case c.Args.Pattern != "":
		return c.Args.Pattern
	}
	return c.Args.Target(cwd)
}

// skip reports whether a result is neither replaced nor pointed at: one that
// a filter already replaced (a marker); one with images, which a text
// comparison does not see; one whose call a marker could not name without
// doubt (an id that several calls share, or that "call ID" cannot spell).
func (a *apply) skip(r *transcript.Result) bool {
	return len(r.Images) > 0 || a.ids[r.CallID] != 1 || !nameable(r.CallID) ||
		r.HasPrefix("[ctx-") && marker.Is(r.Text(), "")
}

// nameable reports whether a marker can point at the call id: whether
// marker.Refs reads "call ID" back as that id.
func nameable(id string) bool {
	refs := marker.Refs(marker.Line(tool, "call "+id))
	return len(refs) == 1 && refs[0] == id
}

// mayReplace reports whether a result may be replaced at all: not one of the
// last KeepRecent results, not one that a marker points at.
func (a *apply) mayReplace(r *transcript.Result) bool {
	return r.Index < a.recent && !a.keep[r.CallID]
}

// replace plans to replace r with the marker line, citing r's handle in
// the archive, and body when that is shorter than its text, and reports
// whether it does.
func (a *apply) replace(r *transcript.Result, kind Kind, base *transcript.Result, line, body string) bool {
	line = marker.Cite(line, a.opts.Handle.Of(a.t, r))
	text := line
	if body != "" {
		text += "\n" + body
	}
	if !a.shorter(text, r.Text()) {
		return false
	}
	a.plan.Changes = append(a.plan.Changes, Change{Result: r, Kind: kind, Base: base, Text: text, Line: line})
	return true
}

// shorter reports whether text is shorter than old: fewer bytes and fewer
// tokens. A count is left out when sizes alone prove it: no token is shorter
// than a byte, nor longer than maxTokenBytes.
func (a *apply) shorter(text, old string) bool {
	switch {
	case len(text) >= len(old):
		return false
	case len(text)*maxTokenBytes < len(old):
		return true
	}
	n := a.count(text)
	return n*maxTokenBytes < len(old) || n < a.count(old)
}

// maxTokenBytes is the length of the longest token of the encodings that
// internal/tokens knows (runs of spaces in o200k_base and cl100k_base; the
// approx counter's are 4 bytes): a text of L bytes has at least
// L/maxTokenBytes tokens.
const maxTokenBytes = 128

// count counts the tokens of a text once: the same texts come back when a
// file is read again and again.
func (a *apply) count(text string) int {
	n, ok := a.counts[text]
	if !ok {
		n = a.opts.Counter.Count(text)
		a.counts[text] = n
	}
	return n
}
