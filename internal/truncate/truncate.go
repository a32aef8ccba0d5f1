package truncate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Options say which results are cut, and how.
type Options struct {
	Rules Rules
	// Tools names the tools whose results are cut (any case). Nil means the
	// shell tools: every call with a command line, and the other calls of a
	// shell tool (a write_stdin whose command is not in the transcript).
	Tools []string
	// All cuts the results of every tool, and results without a call.
	All bool
	// KeepMirrors leaves the copies of an output that a format keeps beside
	// the result (Claude Code's toolUseResult, Codex's exec_command_end,
	// mini-swe-agent's raw_output) as they are. By default they are cut by
	// the same rules, so that no full text stays hidden in another field.
	KeepMirrors bool
	// Measure fills the Report's token counts, with Rules.Counter: it costs
	// a count of the whole transcript, so it is only done for --stats.
	Measure bool
	// Handle gives the archive's handle of a result about to be cut, which
	// its marker line cites; nil when there is no archive. A cut copy of
	// the output (a mirror) cites the handle of its own text
	// (Handles.Mirror); with an archive, a copy whose text has no handle
	// is left whole.
	Handle marker.Handles
}

// Filter is a validated set of options, ready to apply to transcripts.
type Filter struct {
	opts  Options
	names map[string]bool // Tools, lower case; nil for the shell tools
}

// New checks the options once.
func New(opts Options) (*Filter, error) {
	r := opts.Rules
	names := []string{"max-chars", "head", "tail", "keep-matches"} // as ctx-truncate's flags name them
	if r.TokenMode {
		names = []string{"max-tokens", "head-tokens", "tail-tokens", "keep-matches"}
	}
	for i, v := range []int{r.Max, r.Head, r.Tail, r.KeepMatches} {
		if v < 0 {
			return nil, fmt.Errorf("%s must be 0 or more", names[i])
		}
	}
	switch {
	case r.Counter == nil && (r.TokenMode || opts.Measure):
		return nil, errors.New("truncate: no token counter")
	case opts.All && opts.Tools != nil:
		return nil, errors.New("tools and all cannot be used together")
	}
	f := &Filter{opts: opts}
	if opts.Tools != nil {
		f.names = map[string]bool{}
		for _, n := range opts.Tools {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
				f.names[n] = true
			}
		}
		if len(f.names) == 0 {
			return nil, errors.New("tools: no tool named")
		}
	}
	return f, nil
}

// Apply cuts the long results of t in place (through the model, so the rest
// of the input stays byte for byte) and reports what it did. It never
// touches a result that starts with a marker of any ctx-* filter, one that a
// marker points at, the result of an edit or write, or a result without
// text; nor, unless Tools or All name what to cut, the latest read of a file
// (its most recent state).
func (f *Filter) Apply(t *transcript.Transcript) stats.Report {
	refs := marker.Referenced(t)
	latest := make([]bool, len(t.Results))
	if f.names == nil && !f.opts.All {
		// A shell read (cat, sed -n) is cut only when a later read shows the
		// file again: a file's latest state stays whole unless the user
		// names the tools to cut.
		latest = t.LatestReads()
	}
	var todo []*transcript.Result
	for i, r := range t.Results {
		if f.inScope(r) && !refs[r.CallID] && !latest[i] && !marker.OnResult(r) {
			todo = append(todo, r)
		}
	}
	cuts := cutAll(t, todo, f.opts)
	run := stats.Start(t)
	mirrors := 0
	for i, r := range todo {
		c := cuts[i]
		if c.text != "" {
			run.SetText(r, c.text)
		}
		for j, m := range c.mirrors {
			if m != "" {
				run.SetMirror(r, j, m, c.handles[j])
				mirrors++
			}
		}
	}
	detail := ""
	if mirrors > 0 {
		detail = textfmt.Plural(mirrors, "copy", "copies") + " beside the results cut too"
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.opts.Rules.Counter
	}
	return run.Report(ctr, detail)
}

// cutResult is what Cut made of a result and its mirrors ("" where it
// left them), and the handles the mirrors' cuts cite.
type cutResult struct {
	text             string
	mirrors, handles []string
}

// cutAll cuts the results on every core: Cut is pure, and each result's
// text is its own. The transcript is changed afterwards, in order.
func cutAll(t *transcript.Transcript, rs []*transcript.Result, opts Options) []cutResult {
	out := make([]cutResult, len(rs))
	work := func(i int) {
		r := rs[i]
		text := r.Text()
		if text == "" {
			return
		}
		rules := opts.Rules
		rules.Failed = r.Failed()
		if r.Call != nil {
			rules.Kind = r.Call.Kind
		}
		if len(text) > rules.Max { // else Cut leaves it: no handle to find
			rules.Handle = opts.Handle.Of(t, r)
		}
		if cut, ok := Cut(text, rules); ok {
			out[i].text = cut
		}
		if opts.KeepMirrors {
			return
		}
		// A copy's handle is the same whether the result was cut in this
		// run or an earlier one (Citation reads a cut's), so that a second
		// run cuts what the first cut, no more.
		ms := r.Mirrors()
		for j, m := range ms {
			rules.Handle = ""
			if len(m.Text) > rules.Max {
				if rules.Handle = opts.Handle.Mirror(t, r, m); rules.Handle == "" && opts.Handle != nil {
					continue // it could not say where its text is
				}
			}
			if cut, ok := Cut(m.Text, rules); ok {
				if out[i].mirrors == nil {
					out[i].mirrors, out[i].handles = make([]string, len(ms)), make([]string, len(ms))
				}
				out[i].mirrors[j], out[i].handles[j] = cut, rules.Handle
			}
		}
	}
	parallel.For(len(rs), 16, work)
	return out
}

// inScope reports whether a result is one the options cut: by default the
// results of shell tools (a call with a command line, or of a shell tool);
// with names, those of the named tools; with all, every result. Results of
// edits and writes are never cut: they are the record of a change.
func (f *Filter) inScope(r *transcript.Result) bool {
	if c := r.Call; c != nil {
		return f.Cuts(c.Name, c.Kind, c.Args)
	}
	return f.opts.All
}

// Cuts reports whether the filter cuts the output of a call to the tool
// name, of the kind and arguments its input gives (tools.Table.Decode): by
// default a call with a command line or of a shell tool; with Tools, a call
// of a named tool; with All, every call. The output of an edit or a write
// is never cut: it is the record of a change. ctx-truncate's hook asks it
// too, so that a hook cuts what the filter would.
func (f *Filter) Cuts(name string, kind tools.Kind, args tools.Args) bool {
	switch {
	case kind == tools.Edit || kind == tools.Write:
		return false
	case f.opts.All:
		return true
	case f.names != nil:
		return f.names[strings.ToLower(name)]
	}
	return args.Command != "" || kind == tools.Shell
}
