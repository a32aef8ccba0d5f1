package dedupe

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// benchInputs is $CTX_BENCH_FILE (make a large one with
// scripts/bigtranscript), else every corpus file.
func benchInputs(b *testing.B) ([][]byte, int64) {
	files := testutil.CorpusFiles(b)
	if f := os.Getenv("CTX_BENCH_FILE"); f != "" {
		files = []string{f}
	}
	var inputs [][]byte
	var size int64
	for _, f := range files {
		data := read(b, f)
		inputs = append(inputs, data)
		size += int64(len(data))
	}
	return inputs, size
}

// BenchmarkApply is the filter's own work: Apply on parsed transcripts.
// The token counter's one-time load is left out.
func BenchmarkApply(b *testing.B) {
	inputs, size := benchInputs(b)
	opts := defaults(b)
	opts.Counter.Count("warm up")
	f, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		trs := make([]*transcript.Transcript, len(inputs))
		for j, in := range inputs {
			trs[j] = transcripttest.Parse(b, in)
		}
		b.StartTimer()
		for _, tr := range trs {
			f.Apply(tr)
		}
	}
}

// BenchmarkFilter is what ctx-dedupe does to its input: parse, Apply, and
// write the output.
func BenchmarkFilter(b *testing.B) {
	inputs, size := benchInputs(b)
	f, err := New(defaults(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			tr := transcripttest.Parse(b, in)
			f.Apply(tr)
			_ = tr.Bytes()
		}
	}
}
