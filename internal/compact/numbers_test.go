package compact

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/filter"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// large is the size, in tokens, of the sessions the targets are
// about.
const large = 50000

// session is a corpus session to replay.
type session struct {
	name string
	data []byte
	tr   *transcript.Transcript
	hour bool // its records show the hour-long cache
}

func sessions(t *testing.T) []session {
	var out []session
	for _, path := range testutil.CorpusFiles(t) {
		data := read(t, path)
		tr := transcripttest.Parse(t, data)
		out = append(out, session{name: testutil.Name(path), data: data, tr: tr, hour: usage.HourCache(usage.Read(data, tr.Format))})
	}
	return out
}

// replayed replays a session with a policy, priced by the embedded table,
// with the cache its records show.
func (s session) replayed(p replay.Policy, prefix int) replay.Session {
	r := replay.Replay(s.tr, p, replay.Options{Counter: counter(), Prices: pricing.Default(), HourCache: s.hour, Prefix: prefix})
	r.File = s.name
	return r
}

// candidate is a way of compacting a live loop's requests.
type candidate struct {
	name   string
	policy func(t *testing.T, s session) replay.Policy
	prefix int
}

// compacting is ctx-compact with options.
func compacting(set func(*Options)) func(*testing.T, session) replay.Policy {
	return func(t *testing.T, s session) replay.Policy {
		opts := defaults()
		opts.HourCache = s.hour
		if set != nil {
			set(&opts)
		}
		f, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		return func(tr *transcript.Transcript) replay.Advance { return f.Start(tr).Advance }
	}
}

// everyRequest runs filters on the whole history before every request, as
// a per-request pipeline does, from the history as it was each time.
func everyRequest(steps ...func(*transcript.Transcript)) func(*testing.T, session) replay.Policy {
	return func(t *testing.T, s session) replay.Policy {
		return func(tr *transcript.Transcript) replay.Advance {
			raw := stats.Count(tr, counter())
			sent := make([]int, len(tr.Messages))
			for i, m := range tr.Messages {
				sent[i] = raw.Message(m)
			}
			return func(n int, changed func(replay.Change)) {
				pt, err := transcript.Parse(transcripttest.Prefix(t, s.data, tr, n), transcript.Options{Format: tr.Format})
				if err != nil {
					t.Fatal(err)
				}
				for _, step := range steps {
					step(pt)
					if pt, err = transcript.Parse(pt.Bytes(), transcript.Options{Format: tr.Format}); err != nil {
						t.Fatal(err)
					}
				}
				tl := stats.Count(pt, counter())
				input := func(c *transcript.Call) string { return pt.Calls[c.Index].Input }
				output := func(r *transcript.Result) string { return pt.Results[r.Index].Text() }
				for i, m := range pt.Messages {
					if k := tl.Message(m); k != sent[i] {
						sent[i] = k
						changed(replay.Change{Message: tr.Messages[i], Tokens: k, Input: input, Output: output})
					}
				}
			}
		}
	}
}

// epochs is the epoch rule of the issue: each time the history grows by
// every tokens, the results older than the last keep are summarized, once.
func epochs(every, keep int) func(*testing.T, session) replay.Policy {
	return func(t *testing.T, s session) replay.Policy {
		return func(tr *transcript.Transcript) replay.Advance {
			tl := stats.Count(tr, counter())
			sum := summarize.Rules{Cwd: tr.Cwd}
			done := make([]bool, len(tr.Results))
			summary := make([]*string, len(tr.Results))
			input := func(c *transcript.Call) string { return c.Input }
			output := func(r *transcript.Result) string {
				if s := summary[r.Index]; s != nil {
					return *s
				}
				return r.Text()
			}
			msg := make([]int, len(tr.Messages))
			for i, m := range tr.Messages {
				msg[i] = tl.Message(m)
			}
			taken, history, next := 0, 0, every
			var arrived []*transcript.Result
			return func(n int, changed func(replay.Change)) {
				for ; taken < n; taken++ {
					history += tl.Message(tr.Messages[taken])
					arrived = append(arrived, tr.Messages[taken].Results...)
				}
				if history < next {
					return
				}
				for next <= history {
					next += every
				}
				for _, r := range arrived[:max(0, len(arrived)-keep)] {
					c := r.Call
					if done[r.Index] || c == nil || r.Failed() || c.Kind == tools.Edit || c.Kind == tools.Write {
						continue
					}
					done[r.Index] = true
					if text, ok := sum.Summarize(c, r.Text()); ok {
						if k := counter().Count(text); k < tl.Results[r.Index] {
							msg[r.Message.Index] -= tl.Results[r.Index] - k
							summary[r.Index] = &text
							changed(replay.Change{Message: r.Message, Tokens: msg[r.Message.Index], Input: input, Output: output})
						}
					}
				}
			}
		}
	}
}

