package pricing

import (
	"math"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestEmbedded: the embedded table parses, is dated, and its prices keep
// the providers' shape: a cache read costs less than input, a write at
// least input, an hour's write at least five minutes'; Anthropic's writes
// are 1.25x and 2x input.
func TestEmbedded(t *testing.T) {
	tb := Default()
	if tb.Date() == "" || !strings.Contains(strings.SplitN(string(embedded), "\n", 2)[0], tb.Date()) {
		t.Errorf("the table's first line gives no date (%q)", tb.Date())
	}
	if len(tb.rows) < 40 {
		t.Errorf("%d models in the table", len(tb.rows))
	}
	for name, p := range tb.rows {
		for _, r := range []*Rates{&p.Rates, p.Long} {
			if r == nil {
				continue
			}
			if r.CacheRead > r.Input || r.CacheWrite < r.Input || r.CacheWrite1h < r.CacheWrite || r.Output < r.Input || r.Input <= 0 {
				t.Errorf("%s: rates out of shape: %+v", name, *r)
			}
			// Claude 3 Haiku's 5-minute write is $0.30, 1.2x its input.
			if strings.HasPrefix(name, "claude") && (r.CacheWrite < 1.2*r.Input-1e-9 || r.CacheWrite > 1.25*r.Input+1e-9 || !near(r.CacheWrite1h, 2*r.Input)) {
				t.Errorf("%s: writes are not 1.25x and 2x input: %+v", name, *r)
			}
		}
		if p.Model != name {
			t.Errorf("row %s names itself %s", name, p.Model)
		}
	}
	for name, to := range tb.aliases {
		if _, ok := tb.rows[to]; !ok {
			t.Errorf("%s names %s, not in the table", name, to)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestLookup: names as transcripts, request bodies and other providers
// spell them find their rows; an unknown version finds nothing rather than
// an older price, and an unknown Claude model its family's.
func TestLookup(t *testing.T) {
	tb := Default()
	cases := []struct{ name, want string }{
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-opus-4-6", "claude-opus-4-6"},
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5"},
		{"claude-3-5-sonnet-20241022", "claude-3-5-sonnet"},
		{"anthropic/claude-opus-4-6", "claude-opus-4-6"},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"claude-opus-4-6[1m]", "claude-opus-4-6"},
		{"Claude-Opus-4-1-20250805", "claude-opus-4-1"},
		{"sonnet", "claude-sonnet-5-5"},
		{"haiku", "claude-haiku-5-5"},
		{"claude-opus-4-9", "claude-opus-5-5"}, // unknown version: the family's
		{"gpt-5-codex", "gpt-5"},
		{"gpt-5", "gpt-5"},
		{"gpt-5-2025-08-07", "gpt-5"},
		{"gpt-5.1-codex-max", "gpt-5.1"},
		{"gpt-5.1-codex-mini", "gpt-5.1-codex-mini"},
		{"gpt-5.4-mini", "gpt-5.4-mini"},
		{"openai/gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-4.1-mini", "gpt-4.1-mini"},
		{"deepseek/deepseek-chat", "deepseek-v4-flash"},
		{"deepseek-reasoner", "deepseek-v4-flash"},
		{"gpt-6-sol", "gpt-6-sol"},
		{"gpt-5.9", ""},              // a version the table does not hold
		{"gpt-5.5-turbo", "gpt-5.5"}, // a variant of one it does
		{"llama-3-70b", ""},
		{"", ""},
	}
	for _, c := range cases {
		p, ok := tb.Lookup(c.name)
		if ok != (c.want != "") || p.Model != c.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", c.name, p.Model, ok, c.want)
		}
	}
}

// TestFor: a model the table does not know is priced as its format's
// default, and says so.
func TestFor(t *testing.T) {
	tb := Default()
	for _, c := range []struct {
		model  string
		format transcript.Format
		want   string
		known  bool
	}{
		{"claude-opus-4-6", transcript.ClaudeCode, "claude-opus-4-6", true},
		{"", transcript.ClaudeCode, "claude-sonnet-5-5", false},
		{"", transcript.Codex, "gpt-5", false},
		{"llama", transcript.OpenAI, "gpt-5", false},
		{"", transcript.SWEAgent, "gpt-4o", false},
	} {
		p, known := tb.For(c.model, c.format)
		if p.Model != c.want || known != c.known {
			t.Errorf("For(%q, %s) = %s, %v; want %s, %v", c.model, c.format, p.Model, known, c.want, c.known)
		}
	}
}

// TestCost: by hand, per million tokens.
func TestCost(t *testing.T) {
	p, _ := Default().Lookup("claude-sonnet-4-6")
	// 1M input at $3, 2M written for 5 minutes at $3.75, 1M for an hour at
	// $6, 10M read at $0.30, 0.1M output at $15: 3 + 7.5 + 6 + 3 + 1.5 = 21.
	tk := Tokens{Input: 1e6, CacheWrite: 2e6, CacheWrite1h: 1e6, CacheRead: 10e6, Output: 1e5}
	if got := p.Cost(tk); !near(got, 21) {
		t.Errorf("cost %v, want 21", got)
	}
	// Sonnet 4.5 bills a prompt over 200,000 tokens at its long rates,
	// every token of it: 6 + 15 + 12 + 6 + 2.25 = 41.25.
	p, _ = Default().Lookup("claude-sonnet-4-5")
	if got := p.Cost(tk); !near(got, 41.25) {
		t.Errorf("a long prompt: %v, want 41.25", got)
	}
	// 100,000 input at $3 and 1,000 output at $15: 0.3 + 0.015.
	if got := p.Cost(Tokens{Input: 100000, Output: 1000}); !near(got, 0.315) {
		t.Errorf("a short prompt: %v, want 0.315", got)
	}
	// 200,001 read: over the line, at $0.60, and 1,000 output at $22.50.
	if got := p.Cost(Tokens{CacheRead: 200001, Output: 1000}); !near(got, 0.200001*0.6+0.0225) {
		t.Errorf("just over 200,000: %v", got)
	}
}
