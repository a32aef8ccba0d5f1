// Package usage reads what a session cost from its own records: the usage
// the API returned for each request, as the agent kept it. Claude Code
// keeps Anthropic's usage on every assistant line (message.usage: input,
// cache writes for 5 minutes and an hour, cache reads, output); Codex
// writes token_count events (input with its cached part, output with its
// reasoning part); mini-swe-agent keeps each Chat Completions response's
// usage (extra.response.usage). Each request counts once, with the model
// that answered it, its time, its session and project, so that a report
// can price it (internal/pricing) and group it by day, project, session
// or model, as ccusage does. Where the agent also wrote what it reckoned a
// request cost, by its own prices (mini-swe-agent's extra.cost, Claude
// Code's costUSD), the record keeps it beside the tokens; a format that
// keeps only a session's totals (SWE-agent's, and mini-swe-agent's before
// it kept responses: info.model_stats) gives one record for all of its
// requests. The usage objects of the APIs' own responses
// (Anthropic, Chat, Responses) are read here too, for the records above
// and for ctx-proxy, which reads them from the responses it passes on.
package usage

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Record is one API request's usage, or all of a session's requests' where
// a format keeps only their totals (Requests).
type Record struct {
	// ID tells the request apart from the others, where the format gives
	// it (Claude Code's message id and request id): a session resumed in a
	// new file repeats the records of the old one, which a report over
	// many files counts once.
	ID      string
	Time    time.Time // zero when the transcript gives none
	Model   string    // as the transcript spells it; "" when it names none
	Session string    // the session's id, where the transcript gives it
	Project string    // the session's working directory, where the transcript gives it
	Tokens  pricing.Tokens
	// Reasoning is the part of Tokens.Output the model spent reasoning,
	// where the format says (Codex); it is not billed again.
	Reasoning int64
	// Impossible says the usage holds a count that no request can have
	// (below 0, with a fraction, over MaxTokens): the record is left out
	// of totals, and counted apart (Total.Skipped). Its impossible counts
	// read as 0.
	Impossible bool
	// Requests is how many requests the record stands for when it stands
	// for more than one (a session's totals); 0 is one.
	Requests int
	// RecordedCost is what the agent wrote that the requests cost, in
	// dollars, priced by its own table when it ran them, where
	// CostRecorded says it wrote one.
	RecordedCost float64
	CostRecorded bool
}

// MaxTokens is the most tokens one count of one request can be: a
// thousand times the longest context a model reads. A count over it,
// below 0 or with a fraction is impossible (a file edited by hand, a
// proxy's bug), and pricing it would give a negative cost or wrap a total.
const MaxTokens = 1_000_000_000

// maxRunning is the most a running total of a session's tokens (Codex's
// total_token_usage) can be: what a float64 holds exactly.
const maxRunning = 1 << 53

// Read returns the usage records of a transcript's bytes, in format f (as
// transcript.Parse found it), in the order of the requests. Formats and
// files without usage give none. data must be valid (transcript.Parse
// checked it).
func Read(data []byte, f transcript.Format) []Record {
	// Read without a copy of what may be a hundred megabytes; the records
	// keep copies of their strings, not views of data (own), so that they
	// outlive it.
	s := unsafe.String(unsafe.SliceData(data), len(data))
	var recs []Record
	switch f {
	case transcript.ClaudeCode:
		recs = claudeCode(s)
	case transcript.Codex:
		recs = codex(s)
	case transcript.OpenAI:
		recs = chatCompletions(s)
	case transcript.SWEAgent:
		recs = modelStats(jsonscan.Parse(strings.TrimSpace(s), 0))
	}
	for i := range recs {
		r := &recs[i]
		r.ID, r.Model, r.Session, r.Project = strings.Clone(r.ID), strings.Clone(r.Model), strings.Clone(r.Session), strings.Clone(r.Project)
	}
	return recs
}

// lines calls fn with each non-blank line of JSONL that holds one of the
// words, as a value. The records are a few small lines among the large ones
// of tool outputs: looking for a word first spares reading the others'
// fields.
func lines(s string, words []string, fn func(v jsonscan.Value)) {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line == "" || line[0] != '{' {
			continue
		}
		for _, w := range words {
			if strings.Contains(line, w) {
				fn(jsonscan.Value{Raw: line})
				break
			}
		}
	}
}

