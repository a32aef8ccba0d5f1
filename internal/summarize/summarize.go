// Package summarize replaces old tool results with short summaries made for
// their kind (a listing becomes its counts and a few paths, a test run its
// numbers and last error lines, a read its first and last lines), and keeps
// whole what a summary must never lose: edits and writes, failed calls,
// results another filter points at, and the recent work the agent is still
// using. It is ctx-summarize's pure core: no I/O.
//
// Which results are old is decided by protected windows, as OpenCode's
// pruning and Anthropic's context editing do: the last user turns, the last
// results, and the most recent tool output up to a number of tokens. A run
// changes nothing unless the history is over a trigger size and the
// summaries save enough tokens to be worth it.
package summarize

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Mode is what replaces an old result.
type Mode string

// The modes.
const (
	// ModeSummary is a summary made for the tool's kind (Rules).
	ModeSummary Mode = "summary"
	// ModeClear is one line naming the tool, its target and the size
	// removed (Clear).
	ModeClear Mode = "clear"
)

// Options say when to act and how. The zero value of a knob turns it off;
// Defaults has the values ctx-summarize starts from.
type Options struct {
	Mode Mode
	// ProtectTokens keeps whole the most recent results whose tokens add up
	// to this many: walking back from the last result, every result is kept
	// until the ones after it reach ProtectTokens, so the result that
	// crosses the threshold is kept too (OpenCode's PRUNE_PROTECT).
	ProtectTokens int
	// ProtectCalls caps the window of ProtectTokens: at most the last this
	// many results are kept whole by it, so that the window is the last
	// calls or the last tokens, whichever holds fewer results. With
	// ProtectTokens 0, the last this many results are kept whole.
	ProtectCalls int
	// ProtectTurns keeps whole the results of the last this many user turns;
	// with fewer user turns than this, every result is kept (OpenCode's
	// rule, which in an autonomous run of a few prompts keeps everything).
	ProtectTurns int
	// SummarizeLatestReads lets the latest read of a file be summarized;
	// by default it stays whole, as the file's most recent state.
	SummarizeLatestReads bool
	// KeepRecent keeps whole the last this many results (Anthropic's keep).
	KeepRecent int
	// Loop, when over 0, is the rule for a live loop's pipe: a result is
	// summarized once it is not among the last Loop results, and nothing
	// else keeps it whole (no window of tokens, calls or turns, not the
	// latest read of a file, no minimum saving, no trigger). Each result
	// then changes once, near the end of the history, and the prompt cache
	// holds (docs/summarize.md); a pointer's base stays whole, so
	// ctx-dedupe's --keep first --within Loop-1 before it keeps the rule.
	// It sets those options and cannot go with Budget.
	Loop int
	// MinSavings: change nothing unless the summaries save at least this
	// many tokens (OpenCode's PRUNE_MINIMUM, Anthropic's clear_at_least).
	MinSavings int
	// Trigger: change nothing unless the whole history (message text, tool
	// inputs and results, as ctx-count counts it) has more tokens than this.
	Trigger int
	// Budget: when the whole history has more tokens than this, replace
	// old results, the cheapest loss first, until it fits (budget.go); the
	// protected windows and MinSavings then play no part. 0: off.
	Budget int
	// ExcludeTools are tool names whose results are never summarized; they
	// match in any case.
	ExcludeTools []string
	// KeepMirrors leaves the copies of a summarized output that a format
	// keeps beside the result (Claude Code's toolUseResult) as they are;
	// by default the first is set to the summary and the others emptied,
	// so that the full output does not stay in the file unseen.
	KeepMirrors bool
	// Counter counts tokens: the windows, the savings, the trigger.
	Counter tokens.Counter
	// Measure fills the token counts of the stats.Report (the whole
	// transcript's, before and after), for --stats.
	Measure bool
	// ModelInput is the most tokens of an output that Prompts sends a
	// model: a longer one is cut to its head, the lines that say what
	// failed and its tail. 0 sends outputs whole.
	ModelInput int
	// Handle gives the archive's handle of a result about to be
	// summarized, which its summary's marker line cites; nil when there is
	// no archive.
	Handle marker.Handles
}

