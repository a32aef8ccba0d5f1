package truncate

import (
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Options say which results are cut, and how.
type Options struct {
	Rules Rules
	// Tools names the tools whose results are cut (any case). Nil means the
	// shell tools: every call with a command line, whatever the command.
	Tools []string
	// All cuts the results of every tool, and results without a call.
	All bool
	// KeepMirrors leaves the copies of an output that a format keeps beside
	// the result (Claude Code's toolUseResult, Codex's exec_command_end,
	// mini-swe-agent's raw_output) as they are. By default they are cut by
	// the same rules, so that no full text stays hidden in another field.
	KeepMirrors bool
	// Totals fills Report.Before and After: the size of every result before
	// and after, in chars (tokens in token mode). It costs a pass over every
	// result, so it is only done for --stats.
	Totals bool
}

// Report says what Apply did.
type Report struct {
	Results int // tool results in the transcript
	Cut     int // results cut
	Mirrors int // mirrors cut
	// Before and After are the sizes of every result's text (With
	// Options.Totals), in Unit.
	Before, After int
	Unit          string // "chars" or "tokens"
}

// String is the --stats line (without the program's name):
// "12 of 80 results cut, 412,330 → 61,020 chars (−85%)".
func (r Report) String() string {
	pct := "0%"
	if r.Before > 0 && r.After != r.Before {
		p := (100*(r.Before-r.After) + r.Before/2) / r.Before
		if r.After < r.Before {
			pct = "−" + textfmt.Int(p) + "%"
		} else {
			pct = "+" + textfmt.Int(-p) + "%"
		}
	}
	return textfmt.Int(r.Cut) + " of " + textfmt.Int(r.Results) + " results cut, " +
		textfmt.Int(r.Before) + " → " + textfmt.Int(r.After) + " " + r.Unit + " (" + pct + ")"
}

// Apply cuts the long results of t in place (through the model, so the rest
// of the input stays byte for byte). It never touches a result that starts
// with a marker of any ctx-* filter, one that a marker points at, the result
// of an edit or write, or a result without text.
func Apply(t *transcript.Transcript, opts Options) (Report, error) {
	rep := Report{Results: len(t.Results), Unit: "chars"}
	if opts.Rules.TokenMode {
		rep.Unit = "tokens"
	}
	size := func(s string) int { return utf8.RuneCountInString(s) }
	if opts.Rules.TokenMode {
		size = opts.Rules.Counter.Count
	}
	var names map[string]bool
	if opts.Tools != nil {
		names = map[string]bool{}
		for _, n := range opts.Tools {
			names[strings.ToLower(strings.TrimSpace(n))] = true
		}
	}
	refs := marker.Referenced(t)
	var todo []*transcript.Result
	for _, r := range t.Results {
		if inScope(r, opts.All, names) && !refs[r.CallID] && !r.HasPrefix("[ctx-") {
			todo = append(todo, r)
		}
	}
	cuts := cutAll(todo, opts)
	if opts.Totals {
		for _, r := range t.Results {
			rep.Before += size(r.Text())
		}
		rep.After = rep.Before
	}
	for i, r := range todo {
		c := cuts[i]
		if c.text != "" {
			if opts.Totals {
				rep.After += size(c.text) - size(r.Text())
			}
			t.SetText(r, c.text)
			rep.Cut++
		}
		for j, m := range c.mirrors {
			if m != "" {
				t.SetMirror(r, j, m)
				rep.Mirrors++
			}
		}
	}
	return rep, nil
}

// cutResult is what Cut made of a result and its mirrors ("" where it
// left them).
type cutResult struct {
	text    string
	mirrors []string
}

// cutAll cuts the results on every core: Cut is pure, and each result's
// text is its own. The transcript is changed afterwards, in order.
func cutAll(rs []*transcript.Result, opts Options) []cutResult {
	out := make([]cutResult, len(rs))
	work := func(i int) {
		r := rs[i]
		text := r.Text()
		if text == "" {
			return
		}
		rules := opts.Rules
		rules.Failed = r.Failed()
		if cut, ok := Cut(text, rules); ok {
			out[i].text = cut
		}
		if opts.KeepMirrors {
			return
		}
		ms := r.Mirrors()
		for j, m := range ms {
			if cut, ok := Cut(m.Text, rules); ok {
				if out[i].mirrors == nil {
					out[i].mirrors = make([]string, len(ms))
				}
				out[i].mirrors[j] = cut
			}
		}
	}
	parallel.For(len(rs), 16, work)
	return out
}

// inScope reports whether a result is one the options cut: by default the
// results of shell tools (a call with a command line); with names, those of
// the named tools; with all, every result. Results of edits and writes are
// never cut: they are the record of a change.
func inScope(r *transcript.Result, all bool, names map[string]bool) bool {
	c := r.Call
	if c == nil {
		return all
	}
	if c.Kind == tools.Edit || c.Kind == tools.Write {
		return false
	}
	switch {
	case all:
		return true
	case names != nil:
		return names[strings.ToLower(c.Name)]
	}
	return c.Args.Command != ""
}
