package proxy

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkStep is the proxy's own step on a 1 MB Messages body of 170
// turns, again and again, as a session's requests repeat their history.
func BenchmarkStep(b *testing.B) {
	for _, ledger := range []bool{false, true} {
		b.Run(fmt.Sprintf("ledger=%v", ledger), func(b *testing.B) {
			up := newUpstream(b, nil)
			cfg := config(b, up)
			if ledger {
				cfg.Ledger = NewLedger(discard{}, nil)
			}
			p, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			body := history(1, 170)
			b.SetBytes(int64(len(body)))
			p.compact(Messages, http.Header{}, body, "bench")
			b.ResetTimer()
			for b.Loop() {
				p.compact(Messages, http.Header{}, body, "bench")
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
