package transcript

import (
	"bytes"
	"strings"
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

// BenchmarkStream checks 100 MiB of JSONL as a file's read gives it (one
// piece) and as a pipe's do (16 MiB pieces): the cost of the bounds on the
// input, beside reading it.
func BenchmarkStream(b *testing.B) {
	line := []byte(`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("some text ", 30) + `"}}` + "\n")
	data := bytes.Repeat(line, 100<<20/len(line))
	for _, c := range []struct {
		name  string
		piece int
	}{{"whole", len(data)}, {"16 MiB pieces", 16 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := checkChunks(NewStream(0), data, c.piece); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
