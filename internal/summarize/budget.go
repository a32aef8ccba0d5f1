package summarize

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// A run to a budget (Options.Budget) replaces old results until the whole
// history fits, the cheapest loss first, and stops as soon as it fits:
//
//  1. summaries of the old results, oldest first;
//  2. one-line clears of the old results, oldest first (a summary made in
//     step 1 too);
//  3. old edit runs compressed: the text the edits of a file changed is
//     left out of their arguments, and the first one's result lists them
//     all with what each did;
//  4. the latest reads of files, summarized, then cleared, oldest first;
//  5. the clears of steps 2 and 4 without the names and paths they keep
//     (a read's definitions, a listing's paths), oldest first.
//
// Never touched: failed results, the last KeepRecent results, the active
// edit loop (ActiveLoop), results that are markers or that a marker points
// at, results whose call is not in the transcript or excluded; and no
// summary or clear drops a line that says what went wrong
// (KeepsErrorLines).

// Over reports whether a run to a budget could not bring the history within
// it: it was over its trigger and the budget, and is still over the budget.
func (b BudgetReport) Over() bool { return !b.Fits && !b.Waits }

// BudgetReport is what a run to a budget did; its JSON form is part of
// ctx-summarize's --json schema (docs/summarize.md).
type BudgetReport struct {
	Budget int `json:"budget"`
	// Before and After are the whole history's tokens, as ctx-count counts
	// them; After is the smallest the rules reach when it does not fit.
	Before int  `json:"history_before"`
	After  int  `json:"history_after"`
	Fits   bool `json:"fits"`
	// Waits says the history is not over Options.Trigger: nothing is done,
	// fit or not.
	Waits bool `json:"under_trigger,omitempty"`
	// What each step replaced.
	Summaries   int `json:"summaries"`
	Clears      int `json:"clears"`
	EditRuns    int `json:"edit_runs"`
	Edits       int `json:"edits_compressed"`
	LatestReads int `json:"latest_reads"`
	// Where the tokens are when it does not fit: the messages and tool
	// inputs a budget leaves alone, and the results it must keep whole.
	Messages int `json:"messages_and_inputs,omitempty"`
	Kept     int `json:"kept_results,omitempty"`
}

// String says what the run did, for the --stats line.
func (b BudgetReport) String() string {
	s := "budget " + textfmt.Int(b.Budget)
	var did []string
	for _, d := range []struct {
		n         int
		one, many string
	}{{b.Summaries, "summary", "summaries"}, {b.Clears, "clear", "clears"}, {b.LatestReads, "latest read", "latest reads"}} {
		if d.n > 0 {
			did = append(did, textfmt.Plural(d.n, d.one, d.many))
		}
	}
	if b.EditRuns > 0 {
		did = append(did, textfmt.Plural(b.EditRuns, "edit run", "edit runs")+" ("+textfmt.Plural(b.Edits, "edit", "edits")+") compressed")
	}
	switch {
	case b.Waits:
		return s + ": not over --trigger, " + textfmt.Int(b.Before) + " tokens"
	case b.Before <= b.Budget:
		return s + ": fits already, " + textfmt.Int(b.Before) + " tokens"
	case !b.Fits:
		s += ": does not fit, the smallest reachable is " + textfmt.Int(b.After) + " tokens"
	default:
		s += ": fits, " + textfmt.Int(b.After) + " tokens"
	}
	if len(did) > 0 {
		s += "; " + strings.Join(did, ", ")
	}
	return s
}

// Why says why a history does not fit: where its smallest size is.
func (b BudgetReport) Why() string {
	return "the history does not fit in --budget " + textfmt.Int(b.Budget) + " tokens: the smallest the rules reach is " +
		textfmt.Int(b.After) + ": " + textfmt.Int(b.Messages) + " of messages and tool inputs, " +
		textfmt.Int(b.Kept) + " of results kept whole (failed, recent, in the active edit loop, edits, markers, short), " +
		textfmt.Int(b.After-b.Messages-b.Kept) + " of summaries and clears"
}

// Steps of the budget, as a result's entry in the report names them.
const (
	stepSummary = "summary"
	stepClear   = "clear"
	stepEdits   = "edit run"
	stepLatest  = "latest read"
)

