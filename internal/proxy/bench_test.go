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

// BenchmarkStepGrowing is the proxy's step on a session's requests as it
// grows from 10 to 170 turns (59 KB to 1 MB), each request taking what it
// shares with the one before, round and round.
func BenchmarkStepGrowing(b *testing.B) {
	cfg := config(b, newUpstream(b, nil))
	cfg.Ledger = NewLedger(discard{}, nil)
	p, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var bodies [][]byte
	size := 0
	for k := 10; k <= 170; k++ {
		bodies = append(bodies, history(3, k))
		size += len(bodies[len(bodies)-1])
	}
	b.SetBytes(int64(size / len(bodies)))
	b.ResetTimer()
	i := 0
	for b.Loop() {
		p.compact(Messages, http.Header{}, bodies[i%len(bodies)], "bench")
		i++
	}
}
