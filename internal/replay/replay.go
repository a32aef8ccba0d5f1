// Package replay replays a session request by request and prices it with
// the prompt cache counted: what the session cost as it was sent, and what
// it would have cost with a compaction policy in the loop.
//
// Request k sends everything before the k-th model turn (the assistant's
// k-th response; in Claude Code one response spans several lines sharing
// its message id). The API reads from its cache the longest common prefix
// of a request with the one before it, at message granularity (a changed
// message breaks the cache from its start), and writes the rest; the
// output is the turn's own tokens. After an agent's own compaction
// (transcript.Message.Restart) the history sent starts again there.
//
// What the transcript lacks is not counted unless said: the fixed prefix
// an agent sends before the history (system prompt, tool definitions) is
// Options.Prefix tokens, read from the cache on every request but the
// first; the cache never expires between requests; a provider's minimum
// cacheable size is not modelled. Anthropic's cache is coarser than the
// longest common prefix (it hits at the previous requests' breakpoints,
// within 20 blocks), so a change far back costs it more than this model
// says; the policies measured here change messages near the end of the
// history or in rare steps, where the two agree. Output is in the cost,
// the same in both runs: the ratio is of the bill, not of input alone
// (Session.InputRatio gives that).
package replay

import (
	"encoding/json"
	"strings"

	"github.com/ctxkit/ctxkit/internal/fenwick"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Advance takes the history up to message n (exclusive; n grows from call
// to call) and calls changed for each message whose tokens differ from
// those it had at the last call (at the first call, from the
// transcript's), with the tokens it is sent in now. A compaction policy in
// the loop provides one per session (Policy).
type Advance func(n int, changed func(m *transcript.Message, tokens int))

// Policy starts a compaction policy on a session. Nil sends the history as
// it was.
type Policy func(t *transcript.Transcript) Advance

// Options say how a replay prices a session.
type Options struct {
	Counter tokens.Counter
	Prices  *pricing.Table
	// Model prices every request as this model; "" prices each request as
	// the model that answered it, as the transcript says, else the
	// format's default (pricing.DefaultModel).
	Model string
	// Prefix is the tokens an agent sends before the history on every
	// request, which the transcript does not hold: system prompt, tool
	// definitions. It is written on the first request and read after.
	Prefix int
	// HourCache prices cache writes as Anthropic's 1-hour writes (2x
	// input), as Claude Code makes them; else the 5-minute writes (1.25x),
	// or input where a provider has no write premium. HourCache tells it
	// from a session's own records.
	HourCache bool
	// Trace, when set, is given each request of each run, in order: those
	// sent as it was, then (compacted) those sent with the policy.
	Trace func(compacted bool, s Step)
}

// Step is one request of a run.
type Step struct {
	Turn   int            // the turn it asked for, from 0
	Tokens pricing.Tokens // by how they are billed: cache reads and writes, output
	Cost   float64
	// Break says it read less from the cache than the request before it
	// sent (Run.Breaks).
	Break bool
}

// Run is one way of sending a session: as it was, or compacted.
type Run struct {
	Requests int `json:"requests"`
	// Sent is the prompt tokens of all requests, the prefix included.
	Sent   int64          `json:"tokens_sent"`
	Tokens pricing.Tokens `json:"tokens"` // by how they are billed: cache reads and writes, output
	Cost   float64        `json:"cost_usd"`
	// InputCost is the cost of the prompt tokens alone.
	InputCost float64 `json:"input_cost_usd"`
	Peak      int     `json:"peak_context"` // the largest prompt
	// Breaks counts the requests that read less from the cache than the
	// request before them sent: a message sent before was changed (or the
	// agent compacted its history).
	Breaks int `json:"cache_breaks"`
}

// Session is the replay of one session, as it was and compacted.
type Session struct {
	File   string `json:"file,omitempty"`
	Format string `json:"format"`
	// Model is the model that answered most requests, as the transcript
	// names it ("" when it names none); Known says the price table knows
	// it, else it was priced as the format's default
	// (pricing.DefaultModel).
	Model string `json:"model,omitempty"`
	Known bool   `json:"model_known"`
	// Tokens is the whole history's tokens, as ctx-count counts them.
	Tokens    int  `json:"history_tokens"`
	AsIs      Run  `json:"as_is"`
	Compacted *Run `json:"compacted,omitempty"`
}

// MarshalJSON writes the session with its ratios, compacted over as it
// was, when it has a compacted run.
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session // without this method
	type ratios struct {
		Cost      float64 `json:"cost"`
		InputCost float64 `json:"input_cost"`
		Sent      float64 `json:"tokens_sent"`
		Peak      float64 `json:"peak_context"`
	}
	out := struct {
		plain
		Ratios *ratios `json:"ratios,omitempty"`
	}{plain: plain(s)}
	if s.Compacted != nil {
		out.Ratios = &ratios{Cost: s.Ratio(), InputCost: s.InputRatio(), Sent: s.SentRatio(), Peak: s.PeakRatio()}
	}
	return json.Marshal(out)
}

// Ratio is the compacted run's cost over the cost as it was (1 without a
// compacted run, or without cost).
func (s Session) Ratio() float64 {
	if s.Compacted == nil || s.AsIs.Cost == 0 {
		return 1
	}
	return s.Compacted.Cost / s.AsIs.Cost
}

// InputRatio is Ratio of the prompt tokens' cost alone.
func (s Session) InputRatio() float64 {
	if s.Compacted == nil || s.AsIs.InputCost == 0 {
		return 1
	}
	return s.Compacted.InputCost / s.AsIs.InputCost
}

// PeakRatio is the compacted run's largest prompt over the largest as it
// was.
func (s Session) PeakRatio() float64 {
	if s.Compacted == nil || s.AsIs.Peak == 0 {
		return 1
	}
	return float64(s.Compacted.Peak) / float64(s.AsIs.Peak)
}

// SentRatio is the compacted run's prompt tokens over those as it was.
func (s Session) SentRatio() float64 {
	if s.Compacted == nil || s.AsIs.Sent == 0 {
		return 1
	}
	return float64(s.Compacted.Sent) / float64(s.AsIs.Sent)
}

// Add adds a run to the total r.
func (r *Run) Add(o Run) {
	r.Requests += o.Requests
	r.Sent += o.Sent
	r.Tokens.Add(o.Tokens)
	r.Cost += o.Cost
	r.InputCost += o.InputCost
	r.Peak = max(r.Peak, o.Peak)
	r.Breaks += o.Breaks
}

// Total adds up sessions: the cost and tokens of all, the largest peak.
// A session without a compacted run counts as sent as it was.
func Total(sessions []Session) Session {
	tot := Session{Format: "total", Compacted: &Run{}}
	for _, s := range sessions {
		tot.Tokens += s.Tokens
		tot.AsIs.Add(s.AsIs)
		if s.Compacted != nil {
			tot.Compacted.Add(*s.Compacted)
		} else {
			tot.Compacted.Add(s.AsIs)
		}
	}
	return tot
}

// Replay replays t as it was and, with a policy, compacted by it.
func Replay(t *transcript.Transcript, p Policy, opts Options) Session {
	tl := stats.Count(t, opts.Counter)
	turns := t.Turns()
	s := Session{Format: string(t.Format), Tokens: tl.Tokens()}
	pr := newPricer(t, turns, opts)
	// The model's name is a view of the transcript's bytes: a copy lets a
	// report of many sessions keep none of them.
	s.Model, s.Known = strings.Clone(pr.model), pr.known
	s.AsIs = run(t, tl, turns, nil, pr, opts, trace(opts.Trace, false))
	if p != nil {
		c := run(t, tl, turns, p(t), pr, opts, trace(opts.Trace, true))
		s.Compacted = &c
	}
	return s
}

// trace is Options.Trace for one run, nil without it.
func trace(fn func(bool, Step), compacted bool) func(Step) {
	if fn == nil {
		return nil
	}
	return func(s Step) { fn(compacted, s) }
}

// pricer prices each turn's request.
type pricer struct {
	prices []pricing.Price // by turn
	model  string
	known  bool
	hour   bool
}

func newPricer(t *transcript.Transcript, turns []transcript.Turn, opts Options) pricer {
	pr := pricer{prices: make([]pricing.Price, len(turns)), hour: opts.HourCache}
	count := map[string]int{}
	knownOf := map[string]bool{}
	for i, tn := range turns {
		model := opts.Model
		if model == "" {
			model = t.Messages[tn.Messages[0]].Model
		}
		p, known := opts.Prices.For(model, t.Format)
		pr.prices[i] = p
		name := model // "" when the transcript names none
		count[name]++
		knownOf[name] = known
	}
	for name, n := range count {
		if n > count[pr.model] || n == count[pr.model] && name < pr.model {
			pr.model = name
		}
	}
	pr.known = knownOf[pr.model]
	if len(turns) == 0 {
		_, pr.known = opts.Prices.For(opts.Model, t.Format)
		pr.model = opts.Model
	}
	return pr
}

// cost prices one request of turn i.
func (pr pricer) cost(i int, tk pricing.Tokens) (total, input float64) {
	r := pr.prices[i].RatesFor(tk.Prompt())
	total = r.Cost(tk)
	return total, total - float64(tk.Output)*r.Output/1e6
}

// run replays the requests of one way of sending t: with adv nil, as it
// was.
func run(t *transcript.Transcript, tl stats.Tally, turns []transcript.Turn, adv Advance, pr pricer, opts Options, each func(Step)) Run {
	msgTokens := make([]int, len(t.Messages))
	for i, m := range t.Messages {
		msgTokens[i] = tl.Message(m)
	}
	sums := fenwick.New(msgTokens)
	var r Run
	prefix := int64(opts.Prefix)
	prevStart, prevEnd := 0, 0
	for k, tn := range turns {
		start, end := tn.Start, tn.Messages[0]
		first := len(t.Messages) // the first message sent before whose text changes now
		if adv != nil {
			adv(end, func(m *transcript.Message, tokens int) {
				sums.Add(m.Index, tokens-msgTokens[m.Index])
				msgTokens[m.Index] = tokens
				first = min(first, m.Index)
			})
		}
		total := int64(sums.Sum(start, end))
		var read int64
		broke := false
		switch {
		case k == 0:
		case start != prevStart: // the agent compacted: only the prefix is as before
			read, broke = prefix, true
		default:
			lcp := max(start, min(first, prevEnd))
			read = prefix + int64(sums.Sum(start, lcp))
			broke = lcp < prevEnd
		}
		if broke {
			r.Breaks++
		}
		prompt := prefix + total
		output := int64(turnTokens(tl, t, tn))
		tk := pricing.Tokens{CacheRead: read, CacheWrite: prompt - read, Output: output}
		if pr.hour {
			tk.CacheWrite, tk.CacheWrite1h = 0, prompt-read
		}
		cost, input := pr.cost(k, tk)
		if each != nil {
			each(Step{Turn: k, Tokens: tk, Cost: cost, Break: broke})
		}
		r.Requests++
		r.Sent += prompt
		r.Tokens.Add(tk)
		r.Cost += cost
		r.InputCost += input
		r.Peak = max(r.Peak, int(prompt))
		prevStart, prevEnd = start, end
	}
	return r
}

// turnTokens is a turn's output: its messages' tokens.
func turnTokens(tl stats.Tally, t *transcript.Transcript, tn transcript.Turn) int {
	n := 0
	for _, i := range tn.Messages {
		n += tl.Message(t.Messages[i])
	}
	return n
}