// Defaults are ctx-summarize's defaults, counting with ctr: the recent work
// kept whole is the last 20 results or the last 40,000 tokens of tool
// output (OpenCode's PRUNE_PROTECT), whichever holds fewer, so that it
// scales with a run of any length; a run acts when it saves 2,000 tokens.
// docs/summarize.md has the measurements they were chosen from.
func Defaults(ctr tokens.Counter) Options {
	return Options{Mode: ModeSummary, ProtectTokens: 40000, ProtectCalls: 20, MinSavings: 2000, Counter: ctr}
}

// Filter is a validated configuration, ready to apply to transcripts.
type Filter struct {
	opts       Options
	ctr        tokens.Counter
	exclude    map[string]bool
	summarizer func(cwd string, handle func(*transcript.Result) string) Summarizer
	answers    *Answers // a model's summaries (WithAnswers), or nil
}

// New checks the options and returns the filter they describe.
func New(opts Options) (*Filter, error) {
	ctr := opts.Counter
	if ctr == nil {
		return nil, errors.New("summarize: no token counter")
	}
	f := &Filter{opts: opts, ctr: ctr, exclude: map[string]bool{}}
	switch opts.Mode {
	case ModeSummary, "":
		f.summarizer = func(cwd string, handle func(*transcript.Result) string) Summarizer {
			return Rules{Cwd: cwd, Handle: handle}
		}
	case ModeClear:
		f.summarizer = func(cwd string, handle func(*transcript.Result) string) Summarizer {
			return Clear{Cwd: cwd, Handle: handle, Counter: ctr}
		}
	default:
		return nil, fmt.Errorf("unknown mode %q (want summary or clear)", opts.Mode)
	}
	names := []string{"protect-tokens", "protect-calls", "protect-turns", "keep-recent", "min-savings", "trigger", "budget", "llm-max-input", "loop"}
	for i, v := range []int{opts.ProtectTokens, opts.ProtectCalls, opts.ProtectTurns, opts.KeepRecent, opts.MinSavings, opts.Trigger, opts.Budget, opts.ModelInput, opts.Loop} {
		if v < 0 {
			return nil, fmt.Errorf("%s must be 0 or more, not %d", names[i], v)
		}
	}
	if opts.Loop > 0 {
		if opts.Budget > 0 {
			return nil, errors.New("loop and budget cannot be used together: a budget replaces results far back, and again")
		}
		f.opts.ProtectTokens, f.opts.ProtectCalls, f.opts.ProtectTurns, f.opts.KeepRecent = 0, 0, 0, opts.Loop
		f.opts.MinSavings, f.opts.Trigger, f.opts.SummarizeLatestReads = 0, 0, true
	}
	for _, name := range opts.ExcludeTools {
		if name = strings.TrimSpace(name); name != "" {
			f.exclude[strings.ToLower(name)] = true
		}
	}
	return f, nil
}

// Report says in detail what a run did to one transcript. Its JSON form is
// part of ctx-summarize's --json schema (docs/summarize.md). Tokens are
// those of the tool results' text.
type Report struct {
	// stats is what every filter reports, for the --stats line (Stats).
	stats stats.Report

	File       string `json:"file,omitempty"`
	Format     string `json:"format"`
	Results    int    `json:"tool_results"`
	Summarized int    `json:"summarized"`
	// TokensBefore and TokensAfter are the tokens of every tool result,
	// before and after the run.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// HistoryTokens is the whole history's size, counted only for a trigger.
	HistoryTokens int `json:"history_tokens,omitempty"`
	// Unchanged says why nothing was changed, when a threshold stopped the
	// run: the trigger, or savings under the minimum.
	Unchanged string  `json:"unchanged,omitempty"`
	Kept      Kept    `json:"kept"`
	Tools     []Tool  `json:"by_tool"`
	Changes   []Entry `json:"summaries"`
	// Model is what a model did, when its answers were given (WithAnswers).
	Model *ModelReport `json:"model,omitempty"`
	// Budget is what a run to a budget did (Options.Budget).
	Budget *BudgetReport `json:"budget,omitempty"`
}

