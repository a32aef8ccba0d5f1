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
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Options are ctx-dedupe's settings.
type Options struct {
	// Keep is the rule that chooses the reads that stay whole; "" is
	// KeepSeed.
	Keep Keep
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
	// Within, when over 0, lets a result point only at a result at most
	// this many results away from it: in a live loop's pipe, at one that
	// a summary made Within+1 results later (ctx-summarize --loop) has not
	// replaced yet. 0: at any.
	Within int
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
	case opts.Within < 0:
		return nil, errors.New("within must be 0 or more")
	case opts.Counter == nil:
		return nil, errors.New("dedupe: no token counter")
	case opts.Keep != "" && opts.Keep != KeepSeed && opts.Keep != KeepLatest && opts.Keep != KeepFirst:
		return nil, fmt.Errorf("keep must be seed, latest or first, not %q", opts.Keep)
	}
	return &Filter{opts: opts}, nil
}

// Kind is how a result was replaced.
type Kind int

// The kinds of replacement.
const (
	Pointer Kind = iota // a re-read identical to a whole read of the same range
	Diff                // a re-read that changed: a diff against a whole read of the same range
	Repeat              // a repeated call with identical output (AllTools)
	Covered             // a read whose lines a whole read of another range shows, the same
)

// Keep is the rule that chooses which reads of a file stay whole.
type Keep string

// The rules.
const (
	// KeepSeed keeps the first and the last read of every range whole, and
	// samples between them (MaxReads); the others point up or are diffs.
	KeepSeed Keep = "seed"
	// KeepLatest keeps the newest read of a file whole: the earlier ones
	// point down at a later read, or are diffs against it (OpenCode's
	// dynamic context pruning).
	KeepLatest Keep = "latest"
	// KeepFirst is the rule for a live loop: the first read of every range
	// stays whole, and every later read that a whole read above shows the
	// same points up at it, or is a diff against the nearest whole read of
	// its range; no read is kept whole for its place (no samples, not the
	// last). What a read becomes is decided by the reads above it alone, on
	// arrival, so the next request never changes it again and the prompt
	// cache holds (docs/dedupe.md). KeepRecent, a window that slides, is
	// not loop-safe and should stay 0 with it.
	KeepFirst Keep = "first"
)

// Change is one result to replace.
type Change struct {
	Result *transcript.Result
	Kind   Kind
	Base   *transcript.Result // the whole result it points at: above it, or below with KeepLatest
	Text   string             // what replaces its text: the marker line, and a diff after it
	// Mirrors is what replaces each copy of the output beside the result
	// (transcript.Mirror): the marker line alone, citing the copy's own
	// handle (Handles.Mirror) in Handles; "" leaves a copy (KeepMirrors,
	// or with an archive a copy whose text has no handle).
	Mirrors, Handles []string
}

// Plan is what Apply does to a transcript, found without changing it:
// ctx-count shows what ctx-dedupe can save from the same plan.
type Plan struct {
	Reads   int      // reads of a file that did not fail
	Files   int      // the files they read
	Changes []Change // in transcript order
	// Shared is how many more results would be replaced but for call ids
	// that several calls share (a transcript whose agent numbers its calls
	// anew each turn): a marker says "call ID", and could not say which of
	// them it means. SharedID is one such id.
	Shared   int
	SharedID string
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
	// anyID lets a result whose id several calls share be replaced and
	// pointed at: the plan that tells what shared ids cost (Plan.Shared).
	anyID  bool
	counts map[string]int // tokens by text
	plan   Plan
}

// Report is what Apply did, and what it left whole because call ids are
// shared (Plan.Shared).
type Report struct {
	stats.Report
	Shared   int
	SharedID string
}

// Apply replaces the repeated reads of t (and with AllTools its repeated
// calls), changing t in place, and reports what it did.
func (f *Filter) Apply(t *transcript.Transcript) Report {
	p := f.Plan(t)
	run := stats.Start(t)
	for _, c := range p.Changes {
		run.SetText(c.Result, c.Text)
		for i, m := range c.Mirrors {
			if m != "" {
				run.SetMirror(c.Result, i, m, c.Handles[i])
			}
		}
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.opts.Counter
	}
	return Report{Report: run.Report(ctr, p.detail()), Shared: p.Shared, SharedID: p.SharedID}
}

// detail is the plan in words, for the stats line: "7 reads of 2 files: 1
// pointer, 3 diffs".
func (r Plan) detail() string {
	s := textfmt.Plural(r.Reads, "read", "reads") + " of " + textfmt.Plural(r.Files, "file", "files")
	var kinds []string
	for _, k := range []struct {
		kind      Kind
		one, many string
	}{{Pointer, "pointer", "pointers"}, {Covered, "covered read", "covered reads"}, {Diff, "diff", "diffs"}, {Repeat, "repeated call", "repeated calls"}} {
		if n := r.Count(k.kind); n > 0 {
			kinds = append(kinds, textfmt.Plural(n, k.one, k.many))
		}
	}
	if len(kinds) > 0 {
		s += ": " + strings.Join(kinds, ", ")
	}
	if r.Shared > 0 {
		s += "; " + textfmt.Int(r.Shared) + " left whole: their calls share ids"
	}
	return s
}

