package changelog

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkChangelog parses a large transcript and builds its changelog
// with diffs: $CTX_BENCH_FILE (make one with scripts/bigtranscript), else
// every corpus file.
func BenchmarkChangelog(b *testing.B) {
	inputs := testutil.BenchInputs(b)
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
