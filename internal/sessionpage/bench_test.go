package sessionpage

import (
	"io"
	"testing"

	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkPage makes the page of each corpus session (or of
// $CTX_BENCH_FILE), from the parse to the written page, beside the
// reference: the text report's count of the same sessions (ctx-count
// without --html).
func BenchmarkPage(b *testing.B) {
	inputs := testutil.BenchInputs(b)
	ctr := counter(b)
	parse := func(data []byte) *transcript.Transcript {
		t, err := transcript.Parse(data, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	b.Run("count", func(b *testing.B) {
		for range b.N {
			for _, in := range inputs {
				count.Count(parse(in), ctr, 10)
			}
		}
	})
	b.Run("page", func(b *testing.B) {
		for range b.N {
			for _, in := range inputs {
				t := parse(in)
				opts, err := Defaults("bench", in, t, ctr)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Build(t, opts).WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