// Plan finds the results Apply replaces, and what replaces them, without
// changing t.
func (f *Filter) Plan(t *transcript.Transcript) Plan {
	ids := map[string]int{}
	shared := ""
	for _, c := range t.Calls {
		if ids[c.ID]++; ids[c.ID] == 2 && shared == "" {
			shared = c.ID
		}
	}
	p := f.plan(t, ids, false)
	if shared != "" {
		// What the shared ids cost: the plan as if a marker could name
		// every call.
		if n := len(f.plan(t, ids, true).Changes) - len(p.Changes); n > 0 {
			p.Shared, p.SharedID = n, shared
		}
	}
	return p
}

// plan is Plan, the ids counted, with or without replacing the results of
// calls whose id is shared (anyID).
func (f *Filter) plan(t *transcript.Transcript, ids map[string]int, anyID bool) Plan {
	a := &apply{Filter: f, t: t, keep: marker.Referenced(t), recent: len(t.Results) - f.opts.KeepRecent, ids: ids, anyID: anyID, counts: map[string]int{}}
	a.reads()
	if f.opts.AllTools {
		a.calls()
	}
	slices.SortFunc(a.plan.Changes, func(x, y Change) int { return x.Result.Index - y.Result.Index })
	return a.plan
}

// fileRead is one read of a file, as the walk over the file's reads sees it.
type fileRead struct {
	r     *transcript.Result
	rng   tools.Range
	whole bool // the count rule keeps it whole (KeepSeed)
	// lines and first are the file's lines the read shows and the number
	// of the first (0: unknown, a tail), read from its output when first
	// needed (shown).
	lines  []string
	first  int
	parsed bool
}

// shown returns the lines of the file the read shows, and the number of the
// first: from the line numbers the output carries (a numbered read,
// SWE-agent's viewer), else from where the call's range starts.
func (x *fileRead) shown() ([]string, int) {
	if !x.parsed {
		x.parsed = true
		x.lines, x.first = outcome.FileLines(x.r.Text(), x.rng.Start, x.rng.Last != 0)
	}
	return x.lines, x.first
}

// reads replaces the re-reads of every file.
func (a *apply) reads() {
	byFile := map[string][]*fileRead{}
	var order []string
	for _, r := range a.t.Results {
		c := r.Call
		if c == nil || c.Kind != tools.Read || c.Continues != nil || !r.OK() {
			continue // a continuation is more output of a read, not a read
		}
		file := c.Args.File(a.t.Cwd)
		if file == "" {
			continue
		}
		if byFile[file] == nil {
			order = append(order, file)
		}
		byFile[file] = append(byFile[file], &fileRead{r: r, rng: c.Args.Range})
		a.plan.Reads++
	}
	a.plan.Files = len(order)
	for _, file := range order {
		if rs := byFile[file]; len(rs) > 1 {
			a.rereads(file, rs)
		}
	}
}

// rereads walks the reads of one file: in transcript order with the seed
// and first rules, from the last with KeepLatest. A read that may be
// replaced becomes a pointer when a whole read met before it in the walk
// (above it, or below it with KeepLatest) has the same range and text;
// else a pointer to the lines of a whole read that shows all of its lines,
// the same; else, when the rule allows, a diff against the nearest whole
// read of its range. Otherwise it stays whole, and the reads met after it
// can point at it.
func (a *apply) rereads(file string, rs []*fileRead) {
	latest := a.opts.Keep == KeepLatest
	switch {
	case latest:
		rs = slices.Clone(rs)
		slices.Reverse(rs)
	case a.opts.Keep != KeepFirst: // the seed rule's samples
		byRange := map[tools.Range][]*fileRead{}
		for _, x := range rs {
			byRange[x.rng] = append(byRange[x.rng], x)
		}
		for _, group := range byRange {
			for i, w := range wholeByCount(len(group), a.opts.MaxReads) {
				group[i].whole = w
			}
		}
	}
	w := newWalk(file)
	for _, x := range rs {
		a.visit(w, x, latest, nil)
	}
}

// walk is what a walk over the reads of one file has met so far.
type walk struct {
	file    string
	kept    []*fileRead                          // the whole reads met so far, nearest last
	byText  map[tools.Range]map[string]*fileRead // the nearest whole read of a range with a text
	nearest map[tools.Range]*fileRead            // the nearest whole read of a range
}

func newWalk(file string) *walk {
	return &walk{file: file, byText: map[tools.Range]map[string]*fileRead{}, nearest: map[tools.Range]*fileRead{}}
}

// visit plans to replace read x by the rules of rereads, or keeps it whole
// and remembers it for the reads met after it; it reports whether x is
// replaced. usable says whether a whole read met before may still be
// pointed at (nil: every one).
func (a *apply) visit(w *walk, x *fileRead, latest bool, usable func(*fileRead) bool) bool {
	if a.skip(x.r) {
		return false
	}
	text := x.r.Text()
	if a.opts.Within > 0 {
		outer := usable
		usable = func(b *fileRead) bool { return a.near(x.r, b.r) && (outer == nil || outer(b)) }
	}
	if a.mayReplace(x.r) && a.reread(w.file, x, text, w.kept, w.byText[x.rng][text], w.nearest[x.rng], latest, usable) {
		return true
	}
	w.kept = append(w.kept, x)
	if w.byText[x.rng] == nil {
		w.byText[x.rng] = map[string]*fileRead{}
	}
	w.byText[x.rng][text] = x
	w.nearest[x.rng] = x
	return false
}