// Kept counts the results left whole, by the first reason that applies.
type Kept struct {
	Marker     int `json:"marker"`        // already a [ctx-…] marker
	Referenced int `json:"referenced"`    // a marker points at it
	EditWrite  int `json:"edit_or_write"` // an edit's or a write's result
	Failed     int `json:"failed"`        // the call failed: its error text stays
	Excluded   int `json:"excluded"`      // --exclude-tools
	NoCall     int `json:"no_call"`       // a result whose call is not in the transcript
	LatestRead int `json:"latest_read"`   // the latest read of a file, its most recent state
	Protected  int `json:"protected"`     // in a protected window
	NotShorter int `json:"not_shorter"`   // short already: no summary with fewer tokens
	// BelowMinimum would have been summarized, but all the summaries
	// together saved less than MinSavings.
	BelowMinimum int `json:"below_min_savings"`
	// NotNeeded could have been replaced, but the history fit its budget
	// without it.
	NotNeeded int `json:"not_needed,omitempty"`
}

// Tool is the results of one tool and kind (a shell tool's calls have the
// kinds of their commands).
type Tool struct {
	Tool         string `json:"tool"`
	Kind         string `json:"kind"`
	Results      int    `json:"results"`
	Summarized   int    `json:"summarized"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
}

// Entry is one summarized result.
type Entry struct {
	CallID       string `json:"call_id"`
	Tool         string `json:"tool"`
	Kind         string `json:"kind"`
	Target       string `json:"target"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	// Model names the model that wrote the summary; empty for the rules'.
	Model string `json:"model,omitempty"`
	// Fallback says why a result a model was asked about has the rules'
	// summary: "not shorter" than it, or why the model did not answer.
	Fallback string `json:"fallback,omitempty"`
	// Step is the step of a budget that replaced the result: "summary",
	// "clear", "edit run", "latest read".
	Step string `json:"step,omitempty"`
}

// Stats is what every filter reports (filter.Report), for the --stats line.
func (r Report) Stats() stats.Report { return r.stats }

// Saved is the tokens the run saved.
func (r Report) Saved() int { return r.TokensBefore - r.TokensAfter }

// plan is a summary that will replace a result.
type plan struct {
	r       *transcript.Result
	summary string
	tokens  int
	// model is set when the summary is the model's; fallback says why a
	// result the model was asked about has the rules' summary.
	model    bool
	fallback string
}

// Apply summarizes t's old results in place and reports what it did, with
// the detail of ctx-summarize's --json report. It changes nothing when a
// threshold says so, or when nothing old can be summarized.
func (f *Filter) Apply(t *transcript.Transcript) Report {
	if f.opts.Budget > 0 {
		return f.runBudget(t)
	}
	run := stats.Start(t)
	rep, plans, before := f.decide(t)
	for _, p := range plans {
		f.replace(run, p)
	}
	rep.finish(t, plans, before)
	if f.answers != nil {
		rep.Model = f.answers.report(plans)
		rep.setModel(plans, f.answers.Model)
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.ctr
	}
	rep.stats = run.Report(ctr, rep.detail())
	return rep
}

// detail is the report's part of the --stats line: why nothing changed,
// or what the model did.
func (r Report) detail() string {
	switch {
	case r.Unchanged != "":
		return "unchanged: " + r.Unchanged
	case r.Model != nil:
		return r.Model.String()
	}
	return ""
}