// step is a filter as a step of a pipeline.
func step[R filter.Report](f filter.Filter[R]) func(*transcript.Transcript) {
	return func(tr *transcript.Transcript) { f.Apply(tr) }
}

func candidates() []candidate {
	ctr := counter()
	dd, _ := dedupe.New(dedupe.Defaults(ctr))
	rules := truncate.DefaultRules()
	rules.Counter = ctr
	tc, _ := truncate.New(truncate.Options{Rules: rules})
	sm, _ := summarize.New(summarize.Defaults(ctr))
	first, _ := dedupe.New(dedupe.Options{Keep: dedupe.KeepFirst, Within: 2, MaxReads: dedupe.DefaultMaxReads, Counter: ctr})
	loop, _ := summarize.New(summarize.Options{Mode: summarize.ModeSummary, Loop: 3, Counter: ctr})
	never := 1 << 30
	return []candidate{
		{"ctx-dedupe | ctx-truncate | ctx-summarize, defaults, on every request", everyRequest(step(dd), step(tc), step(sm)), 0},
		{"each output cut once, on arrival (the hooks)", compacting(func(o *Options) { o.Window, o.Dedupe = never, false }), 0},
		{"every result older than the last 3 turns summarized", compacting(func(o *Options) {
			o.Window, o.Horizon, o.Cut, o.Dedupe, o.KeepEdits, o.KeepReads, o.KeepReferred = 3, 1000, nil, false, true, false, 0
		}), 0},
		{"epochs every 40k tokens, the last 5 results kept", epochs(40000, 5), 0},
		{"ctx-dedupe --keep first --within 2 | ctx-summarize --loop 3, on every request", everyRequest(step(first), step(loop)), 0},
		{"ctx-compact, edits left whole", compacting(func(o *Options) { o.KeepEdits = true }), 0},
		{"ctx-compact, window 2", compacting(func(o *Options) { o.Window = 2 }), 0},
		{"ctx-compact, horizon 1", compacting(func(o *Options) { o.Horizon = 1 }), 0},
		{"ctx-compact, nothing on arrival", compacting(func(o *Options) { o.Cut, o.Dedupe = nil, false }), 0},
		{"ctx-compact --mode clear (clears instead of summaries)", compacting(func(o *Options) { o.Summarizer = Clears(ctr) }), 0},
		{"ctx-compact (defaults)", compacting(nil), 0},
		{"ctx-compact (defaults), a 20,000-token prefix counted", compacting(nil), 20000},
	}
}