// budget is one run to a budget over one transcript.
type budget struct {
	f       *Filter
	t       *transcript.Transcript
	rep     *BudgetReport
	total   int      // the history's tokens now
	texts   []string // every result's text as it came
	now     []string // what each result will be ("" unchanged)
	toks    []int    // every result's text tokens now
	step    []string // what replaced each result
	inputs  map[*transcript.Call]string
	refs    map[string]bool
	recent  int // results from this index on stay whole
	loop    Loop
	skipped []bool                          // never touched
	orig    []int                           // every result's text tokens as it came
	handle  func(*transcript.Result) string // the archive's handles, or nil
	// summary marks the results that a summary replaces (not a clear nor
	// an edit run's list); model holds the summaries a model's answers
	// made (WithAnswers), by result, "" where none.
	summary []bool
	model   []string
}

// batch is how many results are summarized at once: enough to keep every
// core busy, few enough not to summarize far past the point where the
// history fits.
const batch = 256

// runBudget is Run with a budget.
func (f *Filter) runBudget(t *transcript.Transcript) Report {
	run := stats.Start(t)
	b, rep, before := f.ladderOf(t)

	var plans []plan
	for i := range t.Results {
		if b.now[i] != "" {
			plans = append(plans, b.plan(i))
		}
	}
	for _, p := range plans {
		f.replace(run, p)
	}
	for _, c := range t.Calls { // in order, for a deterministic report
		if in, ok := b.inputs[c]; ok {
			run.SetInput(c, in)
		}
	}
	rep.TokensAfter = rep.TokensBefore
	rep.finish(t, plans, before)
	for i := range rep.Changes {
		rep.Changes[i].Step = b.step[plans[i].r.Index]
	}
	b.count(&rep.Kept)
	detail := rep.Budget.String()
	if f.answers != nil {
		rep.Model = f.answers.report(plans)
		rep.setModel(plans, f.answers.Model)
		detail += "; " + rep.Model.String()
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.ctr
	}
	rep.stats = run.Report(ctr, detail)
	return rep
}

// plan is what replaces result i: a model's summary says so, and a result
// the model was asked about that has another says why.
func (b *budget) plan(i int) plan {
	p := plan{r: b.t.Results[i], summary: b.now[i], tokens: b.toks[i]}
	a := b.f.answers
	if a == nil {
		return p
	}
	switch why, failed := a.Failed[i]; {
	case b.model != nil && b.model[i] != "" && b.now[i] == b.model[i]:
		p.model = true
	case failed:
		p.fallback = why
	case b.summary[i] && a.Text[i] != "":
		p.fallback = NotShorter
	}
	return p
}

// ladderOf runs the ladder over t, without changing it: what will replace
// each result (budget.now) and each edit's arguments (budget.inputs), the
// report so far, and every result's tokens before.
func (f *Filter) ladderOf(t *transcript.Transcript) (*budget, Report, []int) {
	rep := Report{Format: string(t.Format), Results: len(t.Results), Budget: &BudgetReport{Budget: f.opts.Budget}}
	b := &budget{f: f, t: t, rep: rep.Budget, inputs: map[*transcript.Call]string{}}
	tl := stats.Count(t, f.ctr)
	b.total = tl.Tokens()
	rep.Budget.Before = b.total
	b.texts = make([]string, len(t.Results))
	parallel.For(len(b.texts), 32, func(i int) { b.texts[i] = t.Results[i].Text() })
	b.now = make([]string, len(t.Results))
	b.step = make([]string, len(t.Results))
	b.toks = make([]int, len(t.Results))
	for i, r := range t.Results {
		b.toks[i] = tl.Results[i] - stats.ImageTokens(r)
		rep.TokensBefore += b.toks[i]
	}
	before := append([]int(nil), b.toks...)
	rep.Budget.Waits = f.opts.Trigger > 0 && b.total <= f.opts.Trigger
	if b.total > f.opts.Budget && !rep.Budget.Waits {
		b.ladder(tl)
	}
	rep.Budget.After = b.total
	rep.Budget.Fits = b.total <= f.opts.Budget
	return b, rep, before
}