// reread plans to replace one read, by the rules of rereads: same is the
// nearest whole read of its range with the same text, last the nearest of
// its range; kept are every whole read met so far, of which only the
// usable ones may be pointed at. It reports whether the read is replaced.
func (a *apply) reread(file string, x *fileRead, text string, kept []*fileRead, same, last *fileRead, latest bool, usable func(*fileRead) bool) bool {
	ok := func(b *fileRead) bool { return b != nil && (usable == nil || usable(b)) }
	if ok(same) && a.replace(x.r, Pointer, same.r, pointerLine(file, x.rng, text, same.r.CallID, latest), "") {
		return true
	}
	for i := len(kept) - 1; i >= 0; i-- {
		b := kept[i]
		if !b.rng.Contains(x.rng) && !(x.rng.Last > 0 && b.rng.End == 0) || !ok(b) {
			continue // its range cannot hold the lines (spare decoding it), or it is gone
		}
		if first, ok := covers(b, x); ok {
			if a.replace(x.r, Covered, b.r, coveredLine(file, x.rng, text, b.r.CallID, first, len(x.lines), latest), "") {
				return true
			}
			break
		}
	}
	if x.whole || !ok(last) || a.opts.NoDiff {
		return false
	}
	diff, stripped := unifiedDiff(marker.Text(file, 160), last.r.Text(), text)
	return a.replace(x.r, Diff, last.r, diffLine(file, x.rng, text, last.r.CallID, stripped, latest), diff)
}

// covers reports whether read b shows every line read x shows, the same,
// and the number of x's first line in the file (0 when neither read says
// where it is: a tail of a file whose read does not number its lines).
// Reads that start at a known line are lined up by it; two reads that both
// reach the end of the file, by their ends.
func covers(b, x *fileRead) (int, bool) {
	lb, fb := b.shown()
	lx, fx := x.shown()
	if len(lx) == 0 || len(lx) > len(lb) {
		return 0, false
	}
	var off int
	switch {
	case fb > 0 && fx > 0:
		off = fx - fb
	case x.rng.End == 0 && b.rng.End == 0:
		off = len(lb) - len(lx)
		if fb > 0 {
			fx = fb + off
		}
	default:
		return 0, false
	}
	if off < 0 || off+len(lx) > len(lb) || !slices.Equal(lb[off:off+len(lx)], lx) {
		return 0, false
	}
	return fx, true
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
// tool other than reads, edits and writes, the same arguments. The first
// stays whole and the others point up at it, or with KeepLatest the last,
// and the others point down.
func (a *apply) calls() {
	groups := map[callKey][]*transcript.Result{}
	var order []callKey
	for _, r := range a.t.Results {
		c := r.Call
		if c == nil || !r.OK() {
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
		latest := a.opts.Keep == KeepLatest
		if latest {
			rs = slices.Clone(rs)
			slices.Reverse(rs)
		}
		byText := map[string]*transcript.Result{}
		for _, r := range rs {
			if a.skip(r) {
				continue
			}
			text := r.Text()
			if base := byText[text]; base != nil && a.near(r, base) && a.mayReplace(r) {
				if a.replace(r, Repeat, base, repeatLine(r.Call.Name, what(r.Call, a.t.Cwd), text, base.CallID, latest), "") {
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
	return len(r.Images) > 0 || a.ids[r.CallID] != 1 && !a.anyID || !nameable(r.CallID) ||
		marker.OnResult(r)
}

// nameable reports whether a marker can point at the call id: whether
// marker.Refs reads "call ID" back as that id.
func nameable(id string) bool {
	refs := marker.Refs(marker.Line(tool, "call "+id))
	return len(refs) == 1 && refs[0] == id
}

// near reports whether r may point at base by Within.
func (a *apply) near(r, base *transcript.Result) bool {
	d := r.Index - base.Index
	return a.opts.Within == 0 || -a.opts.Within <= d && d <= a.opts.Within
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
	text := marker.Cite(line, a.opts.Handle.Of(a.t, r))
	if body != "" {
		text += "\n" + body
	}
	if !a.shorter(text, r.Text()) {
		return false
	}
	c := Change{Result: r, Kind: kind, Base: base, Text: text}
	if n := r.NumMirrors(); n > 0 && !a.opts.KeepMirrors {
		c.Mirrors, c.Handles = make([]string, n), make([]string, n)
		for i, m := range r.Mirrors() {
			h := a.opts.Handle.Mirror(a.t, r, m)
			if h != "" || a.opts.Handle == nil {
				c.Mirrors[i], c.Handles[i] = marker.Cite(line, h), h
			}
		}
	}
	a.plan.Changes = append(a.plan.Changes, c)
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