// decide chooses the summaries that will replace t's results, without
// changing t, and reports the reasons for the others. before is every
// result's tokens.
func (f *Filter) decide(t *transcript.Transcript) (rep Report, plans []plan, before []int) {
	rep = Report{Format: string(t.Format), Results: len(t.Results)}
	texts := make([]string, len(t.Results))
	parallel.For(len(texts), 32, func(i int) { texts[i] = t.Results[i].Text() })
	before = tokens.CountAll(f.ctr, texts)
	for _, n := range before {
		rep.TokensBefore += n
	}
	rep.TokensAfter = rep.TokensBefore

	if f.opts.Trigger > 0 {
		rep.HistoryTokens = stats.Count(t, f.ctr).Tokens()
		if rep.HistoryTokens <= f.opts.Trigger {
			rep.Unchanged = fmt.Sprintf("the history has %s tokens, not over --trigger %s",
				textfmt.Int(rep.HistoryTokens), textfmt.Int(f.opts.Trigger))
			return rep, nil, before
		}
	}

	plans, saved := f.plan(t, texts, before, &rep.Kept)
	switch {
	case rep.Results == 0:
		rep.Unchanged = "no tool results"
	case len(plans) == 0:
		rep.Unchanged = fmt.Sprintf("nothing old to summarize (%s of %s tool results in protected windows)",
			textfmt.Int(rep.Kept.Protected), textfmt.Int(rep.Results))
	case saved < f.opts.MinSavings:
		rep.Unchanged = fmt.Sprintf("%s old results would save %s tokens, under --min-savings %s",
			textfmt.Int(len(plans)), textfmt.Int(saved), textfmt.Int(f.opts.MinSavings))
		rep.Kept.BelowMinimum = len(plans)
		plans = nil
	}
	return rep, plans, before
}

// plan summarizes every old result that may be summarized and returns the
// summaries with fewer tokens than their results, and the tokens they save
// together. texts and before are every result's text and tokens.
func (f *Filter) plan(t *transcript.Transcript, texts []string, before []int, k *Kept) ([]plan, int) {
	protected := f.protected(t, before)
	latest := make([]bool, len(t.Results))
	if !f.opts.SummarizeLatestReads {
		latest = t.LatestReads()
	}
	refs := marker.Referenced(t)
	var old []*transcript.Result
	for i, r := range t.Results {
		if !f.keep(r, protected[i], latest[i], refs, k) {
			old = append(old, r)
		}
	}
	sum := f.summarizer(t.Cwd, f.handles(t))
	made := make([]plan, len(old))
	parallel.For(len(old), 32, func(i int) {
		if s, ok := sum.Summarize(old[i].Call, texts[old[i].Index]); ok {
			made[i] = plan{r: old[i], summary: s}
		}
	})
	var plans []plan
	var summaries []string
	for _, p := range made {
		if p.r != nil {
			plans = append(plans, p)
			summaries = append(summaries, p.summary)
		}
	}
	k.NotShorter += len(made) - len(plans)
	after := tokens.CountAll(f.ctr, summaries)
	if f.answers != nil {
		f.useAnswers(t, texts, plans, after)
	}
	shorter := plans[:0]
	saved := 0
	for i, p := range plans {
		// Never more tokens out than in.
		if n := before[p.r.Index]; after[i] < n {
			p.tokens = after[i]
			saved += n - after[i]
			shorter = append(shorter, p)
		}
	}
	k.NotShorter += len(plans) - len(shorter)
	return shorter, saved
}

// handles gives the archive's handles of t's results, or nil without an
// archive.
func (f *Filter) handles(t *transcript.Transcript) func(*transcript.Result) string {
	if f.opts.Handle == nil {
		return nil
	}
	return func(r *transcript.Result) string { return f.opts.Handle(t, r) }
}

// rules is the rules' summarizer for t, which a model's summaries start
// from.
func (f *Filter) rules(t *transcript.Transcript) Rules {
	return Rules{Cwd: t.Cwd, Handle: f.handles(t)}
}

// replace writes a summary in place of its result and, unless KeepMirrors,
// of the result's mirrors (stats.Run.Summarize).
func (f *Filter) replace(run *stats.Run, p plan) {
	run.Summarize(p.r, p.summary, f.opts.Handle, f.opts.KeepMirrors)
}

