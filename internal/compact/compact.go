// Package compact is ctx-compact's pure core: the compaction of a live
// agent loop, which keeps the prompt cache.
//
// An agent re-sends its history on every request, and the API reads the
// unchanged prefix from its cache at a tenth of the input price or less.
// A filter that rewrites old messages on every request sends fewer tokens
// and pays more (docs/performance.md). So compact changes a result only in
// ways that keep the cache:
//
//   - on arrival, before the model has seen it, which costs nothing: a
//     long command output is cut to its head, its tail and the lines that
//     say what failed (internal/truncate); a re-read of a file that a whole
//     read above shows the same becomes a pointer up at it
//     (internal/dedupe's first-read rule);
//   - once, later, when the model has used it: a result out of the recent
//     window (the results of the last Window model turns) is replaced by
//     its summary (internal/summarize; an edit's or a write's result by
//     its first line), and an edit's or a write's arguments by a stub
//     without the text they changed (a command's, without the text its
//     heredocs wrote to files: cat > F <<EOF), when the cost model says it
//     pays.
//     Replacing one makes every token after it a cache write on that
//     request; what it removes is then read at the cache price on every
//     later request. So at each request the units out of the window that
//     are not yet replaced are weighed together: those from some point on
//     are replaced when the tokens they save, times the requests the
//     session is expected to run on (Horizon times the requests so far,
//     from the history alone), outweigh the writes after that point. With
//     a window of one turn that point is the unit itself, and what follows
//     it is new on that request anyway: a result is replaced the request
//     after the model answered it, or, when its summary saves too little,
//     not at all.
//   - never, while it is still worth more to the agent than its tokens
//     cost: a read's result (the text of a file, which the agent edits
//     and writes from, often many turns later without naming it in
//     between), and a short result the model referred to while it was in
//     the window (it wrote a name, a path or a number that the result
//     shows: internal/facts). A replay counts what a replacement hid that
//     the model went on to use; keeping these is what keeps that small
//     (docs/compact.md).
//
// A result, or an edit's arguments, thus takes at most two forms over a
// session's requests: its arrival form (whole, cut or a pointer), then its
// replacement; a message at most one more than its results and edits. The compacted
// history is a function of the history alone: the state after a history
// is the same whether computed at once or request by request, so two
// processes, or a restart, send the same bytes (Loop). Its summaries say
// how many tokens they replaced, so that the filter run on its own output
// decides as it did and changes nothing.
package compact

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// Summarizer makes the summaries that replace old results: the seam where
// better summaries (or a model's) drop in. cwd is the session's working
// directory, handle the archive's handle of a result (nil without one).
type Summarizer func(cwd string, handle func(*transcript.Result) string) summarize.Summarizer

// RuleSummaries are ctx-summarize's summaries made for each kind of tool.
func RuleSummaries(cwd string, handle func(*transcript.Result) string) summarize.Summarizer {
	return summarize.Rules{Cwd: cwd, Handle: handle}
}

// Clears are one-line clears (summarize.Clear): the tool, its target, how
// it ended, the size removed, and the lines that say what went wrong;
// smaller than summaries, and what ctx-compact --mode clear replaces old
// results with.
func Clears(ctr tokens.Counter) Summarizer {
	return func(cwd string, handle func(*transcript.Result) string) summarize.Summarizer {
		return summarize.Clear{Cwd: cwd, Handle: handle, Counter: ctr}
	}
}

