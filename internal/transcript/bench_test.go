package transcript

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// BenchmarkParse reads a large transcript: $CTX_BENCH_FILE (make one with
// scripts/bigtranscript), else every corpus file.
func BenchmarkParse(b *testing.B) {
	inputs := testutil.BenchInputs(b)
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			if _, err := Parse(in, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