// keep reports whether a result stays whole, and counts why.
func (f *Filter) keep(r *transcript.Result, protected, latest bool, refs map[string]bool, k *Kept) bool {
	switch {
	case marker.OnResult(r):
		k.Marker++
	case refs[r.CallID]:
		k.Referenced++
	case r.Call != nil && (r.Call.Kind == tools.Edit || r.Call.Kind == tools.Write):
		k.EditWrite++
	case !r.OK():
		k.Failed++
	case r.Call != nil && f.exclude[strings.ToLower(r.Call.Name)]:
		k.Excluded++
	case r.Call == nil:
		k.NoCall++
	case latest:
		k.LatestRead++
	case protected:
		k.Protected++
	default:
		return false
	}
	return true
}

// protected marks the results in a protected window: the last KeepRecent
// results, those in the last ProtectTurns user turns, and the most recent
// ones up to ProtectTokens (the one that crosses it included) and at most
// ProtectCalls of them.
func (f *Filter) protected(t *transcript.Transcript, toks []int) []bool {
	n := len(t.Results)
	p := make([]bool, n)
	for i := max(0, n-f.opts.KeepRecent); i < n; i++ {
		p[i] = true
	}
	if f.opts.ProtectTurns > 0 {
		// The protected turns start at the ProtectTurns-th user turn from
		// the end, or at the top when there are fewer.
		start, turns := 0, 0
		for i := len(t.Messages) - 1; i >= 0; i-- {
			if t.Messages[i].IsUserTurn() {
				if turns++; turns == f.opts.ProtectTurns {
					start = t.Messages[i].Index
					break
				}
			}
		}
		for i, r := range t.Results {
			if r.Message.Index >= start {
				p[i] = true
			}
		}
	}
	tok, calls := f.opts.ProtectTokens, f.opts.ProtectCalls
	sum := 0
	for i := n - 1; i >= 0 && (tok > 0 || calls > 0) && (tok == 0 || sum < tok) && (calls == 0 || n-i <= calls); i-- {
		p[i] = true
		sum += toks[i]
	}
	return p
}

// finish fills the totals and the per-tool rows.
func (r *Report) finish(t *transcript.Transcript, plans []plan, before []int) {
	after := map[*transcript.Result]int{}
	for _, p := range plans {
		after[p.r] = p.tokens
		c := p.r.Call
		r.Changes = append(r.Changes, Entry{CallID: p.r.CallID, Tool: c.Name, Kind: string(c.Kind),
			Target: c.Args.Target(t.Cwd), TokensBefore: before[p.r.Index], TokensAfter: p.tokens, Fallback: p.fallback})
		r.TokensAfter -= before[p.r.Index] - p.tokens
	}
	r.Summarized = len(plans)
	rows := map[[2]string]*Tool{}
	for i, res := range t.Results {
		key := [2]string{"(no call)", string(tools.Other)}
		if c := res.Call; c != nil {
			key = [2]string{c.Name, string(c.Kind)}
		}
		row := rows[key]
		if row == nil {
			row = &Tool{Tool: key[0], Kind: key[1]}
			rows[key] = row
		}
		row.Results++
		row.TokensBefore += before[i]
		if n, ok := after[res]; ok {
			row.Summarized++
			row.TokensAfter += n
		} else {
			row.TokensAfter += before[i]
		}
	}
	r.Tools = []Tool{}
	for _, row := range rows {
		r.Tools = append(r.Tools, *row)
	}
	sort.Slice(r.Tools, func(i, j int) bool {
		a, b := r.Tools[i], r.Tools[j]
		if a.TokensBefore != b.TokensBefore {
			return a.TokensBefore > b.TokensBefore
		}
		return a.Tool+a.Kind < b.Tool+b.Kind
	})
	if r.Changes == nil {
		r.Changes = []Entry{}
	}
}