// counts reads the token counts of a usage object, and notes one that
// cannot be. A nil *counts reads them alike and notes nothing.
type counts struct{ impossible bool }

// n is a count of tokens: 0 where the field is absent or not a number,
// and 0, noted, where it is impossible (over MaxTokens).
func (c *counts) n(v jsonscan.Value) int64 { return c.upTo(v, MaxTokens) }

// upTo is n for a count that may be as large as limit.
func (c *counts) upTo(v jsonscan.Value, limit int64) int64 {
	if !v.IsNumber() {
		return 0
	}
	if n, ok := count(v.Raw, limit); ok {
		return n
	}
	if c != nil {
		c.impossible = true
	}
	return 0
}

// count reads a JSON number that must be a whole number from 0 to limit:
// 12, and also 12.0 or 1.2e1, as some encoders write them.
func count(raw string, limit int64) (int64, bool) {
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, n >= 0 && n <= limit
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f < 0 || f > float64(limit) || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// dollars is an amount the agent recorded, and whether it did: a number
// of dollars, not negative.
func dollars(v jsonscan.Value) (float64, bool) {
	if !v.IsNumber() {
		return 0, false
	}
	x, err := strconv.ParseFloat(v.Raw, 64)
	// No session costs a billion dollars: more is a broken record, whose
	// sum would lose every other.
	if err != nil || x < 0 || x >= 1e9 {
		return 0, false
	}
	return x, true
}

// claudeCode reads message.usage from Claude Code's assistant lines. One
// response is written over several lines sharing message.id and
// requestId, each with the response's usage, the output tokens counted so
// far: the last line of a response has its usage. Versions before 1.0.9
// also wrote the response's cost (costUSD).
func claudeCode(s string) []Record {
	var out []Record
	at := map[string]int{} // the record of each response
	lines(s, []string{`"assistant"`}, func(v jsonscan.Value) {
		f := v.Fields("type", "message", "requestId", "timestamp", "sessionId", "cwd", "costUSD")
		if f[0].Str() != "assistant" {
			return
		}
		m := f[1].Fields("id", "model", "usage")
		u := m[2]
		model := m[1].Str()
		if !u.IsObject() || strings.HasPrefix(model, "<") { // <synthetic>: no request was made
			return
		}
		var c counts
		r := Record{Time: transcript.Stamp(f[3]), Model: model, Session: f[4].Str(), Project: f[5].Str(), Tokens: anthropic(u, pricing.Tokens{}, &c)}
		r.Impossible = c.impossible
		r.RecordedCost, r.CostRecorded = dollars(f[6])
		if id, req := m[0].Str(), f[2].Str(); id != "" || req != "" {
			r.ID = id + ":" + req
		}
		if i, ok := at[r.ID]; ok && r.ID != "" {
			r.Time = out[i].Time // the response's time is its first line's
			out[i] = r
			return
		}
		at[r.ID] = len(out)
		out = append(out, r)
	})
	return out
}

// Anthropic reads a Messages API usage object (a response's usage, a
// stream's message_start and message_delta usage): input, cache writes
// for 5 minutes and an hour (cache_creation splits them; without it they
// are 5-minute writes), cache reads, output. The fields it holds replace
// those of base, which it leaves as they are where it says nothing: a
// stream's message_delta carries the output and, in newer versions, the
// final counts of the rest. An impossible count reads as 0.
func Anthropic(u jsonscan.Value, base pricing.Tokens) pricing.Tokens { return anthropic(u, base, nil) }

func anthropic(u jsonscan.Value, base pricing.Tokens, c *counts) pricing.Tokens {
	f := u.Fields("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens", "cache_creation")
	tk := base
	if f[0].IsNumber() {
		tk.Input = c.n(f[0])
	}
	if f[1].IsNumber() {
		split := f[4].Fields("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
		writes := c.n(f[1])
		hour := min(c.n(split[1]), writes)
		tk.CacheWrite, tk.CacheWrite1h = writes-hour, hour
	}
	if f[2].IsNumber() {
		tk.CacheRead = c.n(f[2])
	}
	if f[3].IsNumber() {
		tk.Output = c.n(f[3])
	}
	return tk
}

// Chat reads a Chat Completions usage object: the prompt's tokens, their
// cached part (OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
// prompt_cache_hit_tokens), and the completion's. An impossible count
// reads as 0.
func Chat(u jsonscan.Value) pricing.Tokens { return chat(u, nil) }

func chat(u jsonscan.Value, c *counts) pricing.Tokens {
	f := u.Fields("prompt_tokens", "completion_tokens", "prompt_tokens_details", "prompt_cache_hit_tokens")
	prompt := c.n(f[0])
	cached := max(c.n(f[2].Get("cached_tokens")), c.n(f[3]))
	cached = min(cached, prompt)
	return pricing.Tokens{Input: prompt - cached, CacheRead: cached, Output: c.n(f[1])}
}

// Responses reads a Responses API usage object (a response's usage, a
// stream's response.completed): input with its cached part
// (input_tokens_details.cached_tokens), output with its reasoning part,
// which is returned apart and not billed again. An impossible count reads
// as 0.
func Responses(u jsonscan.Value) (tk pricing.Tokens, reasoning int64) {
	var c *counts // the proxy's alone: no record to mark
	f := u.Fields("input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details")
	input := c.n(f[0])
	cached := min(c.n(f[1].Get("cached_tokens")), input)
	return pricing.Tokens{Input: input - cached, CacheRead: cached, Output: c.n(f[2])}, c.n(f[3].Get("reasoning_tokens"))
}

// codexUsage is a token_count's usage: input (the cached part included),
// cached input, cache writes (GPT-5.6 and later), output (reasoning
// included) and reasoning.
type codexUsage struct{ input, cached, written, output, reasoning int64 }

// readCodexUsage reads a usage whose counts may be as large as limit; one
// that holds an impossible count is none (false), and noted in c.
func readCodexUsage(v jsonscan.Value, limit int64, c *counts) (codexUsage, bool) {
	if !v.IsObject() {
		return codexUsage{}, false
	}
	var own counts
	n := func(v jsonscan.Value) int64 { return own.upTo(v, limit) }
	f := v.Fields("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "cache_read_input_tokens")
	u := codexUsage{input: n(f[0]), cached: n(f[1]), written: n(f[2]), output: n(f[3]), reasoning: n(f[4])}
	if u.cached == 0 {
		u.cached = n(f[5])
	}
	if own.impossible {
		if c != nil {
			c.impossible = true
		}
		return codexUsage{}, false
	}
	return u, true
}

func (u codexUsage) minus(p codexUsage) codexUsage {
	return codexUsage{u.input - p.input, u.cached - p.cached, u.written - p.written, u.output - p.output, u.reasoning - p.reasoning}
}

func (u codexUsage) negative() bool {
	return u.input < 0 || u.cached < 0 || u.written < 0 || u.output < 0 || u.reasoning < 0
}

func (u codexUsage) zero() bool { return u == codexUsage{} }

// possible says whether each count of a request's usage can be.
func (u codexUsage) possible() bool {
	return max(u.input, u.cached, u.written, u.output, u.reasoning) <= MaxTokens
}

// codex reads Codex's token_count events. Each carries the session's
// running total and the last request's usage; the difference of the
// totals is the request's, so an event repeated with the same totals (as
// Codex writes them) counts once. Without totals, or when they go back
// (a new process), the last request's usage is taken. The model is the
// turn_context's before it.
func codex(s string) []Record {
	var out []Record
	var model, session, project string
	var prev codexUsage
	lines(s, []string{`"session_meta"`, `"turn_context"`, `"token_count"`}, func(v jsonscan.Value) {
		f := v.Fields("type", "payload", "timestamp")
		p := f[1]
		switch f[0].Str() {
		case "session_meta":
			pf := p.Fields("id", "cwd")
			session = pf[0].Str()
			if project == "" {
				project = pf[1].Str()
			}
		case "turn_context":
			pf := p.Fields("model", "cwd")
			if m := pf[0].Str(); m != "" {
				model = m
			}
			if project == "" {
				project = pf[1].Str()
			}
		case "event_msg":
			pf := p.Fields("type", "info")
			if pf[0].Str() != "token_count" || !pf[1].IsObject() {
				return
			}
			info := pf[1].Fields("total_token_usage", "last_token_usage", "model")
			u, impossible, ok := codexRequest(info[0], info[1], &prev)
			if !ok {
				return
			}
			if m := info[2].Str(); m != "" {
				model = m
			}
			read := min(u.cached, u.input)
			written := min(u.written, u.input-read)
			out = append(out, Record{Time: transcript.Stamp(f[2]), Model: model, Session: session, Project: project, Reasoning: u.reasoning,
				Tokens: pricing.Tokens{Input: u.input - read - written, CacheRead: read, CacheWrite: written, Output: u.output}, Impossible: impossible})
		}
	})
	return out
}

// codexRequest is the usage of the request that a token_count reports by
// the session's totals (prev: those before it, which it updates) or its
// last request's usage, and whether that cannot be; false when it reports
// no request. Totals that cannot be are passed over.
func codexRequest(totals, lastUsage jsonscan.Value, prev *codexUsage) (u codexUsage, impossible, ok bool) {
	var lastCounts counts
	total, hasTotal := readCodexUsage(totals, maxRunning, nil)
	last, hasLast := readCodexUsage(lastUsage, MaxTokens, &lastCounts)
	switch d := total.minus(*prev); {
	case hasTotal && !d.negative():
		u = d
	case hasLast:
		u = last
	case hasTotal:
		u = total // the totals started again: a new process, without its last request
	case lastCounts.impossible:
		impossible = true
	default:
		return codexUsage{}, false, false
	}
	if hasTotal {
		*prev = total
	}
	if !u.possible() {
		u, impossible = codexUsage{}, true
	}
	return u, impossible, impossible || !u.zero()
}

// chatCompletions reads the usage of each response that a mini-swe-agent
// trajectory keeps beside its assistant messages (extra.response; Chat),
// with the cost it reckoned (extra.cost); of a trajectory that keeps no
// response, its totals (modelStats).
func chatCompletions(s string) []Record {
	root := jsonscan.Parse(strings.TrimSpace(s), 0)
	if !root.IsObject() {
		return nil
	}
	var out []Record
	root.Get("messages").Each(func(m jsonscan.Value) bool {
		extra := m.Get("extra").Fields("response", "timestamp", "cost")
		rf := extra[0].Fields("usage", "model", "id")
		if !rf[0].IsObject() {
			return true
		}
		var c counts
		r := Record{ID: rf[2].Str(), Time: transcript.Stamp(extra[1]), Model: rf[1].Str(), Tokens: chat(rf[0], &c), Impossible: c.impossible}
		r.RecordedCost, r.CostRecorded = dollars(extra[2])
		out = append(out, r)
		return true
	})
	if len(out) == 0 {
		return modelStats(root)
	}
	return out
}

// modelStats reads the totals a trajectory keeps of its session
// (info.model_stats: SWE-agent's instance_cost, tokens_sent,
// tokens_received and api_calls; mini-swe-agent's instance_cost and
// api_calls) as one record of all its requests, by the model its
// configuration names. Every token sent counts as input: the totals do
// not say what the cache held.
func modelStats(root jsonscan.Value) []Record {
	st := root.Get("info").Get("model_stats")
	f := st.Fields("api_calls", "instance_cost", "tokens_sent", "tokens_received")
	var c counts
	calls := c.n(f[0])
	if calls <= 0 {
		return nil
	}
	// The totals of a session may exceed what one request can count.
	tk := pricing.Tokens{Input: c.upTo(f[2], maxRunning), Output: c.upTo(f[3], maxRunning)}
	r := Record{Requests: int(calls), Model: transcript.DocumentModel(root), Tokens: tk, Impossible: c.impossible}
	r.RecordedCost, r.CostRecorded = dollars(f[1])
	return []Record{r}
}
