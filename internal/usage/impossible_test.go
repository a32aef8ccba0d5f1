package usage

import (
	"math"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/pricing"
)

// TestImpossibleCounts: a request whose usage holds a count no request can
// have (below 0, with a fraction, over MaxTokens, too large for a number)
// is left out of every total and counted apart, in each format; the others
// add up as they are. The APIs' own readers, which the proxy uses, give 0
// for such a count, never a negative or a wrapped one.
func TestImpossibleCounts(t *testing.T) {
	line := func(id, usage string) string {
		return `{"type":"assistant","sessionId":"s1","requestId":"` + id + `","message":{"id":"` + id + `","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"a"}],"usage":` + usage + "}}\n"
	}
	claude := line("good", `{"input_tokens":3,"output_tokens":10}`) +
		line("negative", `{"input_tokens":-1000000,"output_tokens":10}`) +
		line("huge", `{"input_tokens":3,"output_tokens":1e308}`) +
		line("wraps", `{"input_tokens":3,"cache_read_input_tokens":18446744073709551616,"output_tokens":10}`) +
		line("fraction", `{"input_tokens":3,"cache_creation_input_tokens":2.5,"output_tokens":10}`) +
		line("hour", `{"input_tokens":3,"cache_creation_input_tokens":10,"cache_creation":{"ephemeral_1h_input_tokens":-5},"output_tokens":10}`) +
		line("integral", `{"input_tokens":3.0,"output_tokens":1e1}`)
	codex := `{"timestamp":"2026-05-11T10:00:00Z","type":"session_meta","payload":{"id":"019e","cwd":"/p"}}
{"timestamp":"2026-05-11T10:00:01Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5-codex"}}
{"timestamp":"2026-05-11T10:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50}}}}
{"timestamp":"2026-05-11T10:00:05Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1000,"cached_input_tokens":-900,"output_tokens":50}}}}
{"timestamp":"2026-05-11T10:00:06Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":5000000000}}}}
`
	chat := `{"info":{},"messages":[{"role":"user","content":"u"},
{"role":"assistant","content":"a","extra":{"response":{"id":"r1","model":"deepseek-chat","usage":{"completion_tokens":115,"prompt_tokens":1835}}}},
{"role":"assistant","content":"a","extra":{"response":{"id":"r2","model":"deepseek-chat","usage":{"completion_tokens":-115,"prompt_tokens":1835}}}}]}`
	for _, c := range []struct {
		name          string
		in            string
		good, skipped int
		tokens        pricing.Tokens
	}{
		{"claude-code", claude, 2, 5, pricing.Tokens{Input: 6, Output: 20}},
		{"codex", codex, 1, 2, pricing.Tokens{Input: 1000, Output: 50}},
		{"chat", chat, 1, 1, pricing.Tokens{Input: 1835, Output: 115}},
	} {
		recs, f := read(t, c.in)
		rows := Tally(recs, f, pricing.Default(), ByModel, map[string]bool{})
		var total Total
		for _, r := range rows {
			total.Plus(r.Total)
		}
		if total.Requests != c.good || total.Skipped != c.skipped || total.Tokens != c.tokens || total.Cost < 0 || total.Cost > 1 {
			t.Errorf("%s: %d requests, %d skipped, %+v, $%v; want %d, %d, %+v", c.name, total.Requests, total.Skipped, total.Tokens, total.Cost, c.good, c.skipped, c.tokens)
		}
		if HourCache(recs) {
			t.Errorf("%s: an impossible count of hour-long writes made the cache an hour's", c.name)
		}
	}

	v := func(s string) jsonscan.Value { return jsonscan.Parse(s, 0) }
	for _, u := range []string{`-5`, `1e308`, `18446744073709551616`, `2.5`, `-0.5`, `1e9999`} {
		in := strings.ReplaceAll(`{"input_tokens":X,"cache_creation_input_tokens":X,"cache_read_input_tokens":X,"output_tokens":X,"prompt_tokens":X,"completion_tokens":X,"input_tokens_details":{"cached_tokens":X},"output_tokens_details":{"reasoning_tokens":X}}`, "X", u)
		a := Anthropic(v(in), pricing.Tokens{})
		c := Chat(v(in))
		r, reasoning := Responses(v(in))
		if a != (pricing.Tokens{}) || c != (pricing.Tokens{}) || r != (pricing.Tokens{}) || reasoning != 0 {
			t.Errorf("counts of %s: Anthropic %+v, Chat %+v, Responses %+v and %d reasoning; want zeros", u, a, c, r, reasoning)
		}
	}
}

// TestSaturatingSums: totals stop at the largest count rather than wrap.
func TestSaturatingSums(t *testing.T) {
	big := pricing.Tokens{Input: math.MaxInt64 - 1, Output: math.MaxInt64}
	big.Add(pricing.Tokens{Input: 5, Output: 1, CacheRead: 7})
	if want := (pricing.Tokens{Input: math.MaxInt64, Output: math.MaxInt64, CacheRead: 7}); big != want {
		t.Errorf("%+v, want %+v", big, want)
	}
	tot := Total{Reasoning: math.MaxInt64}
	tot.Plus(Total{Reasoning: 1, Requests: 1})
	if tot.Reasoning != math.MaxInt64 {
		t.Errorf("reasoning %d wrapped", tot.Reasoning)
	}
}