// ladder takes the steps until the history fits.
func (b *budget) ladder(tl stats.Tally) {
	t, f := b.t, b.f
	b.refs = marker.Referenced(t)
	b.recent = len(t.Results) - f.opts.KeepRecent
	b.loop = ActiveLoop(t)
	latest := make([]bool, len(t.Results))
	if !f.opts.SummarizeLatestReads {
		latest = t.LatestReads()
	}
	b.skipped = make([]bool, len(t.Results))
	b.summary = make([]bool, len(t.Results))
	var old, reads []int
	var none Kept
	for i, r := range t.Results {
		switch {
		case f.keep(r, i >= b.recent || b.loop.Results[r], false, b.refs, &none):
			b.skipped[i] = true
		case latest[i]:
			reads = append(reads, i)
		default:
			old = append(old, i)
		}
	}
	b.handle = f.handles(t)
	b.orig = append([]int(nil), b.toks...)
	sum, clear := f.summarizer(t.Cwd, b.handle), budgetClear{Clear{Cwd: t.Cwd, Handle: b.handle, Counter: f.ctr}, b.orig}
	if f.answers != nil && f.opts.Mode != ModeClear {
		b.model = make([]string, len(t.Results))
		sum = modelFirst{rules: Rules{Cwd: t.Cwd, Handle: b.handle}, answers: f.answers, ctr: f.ctr, made: b.model}
	}
	bare := clear
	bare.Bare = true
	if b.replaceAll(old, sum, stepSummary, true) || b.replaceAll(old, clear, stepClear, false) || b.editRuns(tl) ||
		b.replaceAll(reads, sum, stepLatest, true) || b.replaceAll(reads, clear, stepLatest, false) ||
		b.replaceAll(old, bare, stepClear, false) || b.replaceAll(reads, bare, stepLatest, false) {
		return
	}
	b.rep.Messages = b.total
	for i, n := range b.toks {
		b.rep.Messages -= n
		if b.skipped[i] || b.now[i] == "" && b.step[i] == "" {
			b.rep.Kept += n
		}
	}
}

// budgetClear is Clear for a budget, which knows every result's tokens as
// it came (by its index): they need no counting again.
type budgetClear struct {
	Clear
	toks []int
}

// Summarize implements Summarizer.
func (s budgetClear) Summarize(c *transcript.Call, text string) (string, bool) {
	if c.Kind == tools.Edit || c.Kind == tools.Write || text == "" || c.Result == nil {
		return "", false
	}
	return s.clear(c, text, s.toks[c.Result.Index]), true
}

// replaceAll makes what s makes of the results at idx, oldest first, and
// puts it in place of a result where it has fewer tokens than the result
// has now, until the history fits; it reports whether it does. summary
// says whether s makes summaries.
func (b *budget) replaceAll(idx []int, s Summarizer, step string, summary bool) bool {
	for lo := 0; lo < len(idx); lo += batch {
		part := idx[lo:min(lo+batch, len(idx))]
		made := make([]string, len(part))
		parallel.For(len(part), 8, func(k int) {
			r := b.t.Results[part[k]]
			if m, ok := s.Summarize(r.Call, b.texts[r.Index]); ok && m != b.now[r.Index] {
				made[k] = m
			}
		})
		n := tokens.CountAll(b.f.ctr, made)
		for k, i := range part {
			if made[k] == "" || n[k] >= b.toks[i] {
				continue
			}
			b.total -= b.toks[i] - n[k]
			b.now[i], b.toks[i], b.summary[i] = made[k], n[k], summary
			b.count1(i, step)
			if b.total <= b.f.opts.Budget {
				return true
			}
		}
	}
	return false
}

// count1 counts one result replaced by a step in the report.
func (b *budget) count1(i int, step string) {
	switch {
	case b.step[i] == step: // a clear made bare
	case step == stepLatest && b.step[i] == "":
		b.rep.LatestReads++
	case step == stepClear && b.step[i] == stepSummary:
		b.rep.Summaries--
		b.rep.Clears++
	case step == stepClear:
		b.rep.Clears++
	case step == stepSummary:
		b.rep.Summaries++
	}
	b.step[i] = step
}

// editRuns compresses the old edits of each file, the file whose first such
// edit is oldest first, until the history fits; it reports whether it does.
func (b *budget) editRuns(tl stats.Tally) bool {
	t := b.t
	runs := map[string][]*transcript.Call{}
	var files []string
	for _, c := range t.Calls {
		r := c.Result
		if c.Index == 0 || r == nil || c.Kind != tools.Edit && c.Kind != tools.Write || c.Args.Command != "" ||
			!r.OK() || b.loop.Edits[c] || r.Index >= b.recent || b.refs[r.CallID] || !c.CanSetInput() ||
			tools.IsStub(c.Input) || marker.OnResult(r) {
			continue // the transcript's first call opens the session: its key (marker.SessionKey) stays
		}
		file := c.Args.File(t.Cwd)
		if file == "" {
			continue
		}
		if runs[file] == nil {
			files = append(files, file)
		}
		runs[file] = append(runs[file], c)
	}
	for _, file := range files {
		run := runs[file]
		results, stubs := b.compress(file, run)
		n := tokens.CountAll(b.f.ctr, append(append([]string{}, results...), stubs...))
		saved := 0
		for k, c := range run {
			if i := c.Result.Index; k == 0 || n[k] < b.toks[i] {
				saved += b.toks[i] - n[k]
			}
			saved += tl.Calls[c.Index] - n[len(run)+k]
		}
		if saved <= 0 {
			continue
		}
		b.total -= saved
		for k, c := range run {
			if i := c.Result.Index; k == 0 || n[k] < b.toks[i] {
				b.now[i], b.toks[i], b.step[i], b.summary[i] = results[k], n[k], stepEdits, false
			}
			b.inputs[c] = stubs[k]
		}
		b.rep.EditRuns++
		b.rep.Edits += len(run)
		if b.total <= b.f.opts.Budget {
			return true
		}
	}
	return false
}