// frontier is the rows of docs/compact.md's table: no compaction, the old
// pipeline, clearing every result once used (as server-side clearing
// does), ctx-compact before it weighed what a result is worth, and its
// flags that move along the frontier.
func frontier() []candidate {
	ctr := counter()
	dd, _ := dedupe.New(dedupe.Defaults(ctr))
	rules := truncate.DefaultRules()
	rules.Counter = ctr
	tc, _ := truncate.New(truncate.Options{Rules: rules})
	sm, _ := summarize.New(summarize.Defaults(ctr))
	before := func(o *Options) { o.KeepReads, o.KeepReferred = false, 0 }
	return []candidate{
		{"none: the history as it was", nil, 0},
		{"ctx-dedupe \\| ctx-truncate \\| ctx-summarize on every request", everyRequest(step(dd), step(tc), step(sm)), 0},
		{"every result cleared once used (`--mode clear --replace-reads --keep-referred 0`)", compacting(func(o *Options) {
			before(o)
			o.Summarizer = Clears(ctr)
		}), 0},
		{"ctx-compact before (`--replace-reads --keep-referred 0`)", compacting(before), 0},
		{"`--replace-reads`", compacting(func(o *Options) { o.KeepReads = false }), 0},
		{"`--keep-referred 0`", compacting(func(o *Options) { o.KeepReferred = 0 }), 0},
		{"`--mode clear`", compacting(func(o *Options) { o.Summarizer = Clears(ctr) }), 0},
		{"**ctx-compact now (defaults)**", compacting(nil), 0},
		{"`--keep-referred 5000`", compacting(func(o *Options) { o.KeepReferred = 5000 }), 0},
	}
}

// frontierTable is a row a policy: on the sessions over 50k tokens, the
// bill in total as a ratio of no compaction, with the recalls, the share
// of the facts used that it hid in total and on the worst long Claude
// Code session, the worst session's bill with recalls, and the worst peak.
func frontierTable(t *testing.T, all []session) string {
	var b strings.Builder
	b.WriteString("| policy | cost | with recalls | hidden | worst Claude Code session hidden | worst session with recalls | worst peak |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range frontier() {
		var big []replay.Session
		worstHidden, worstRecall, peak := 0.0, 0.0, 0.0
		for _, s := range all {
			var p replay.Policy
			if c.policy != nil {
				p = c.policy(t, s)
			}
			r := s.replayed(p, c.prefix)
			if r.Tokens <= large {
				continue
			}
			big = append(big, r)
			if r.Format == string(transcript.ClaudeCode) {
				worstHidden = max(worstHidden, r.HiddenShare())
			}
			worstRecall, peak = max(worstRecall, r.RecallRatio()), max(peak, r.PeakRatio())
		}
		tot := replay.Total(big)
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.1f%% | %.1f%% | %.2f | %.2f |\n", c.name, tot.Ratio(), tot.RecallRatio(),
			100*tot.HiddenShare(), 100*worstHidden, worstRecall, peak)
	}
	return b.String()
}

// TestNumbers prints the tables of docs/performance.md, "Savings that show
// on the bill", measured on the corpus; run it with
//
//	CTX_NUMBERS=1 go test -run TestNumbers -v ./internal/compact/
func TestNumbers(t *testing.T) {
	if os.Getenv("CTX_NUMBERS") == "" {
		t.Skip("prints the docs' tables: CTX_NUMBERS=1")
	}
	all := sessions(t)
	var chosen []replay.Session
	for _, s := range all {
		chosen = append(chosen, s.replayed(compacting(nil)(t, s), 0))
	}
	fmt.Print("### ctx-compact with its defaults, session by session\n\n", sessionTable(chosen))
	fmt.Print("\n### The frontier\n\n", frontierTable(t, all))
	fmt.Print("\n### The candidates\n\n", candidateTable(t, all))
	fmt.Print("\n### What the sessions' own records say\n\n", recordedTable(all))
}

// recordedTable sets what a session's usage records say it cost
// (internal/usage, ctx-count --cost) beside the replay as it was, without
// a prefix and with one.
func recordedTable(all []session) string {
	var b strings.Builder
	b.WriteString("| session | requests recorded | cache read | cache written | output | recorded bill | replay as it was | with a 20,000-token prefix |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range all {
		recs := usage.Read(s.data, s.tr.Format)
		if len(recs) == 0 {
			continue
		}
		var tot usage.Total
		for _, r := range usage.Tally(recs, s.tr.Format, pricing.Default(), func(usage.Record) string { return "" }, nil) {
			tot = r.Total
		}
		tk := tot.Tokens
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | $%.3f | $%.3f | $%.3f |\n", s.name, textfmt.Int(tot.Requests),
			textfmt.Int(int(tk.CacheRead)), textfmt.Int(int(tk.CacheWrite+tk.CacheWrite1h)), textfmt.Int(int(tk.Output)),
			tot.Cost, s.replayed(nil, 0).AsIs.Cost, s.replayed(nil, 20000).AsIs.Cost)
	}
	return b.String()
}

