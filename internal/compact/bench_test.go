package compact

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkReplay is ctx-compact --replay without flags: parse, replay as
// it was and compacted. Over a transcript of growing size
// (scripts/bigtranscript, CTX_BENCH_FILE) its time grows with the size,
// not its square.
func BenchmarkReplay(b *testing.B) {
	f, err := New(defaults())
	if err != nil {
		b.Fatal(err)
	}
	policy := func(t *transcript.Transcript) replay.Advance { return f.Start(t).Advance }
	opts := replay.Options{Counter: counter(), Prices: pricing.Default()}
	b.ReportAllocs()
	inputs := testutil.BenchInputs(b)
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			t, err := transcript.Parse(in, transcript.Options{})
			if err != nil {
				b.Fatal(err)
			}
			replay.Replay(t, policy, opts)
		}
	}
}

// BenchmarkApply is ctx-compact without flags over a transcript: parse,
// compact, write.
func BenchmarkApply(b *testing.B) {
	f, err := New(defaults())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	inputs := testutil.BenchInputs(b)
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			t, err := transcript.Parse(in, transcript.Options{})
			if err != nil {
				b.Fatal(err)
			}
			f.Apply(t)
			_ = t.Bytes()
		}
	}
}
