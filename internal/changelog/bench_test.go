package changelog

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkChangelog parses a large transcript and builds its changelog
// with diffs: $CTX_BENCH_FILE (make one with scripts/bigtranscript), else
// every corpus file.
func BenchmarkChangelog(b *testing.B) {
	var inputs [][]byte
	if f := os.Getenv("CTX_BENCH_FILE"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, data)
	} else {
		for _, f := range testutil.CorpusFiles(b) {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			inputs = append(inputs, data)
		}
	}
	size := 0
	for _, in := range inputs {
		size += len(in)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			t, err := transcript.Parse(in, transcript.Options{})
			if err != nil {
				b.Fatal(err)
			}
			NewChangelog([]*History{Analyze(t, "bench", Options{Diff: true})}, ReportOptions{})
		}
	}
}