// compress makes a run of edits of one file compressed: what replaces each
// edit's result (the first lists the edits with what each did, the others
// say where they are listed; those replace a result where shorter) and
// every edit's arguments without the text it changed (tools.Stub).
func (b *budget) compress(file string, run []*transcript.Call) (results, stubs []string) {
	shown := marker.Text(file, 160)
	first, last := run[0].ID, run[len(run)-1].ID
	handle := func(c *transcript.Call) string {
		if b.handle == nil {
			return ""
		}
		return b.handle(c.Result)
	}
	line := "Edits to " + shown + ": " + textfmt.Plural(len(run), "change", "changes")
	if len(run) > 1 {
		line += " between calls " + first + " and " + last
	}
	var list strings.Builder
	list.WriteString(marker.Line("summarize", marker.Cite(line+"; the text they changed is not shown here, only what each did.", handle(run[0]))))
	results, stubs = make([]string, len(run)), make([]string, len(run))
	for k, c := range run {
		item := did(c)
		if h := handle(c); h != "" {
			item = marker.CiteArguments(item+".", h)
		}
		list.WriteString("\n- " + c.ID + ": " + item)
		// No "call ID" here: a pointer would keep the list whole, which is
		// a marker itself.
		note := "Change " + textfmt.Int(k+1) + " of " + textfmt.Int(len(run)) + " to " + shown +
			", listed with the first of them (" + first + "); the text it changed is not shown here."
		stubs[k], _ = tools.Stub(c.Input, marker.Line("summarize", marker.CiteArguments(note, handle(c))))
		results[k] = marker.Line("summarize", marker.Cite(note, handle(c)))
	}
	results[0] = list.String()
	return results, stubs
}

// did says what an edit did: its stated intent, or what its arguments
// show of the change.
func did(c *transcript.Call) string {
	what := ""
	ch := tools.ChangeOf(c.Kind, c.Args, c.Input)
	switch ch.Op {
	case tools.EditReplace:
		added, removed := 0, 0
		for _, r := range ch.Replacements {
			added += countLines(r.New)
			removed += countLines(r.Old)
		}
		what = "+" + textfmt.Int(added) + " −" + textfmt.Int(removed) + " lines"
		if len(ch.Replacements) > 1 {
			what = textfmt.Plural(len(ch.Replacements), "replacement", "replacements") + ", " + what
		}
	case tools.EditContent, tools.EditCreate:
		what = "wrote " + textfmt.Plural(countLines(ch.Text), "line", "lines")
	case tools.EditInsert:
		what = "inserted " + textfmt.Plural(countLines(ch.Text), "line", "lines") + " after line " + textfmt.Int(ch.Line)
	case tools.EditAppend:
		what = "appended " + textfmt.Plural(countLines(ch.Text), "line", "lines")
	case tools.EditPatch:
		what = "a patch of " + textfmt.Plural(countLines(ch.Text), "line", "lines")
	default:
		what = "changed it"
	}
	if c.Args.Intent != "" {
		return marker.Text(c.Args.Intent, 200) + " (" + what + ")"
	}
	return what
}

// count fills the reasons the results were kept, for the report: each
// result once.
func (b *budget) count(k *Kept) {
	refs := b.refs
	if refs == nil {
		refs = marker.Referenced(b.t)
	}
	for i, r := range b.t.Results {
		switch {
		case b.now[i] != "":
		case b.f.keep(r, b.skipped != nil && (i >= b.recent || b.loop.Results[r]), false, refs, k):
		case b.rep.Fits:
			k.NotNeeded++
		default:
			k.NotShorter++
		}
	}
}
