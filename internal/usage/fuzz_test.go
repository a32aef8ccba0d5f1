package usage

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// FuzzRead: whatever a transcript's usage holds, a record that totals take
// has every count from 0 to MaxTokens, and the totals are never negative.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","requestId":"r","message":{"id":"m","model":"claude-opus-4-6","role":"assistant","content":"a","usage":{"input_tokens":-3,"cache_creation_input_tokens":2.5,"cache_creation":{"ephemeral_1h_input_tokens":1e308},"output_tokens":18446744073709551616}}}`))
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9e15,"output_tokens":-1},"last_token_usage":{"input_tokens":5,"cached_input_tokens":7,"output_tokens":1e9}}}}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":"a","extra":{"response":{"usage":{"prompt_tokens":5,"completion_tokens":-0,"prompt_tokens_details":{"cached_tokens":9}}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := transcript.Parse(data, transcript.Options{})
		if err != nil {
			return
		}
		recs := Read(data, tr.Format)
		var total Total
		for _, row := range Tally(recs, tr.Format, pricing.Default(), ByModel, nil) {
			total.Plus(row.Total)
		}
		for _, r := range recs {
			tk := r.Tokens
			if r.Impossible {
				continue
			}
			for _, n := range []int64{tk.Input, tk.CacheWrite, tk.CacheWrite1h, tk.CacheRead, tk.Output, r.Reasoning} {
				if n < 0 || n > MaxTokens {
					t.Fatalf("a record totals take holds %d: %+v", n, r)
				}
			}
		}
		tk := total.Tokens
		if total.Cost < 0 || min(tk.Input, tk.CacheWrite, tk.CacheWrite1h, tk.CacheRead, tk.Output, total.Reasoning) < 0 ||
			total.Requests+total.Skipped != len(recs) {
			t.Fatalf("totals %+v of %d records", total, len(recs))
		}
	})
}