// Options are ctx-compact's settings. Defaults has the measured values.
type Options struct {
	Counter tokens.Counter
	// Prices are the prices the cost model weighs, those of the model at
	// work (Model, else the transcript's); nil is the embedded table.
	Prices *pricing.Table
	// Model prices the decisions as this model; "" as the model the
	// transcript says is at work.
	Model string
	// HourCache weighs cache writes at Anthropic's 1-hour price (2x
	// input), as Claude Code makes them; else the 5-minute price.
	HourCache bool
	// Window is how many of the last model turns' results stay whole: 1
	// keeps the results the model has not answered yet, and replaces a
	// result from the request after the one that first sent it. At least 1.
	Window int
	// KeepReads keeps a read's result whole once used: the text of a file
	// is what the agent edits, writes and reasons from, often many turns
	// later without naming it in between (docs/compact.md).
	KeepReads bool
	// KeepReferred keeps whole, once used, a result of at most this many
	// tokens that the model referred to since it arrived: it wrote a name,
	// path or number that the result shows (internal/facts); 0 keeps none.
	KeepReferred int
	// Horizon is how many more requests the session is expected to run,
	// per request it has run so far: a session that has run k requests
	// runs Horizon*k more. It weighs what a replacement saves.
	Horizon float64
	// Cut cuts long command outputs on arrival by these rules
	// (internal/truncate's scope: outputs of commands); nil cuts nothing.
	Cut *truncate.Rules
	// Dedupe makes a re-read that a whole read above shows the same a
	// pointer up at it, on arrival.
	Dedupe bool
	// KeepEdits leaves edits and writes as they are: their arguments
	// (and the text a command's heredocs write to files), and their
	// results (which in Claude Code show a snippet of the file).
	KeepEdits bool
	// Summarizer makes the summaries; nil is RuleSummaries.
	Summarizer Summarizer
	// KeepMirrors leaves the copies of an output that a format keeps
	// beside the result (Claude Code's toolUseResult) as they are; by
	// default the first gets the result's new text, citing the copy's own
	// handle, and the others are emptied (stats.Run.Summarize).
	KeepMirrors bool
	// Measure fills the Report's token counts, for --stats.
	Measure bool
	// Handle gives the archive's handle of a result about to be replaced,
	// which its marker cites; nil without an archive.
	Handle marker.Handles
}

// The defaults, chosen by replaying the corpus (docs/performance.md).
const (
	DefaultWindow       = 1
	DefaultHorizon      = 4.0
	DefaultKeepReferred = 1000
)

// Defaults are ctx-compact's defaults, counting with ctr.
func Defaults(ctr tokens.Counter) Options {
	cut := truncate.DefaultRules()
	cut.Counter = ctr
	return Options{Counter: ctr, Window: DefaultWindow, Horizon: DefaultHorizon, Cut: &cut, Dedupe: true,
		KeepReads: true, KeepReferred: DefaultKeepReferred}
}

// Filter is a validated set of options.
type Filter struct {
	opts   Options
	prices *pricing.Table
	dedupe *dedupe.Filter   // the first-read rule, when Dedupe is set
	cut    *truncate.Filter // its scope, when Cut is set
	// cutRules are Cut's rules, counting with Counter.
	cutRules truncate.Rules
	sum      Summarizer
}

// New checks the options once.
func New(opts Options) (*Filter, error) {
	switch {
	case opts.Counter == nil:
		return nil, errors.New("compact: no token counter")
	case opts.Window < 1:
		return nil, fmt.Errorf("window must be 1 or more (the results the model has not answered yet stay whole), not %d", opts.Window)
	case !(opts.Horizon >= 0) || opts.Horizon > 1000:
		return nil, fmt.Errorf("horizon must be between 0 and 1000, not %v", opts.Horizon)
	case opts.KeepReferred < 0:
		return nil, fmt.Errorf("the tokens of a result kept when referred to must be 0 or more, not %d", opts.KeepReferred)
	}
	f := &Filter{opts: opts, prices: opts.Prices, sum: opts.Summarizer}
	if f.prices == nil {
		f.prices = pricing.Default()
	}
	if f.sum == nil {
		f.sum = RuleSummaries
	}
	if opts.Dedupe {
		d, err := dedupe.New(dedupe.Options{Keep: dedupe.KeepFirst, MaxReads: dedupe.DefaultMaxReads, Counter: opts.Counter, Handle: opts.Handle})
		if err != nil {
			return nil, err
		}
		f.dedupe = d
	}
	if opts.Cut != nil {
		rules := *opts.Cut
		rules.Counter = opts.Counter
		cut, err := truncate.New(truncate.Options{Rules: rules})
		if err != nil {
			return nil, err
		}
		f.cut, f.cutRules = cut, rules
	}
	return f, nil
}

