package transcript

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
)

// BenchmarkParse reads a large transcript: $CTX_BENCH_FILE (make one with
// scripts/bigtranscript), else every corpus file.
func BenchmarkParse(b *testing.B) {
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
			if _, err := Parse(in, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