// sessionTable is a row a session, then the totals.
func sessionTable(ss []replay.Session) string {
	var b strings.Builder
	b.WriteString("| session | model | tokens | requests | tokens sent | bill | ratio | input ratio | peak ratio | cache breaks | facts used | hidden | with recalls |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var big []replay.Session
	for _, s := range ss {
		name := s.File
		if s.Tokens > large {
			name = "**" + name + "**"
			big = append(big, s)
		}
		model := s.Model
		if !s.Known {
			if model == "" {
				model = "none named"
			}
			model += ", priced as " + pricing.DefaultModel(transcript.Format(s.Format))
		}
		b.WriteString(row(s, name, model))
	}
	b.WriteString(row(replay.Total(big), "total, sessions over 50k tokens", "", worstPeak(big)))
	b.WriteString(row(replay.Total(ss), "total, all sessions", "", worstPeak(ss)))
	return b.String()
}

// worstPeak is the largest peak ratio of sessions, for a total's row: the
// peak is each session's own.
func worstPeak(ss []replay.Session) float64 {
	w := 0.0
	for _, s := range ss {
		w = max(w, s.PeakRatio())
	}
	return w
}

func row(s replay.Session, name, model string, peak ...float64) string {
	c := s.Compacted
	p := fmt.Sprintf("%.2f", s.PeakRatio())
	if len(peak) > 0 {
		p = fmt.Sprintf("%.2f at most", peak[0])
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s → %s | $%.3f → $%.3f | %.2f | %.2f | %s | %d → %d | %s | %s (%.1f%%) | %.2f |\n",
		name, model, textfmt.Int(s.Tokens), textfmt.Int(s.AsIs.Requests), textfmt.Int(int(s.AsIs.Sent)), textfmt.Int(int(c.Sent)),
		s.AsIs.Cost, c.Cost, s.Ratio(), s.InputRatio(), p, s.AsIs.Breaks, c.Breaks,
		textfmt.Int(s.FactsUsed), textfmt.Int(c.Hidden), 100*s.HiddenShare(), s.RecallRatio())
}

// candidateTable is a row a candidate: its bill ratio on each session over
// 50k tokens, in total, the worst of the others, and its worst peak.
func candidateTable(t *testing.T, all []session) string {
	var big []session
	for _, s := range all {
		if s.replayed(nil, 0).Tokens > large {
			big = append(big, s)
		}
	}
	var b strings.Builder
	b.WriteString("| policy |")
	for _, s := range big {
		b.WriteString(" " + s.name + " |")
	}
	b.WriteString(" total | worst other | worst peak |\n|---|")
	b.WriteString(strings.Repeat("---:|", len(big)+3) + "\n")
	for _, c := range candidates() {
		var bigs []replay.Session
		peak, worst := 0.0, 0.0
		b.WriteString("| " + strings.ReplaceAll(c.name, "|", `\|`) + " |")
		for _, s := range all {
			r := s.replayed(c.policy(t, s), c.prefix)
			if r.Tokens > large {
				bigs = append(bigs, r)
				peak = max(peak, r.PeakRatio())
				fmt.Fprintf(&b, " %.2f |", r.Ratio())
			} else {
				worst = max(worst, r.Ratio())
			}
		}
		fmt.Fprintf(&b, " **%.2f** | %.2f | %.2f |\n", replay.Total(bigs).Ratio(), worst, peak)
	}
	return b.String()
}