// Report is what a run did to one transcript: its --stats line, and its
// ctx-compact --json form.
type Report struct {
	stats stats.Report

	File    string `json:"file,omitempty"`
	Format  string `json:"format"`
	Results int    `json:"tool_results"`
	// Changed counts the results whose text changed, and the calls whose
	// arguments did.
	Changed int `json:"changed"`
	// Cut counts the outputs cut on arrival, Pointers the re-reads made
	// pointers up on arrival, Summarized the results replaced once used,
	// Stubbed the calls sent without the text they wrote.
	Cut        int `json:"cut_on_arrival"`
	Pointers   int `json:"pointers"`
	Summarized int `json:"summarized"`
	Stubbed    int `json:"arguments_stubbed"`
	// The tokens of the whole history and of its tool results, before and
	// after, when measured (Options.Measure).
	TokensBefore     int `json:"tokens_before,omitempty"`
	TokensAfter      int `json:"tokens_after,omitempty"`
	ToolOutputBefore int `json:"tool_output_before,omitempty"`
	ToolOutputAfter  int `json:"tool_output_after,omitempty"`
}

// Stats is the account every filter gives.
func (r Report) Stats() stats.Report { return r.stats }

// Apply compacts t in place, as the loop would send it after its last
// message, and reports what it did.
func (f *Filter) Apply(t *transcript.Transcript) Report {
	return f.ApplyCounted(t, stats.Count(t, f.opts.Counter))
}

// ApplyCounted is Apply for a caller that has counted t's tally with the
// filter's counter (stats.Count) for needs of its own (ctx-proxy's
// ledger): the transcript is counted once.
func (f *Filter) ApplyCounted(t *transcript.Transcript, tally stats.Tally) Report {
	l := f.start(t, tally)
	l.Advance(len(t.Messages), nil)
	run := stats.Start(t)
	var c counts
	for _, u := range l.units {
		if u.text == nil {
			continue
		}
		c.add(u)
		if u.c != nil {
			run.SetInput(u.c, *u.text)
			continue
		}
		run.Summarize(u.r, *u.text, f.opts.Handle, f.opts.KeepMirrors)
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.opts.Counter
	}
	st := run.Report(ctr, c.String())
	return Report{stats: st, Format: string(t.Format), Results: st.Results, Changed: c.cut + c.pointed + c.summarized + c.stubbed,
		Cut: c.cut, Pointers: c.pointed, Summarized: c.summarized, Stubbed: c.stubbed,
		TokensBefore: st.Tokens.Before, TokensAfter: st.Tokens.After, ToolOutputBefore: st.ToolOutput.Before, ToolOutputAfter: st.ToolOutput.After}
}

// counts are what a run did, for the --stats line.
type counts struct{ cut, pointed, summarized, stubbed int }

func (c *counts) add(u *unit) {
	switch {
	case u.form == formCut:
		c.cut++
	case u.form == formPointer:
		c.pointed++
	case u.c != nil:
		c.stubbed++
	default:
		c.summarized++
	}
}

func (c counts) String() string {
	var parts []string
	if c.cut > 0 {
		parts = append(parts, textfmt.Int(c.cut)+" cut on arrival")
	}
	if c.pointed > 0 {
		parts = append(parts, textfmt.Plural(c.pointed, "re-read", "re-reads")+" pointed up")
	}
	if c.summarized > 0 {
		parts = append(parts, textfmt.Int(c.summarized)+" summarized once used")
	}
	if c.stubbed > 0 {
		parts = append(parts, textfmt.Plural(c.stubbed, "call's", "calls'")+" arguments sent without the text they changed")
	}
	return strings.Join(parts, ", ")
}
