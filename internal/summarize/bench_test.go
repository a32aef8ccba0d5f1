package summarize

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkFilter parses, summarizes and writes a large transcript:
// $CTX_BENCH_FILE (make one with scripts/bigtranscript), else every corpus
// file, with the default options. The encoding is $CTX_BENCH_ENCODING,
// approx by default: the filter's own work, without the cost of exact
// counting.
func BenchmarkFilter(b *testing.B) {
	enc := os.Getenv("CTX_BENCH_ENCODING")
	if enc == "" {
		enc = tokens.Approx
	}
	ctr, err := tokens.New(enc)
	if err != nil {
		b.Fatal(err)
	}
	f, err := New(Defaults(ctr))
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
