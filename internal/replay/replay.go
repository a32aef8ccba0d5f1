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
//
// A replay prices the session as the agent ran it; an agent that lost
// something it needed would not run the same way. So each run also counts
// the facts the model used that its requests no longer showed
// (internal/facts: names, paths, numbers the model wrote in a turn that it
// could only have had from a tool result), and prices getting them back:
// for each result that showed a hidden fact, one more request that reads
// the context from the cache and writes the result again (Run.Recalls).
package replay

import (
	"encoding/json"
	"strings"

	"github.com/ctxkit/ctxkit/internal/facts"
	"github.com/ctxkit/ctxkit/internal/fenwick"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Advance takes the history up to message n (exclusive; n grows from call
// to call) and calls changed for each message whose form differs from the
// one it had at the last call (at the first call, from the transcript's),
// with the form it is sent in now. A compaction policy in the loop
// provides one per session (Policy).
type Advance func(n int, changed func(Change))

// Change is a message that a policy sends in a new form from the current
// request on: its tokens, and the texts its calls' arguments and its
// results are sent in (a policy changes those, never a message's own
// text).
type Change struct {
	Message *transcript.Message
	Tokens  int
	Input   func(*transcript.Call) string
	Output  func(*transcript.Result) string
}

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
	// Hidden counts the facts the model used (Session.FactsUsed) that the
	// request for their turn did not show.
	Hidden int `json:"facts_hidden"`
	// Recalls counts the results that showed a hidden fact, each fetched
	// back once by a request of its own that reads the context from the
	// cache and writes the result; RecallCost is what those requests cost,
	// WithRecalls the run's cost with them.
	Recalls     int     `json:"recalls"`
	RecallCost  float64 `json:"recall_cost_usd"`
	WithRecalls float64 `json:"cost_with_recalls_usd"`
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
	Tokens int `json:"history_tokens"`
	// FactsUsed counts the facts the model used that it could only have
	// had from a tool result, turn by turn (a fact used in two turns
	// counts twice): internal/facts.
	FactsUsed int  `json:"facts_used"`
	AsIs      Run  `json:"as_is"`
	Compacted *Run `json:"compacted,omitempty"`
}

// MarshalJSON writes the session with its ratios, compacted over as it
// was, when it has a compacted run.
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session // without this method
	type ratios struct {
		Cost        float64 `json:"cost"`
		WithRecalls float64 `json:"cost_with_recalls"`
		InputCost   float64 `json:"input_cost"`
		Sent        float64 `json:"tokens_sent"`
		Peak        float64 `json:"peak_context"`
	}
	out := struct {
		plain
		Share  float64 `json:"facts_hidden_share"`
		Ratios *ratios `json:"ratios,omitempty"`
	}{plain: plain(s), Share: s.HiddenShare()}
	if s.Compacted != nil {
		out.Ratios = &ratios{Cost: s.Ratio(), WithRecalls: s.RecallRatio(), InputCost: s.InputRatio(), Sent: s.SentRatio(), Peak: s.PeakRatio()}
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

// RecallRatio is Ratio with recalls: the compacted run's cost with the
// requests that fetch back what it hid, over the cost as it was (with
// its own, if it hid anything).
func (s Session) RecallRatio() float64 {
	if s.Compacted == nil || s.AsIs.WithRecalls == 0 {
		return 1
	}
	return s.Compacted.WithRecalls / s.AsIs.WithRecalls
}

// HiddenShare is the share of the facts the model used that the
// compacted run's requests did not show (the run as it was, without one).
func (s Session) HiddenShare() float64 {
	r := s.AsIs
	if s.Compacted != nil {
		r = *s.Compacted
	}
	if s.FactsUsed == 0 {
		return 0
	}
	return float64(r.Hidden) / float64(s.FactsUsed)
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
	r.Hidden += o.Hidden
	r.Recalls += o.Recalls
	r.RecallCost += o.RecallCost
	r.WithRecalls += o.WithRecalls
}

// Total adds up sessions: the cost and tokens of all, the largest peak.
// A session without a compacted run counts as sent as it was.
func Total(sessions []Session) Session {
	tot := Session{Format: "total", Compacted: &Run{}}
	for _, s := range sessions {
		tot.Tokens += s.Tokens
		tot.FactsUsed += s.FactsUsed
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
	fs := facts.Analyze(t, turns)
	for k := range turns {
		s.FactsUsed += len(fs.Uses(k))
	}
	x := replayer{t: t, tl: tl, turns: turns, pr: pr, opts: opts, facts: fs}
	s.AsIs = x.run(nil, trace(opts.Trace, false))
	if p != nil {
		c := x.run(p(t), trace(opts.Trace, true))
		s.Compacted = &c
	}
	return s
}

// replayer is what both runs of a session share.
type replayer struct {
	t     *transcript.Transcript
	tl    stats.Tally
	turns []transcript.Turn
	pr    pricer
	opts  Options
	facts *facts.Session
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

// tokens are a request's tokens by how they are billed: read from the
// cache, written to it (for an hour where the session's cache lives
// that long), and output.
func (pr pricer) tokens(read, written, output int64) pricing.Tokens {
	if pr.hour {
		return pricing.Tokens{CacheRead: read, CacheWrite1h: written, Output: output}
	}
	return pricing.Tokens{CacheRead: read, CacheWrite: written, Output: output}
}

// cost prices one request of turn i.
func (pr pricer) cost(i int, tk pricing.Tokens) (total, input float64) {
	r := pr.prices[i].RatesFor(tk.Prompt())
	total = r.Cost(tk)
	return total, total - float64(tk.Output)*r.Output/1e6
}

// run replays the requests of one way of sending the session: with adv
// nil, as it was.
func (x replayer) run(adv Advance, each func(Step)) Run {
	t, tl, pr := x.t, x.tl, x.pr
	msgTokens := make([]int, len(t.Messages))
	for i, m := range t.Messages {
		msgTokens[i] = tl.Message(m)
	}
	sums := fenwick.New(msgTokens)
	shown := x.facts.Window(t)
	recalled := make([]bool, len(t.Results))
	var r Run
	prefix := int64(x.opts.Prefix)
	prevStart, prevEnd := 0, 0
	for k, tn := range x.turns {
		start, end := tn.Start, tn.Messages[0]
		first := len(t.Messages) // the first message sent before whose text changes now
		if adv != nil {
			adv(end, func(c Change) {
				i := c.Message.Index
				sums.Add(i, c.Tokens-msgTokens[i])
				msgTokens[i] = c.Tokens
				first = min(first, i)
				shown.Send(c.Message, x.facts.Sent(c.Message, c.Input, c.Output))
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
		tk := pr.tokens(read, prompt-read, output)
		cost, input := pr.cost(k, tk)
		if each != nil {
			each(Step{Turn: k, Tokens: tk, Cost: cost, Break: broke})
		}
		shown.Span(start, end)
		for _, u := range x.facts.Uses(k) {
			if shown.ShowsUse(u) {
				continue
			}
			r.Hidden++
			if i := u.Source.Index; !recalled[i] {
				recalled[i] = true
				r.Recalls++
				c, _ := pr.cost(k, pr.tokens(prompt, int64(tl.Results[i]), 0))
				r.RecallCost += c
			}
		}
		r.Requests++
		r.Sent += prompt
		r.Tokens.Add(tk)
		r.Cost += cost
		r.InputCost += input
		r.Peak = max(r.Peak, int(prompt))
		prevStart, prevEnd = start, end
	}
	r.WithRecalls = r.Cost + r.RecallCost
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
