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
	// Requests is how many requests the record stands for when it stands
	// for more than one (a session's totals); 0 is one.
	Requests int
	// RecordedCost is what the agent wrote that the requests cost, in
	// dollars, priced by its own table when it ran them, where
	// CostRecorded says it wrote one.
	RecordedCost float64
	CostRecorded bool
}

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

// n is a count of tokens, 0 where the field is not a number.
func n(v jsonscan.Value) int64 {
	if !v.IsNumber() {
		return 0
	}
	return int64(v.Int())
}

// dollars is an amount the agent recorded, and whether it did: a number
// of dollars, not negative.
func dollars(v jsonscan.Value) (float64, bool) {
	if !v.IsNumber() {
		return 0, false
	}
	x, err := strconv.ParseFloat(v.Raw, 64)
	return x, err == nil && x >= 0
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
		r := Record{Time: transcript.Stamp(f[3]), Model: model, Session: f[4].Str(), Project: f[5].Str(), Tokens: Anthropic(u, pricing.Tokens{})}
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
// final counts of the rest.
func Anthropic(u jsonscan.Value, base pricing.Tokens) pricing.Tokens {
	f := u.Fields("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens", "cache_creation")
	tk := base
	if f[0].IsNumber() {
		tk.Input = n(f[0])
	}
	if f[1].IsNumber() {
		split := f[4].Fields("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
		writes := n(f[1])
		hour := min(n(split[1]), writes)
		tk.CacheWrite, tk.CacheWrite1h = writes-hour, hour
	}
	if f[2].IsNumber() {
		tk.CacheRead = n(f[2])
	}
	if f[3].IsNumber() {
		tk.Output = n(f[3])
	}
	return tk
}

// Chat reads a Chat Completions usage object: the prompt's tokens, their
// cached part (OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
// prompt_cache_hit_tokens), and the completion's.
func Chat(u jsonscan.Value) pricing.Tokens {
	f := u.Fields("prompt_tokens", "completion_tokens", "prompt_tokens_details", "prompt_cache_hit_tokens")
	prompt := n(f[0])
	cached := max(n(f[2].Get("cached_tokens")), n(f[3]))
	cached = min(cached, prompt)
	return pricing.Tokens{Input: prompt - cached, CacheRead: cached, Output: n(f[1])}
}

// Responses reads a Responses API usage object (a response's usage, a
// stream's response.completed): input with its cached part
// (input_tokens_details.cached_tokens), output with its reasoning part,
// which is returned apart and not billed again.
func Responses(u jsonscan.Value) (tk pricing.Tokens, reasoning int64) {
	f := u.Fields("input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details")
	input := n(f[0])
	cached := min(n(f[1].Get("cached_tokens")), input)
	return pricing.Tokens{Input: input - cached, CacheRead: cached, Output: n(f[2])}, n(f[3].Get("reasoning_tokens"))
}

// codexUsage is a token_count's usage: input (the cached part included),
// cached input, cache writes (GPT-5.6 and later), output (reasoning
// included) and reasoning.
type codexUsage struct{ input, cached, written, output, reasoning int64 }

func readCodexUsage(v jsonscan.Value) (codexUsage, bool) {
	if !v.IsObject() {
		return codexUsage{}, false
	}
	f := v.Fields("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "cache_read_input_tokens")
	u := codexUsage{input: n(f[0]), cached: n(f[1]), written: n(f[2]), output: n(f[3]), reasoning: n(f[4])}
	if u.cached == 0 {
		u.cached = n(f[5])
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
			total, hasTotal := readCodexUsage(info[0])
			last, hasLast := readCodexUsage(info[1])
			var u codexUsage
			switch d := total.minus(prev); {
			case hasTotal && !d.negative():
				u = d
			case hasLast:
				u = last
			case hasTotal:
				u = total // the totals started again: a new process, without its last request
			default:
				return
			}
			if hasTotal {
				prev = total
			}
			if u.zero() {
				return
			}
			if m := info[2].Str(); m != "" {
				model = m
			}
			read := min(u.cached, u.input)
			written := min(u.written, u.input-read)
			out = append(out, Record{Time: transcript.Stamp(f[2]), Model: model, Session: session, Project: project, Reasoning: u.reasoning,
				Tokens: pricing.Tokens{Input: u.input - read - written, CacheRead: read, CacheWrite: written, Output: u.output}})
		}
	})
	return out
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
		r := Record{ID: rf[2].Str(), Time: transcript.Stamp(extra[1]), Model: rf[1].Str(), Tokens: Chat(rf[0])}
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
	calls := n(f[0])
	if calls <= 0 {
		return nil
	}
	r := Record{Requests: int(calls), Model: transcript.DocumentModel(root), Tokens: pricing.Tokens{Input: max(n(f[2]), 0), Output: max(n(f[3]), 0)}}
	r.RecordedCost, r.CostRecorded = dollars(f[1])
	return []Record{r}
}
