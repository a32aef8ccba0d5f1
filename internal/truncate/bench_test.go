package truncate

import (
	"io"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkFilter is ctx-truncate without flags, as the command runs it:
// parse, cut, write the transcript out.
func BenchmarkFilter(b *testing.B) {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Rules: DefaultRules()}
	opts.Rules.Counter = ctr
	f, err := New(opts)
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
			if _, err := t.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCut cuts the logs of testdata/logs.
func BenchmarkCut(b *testing.B) {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	size := 0
	for _, l := range logRuns {
		s := readLog(b, l.file)
		texts = append(texts, s)
		size += len(s)
	}
	r := DefaultRules()
	r.Counter, r.Failed = ctr, true
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range texts {
			Cut(s, r)
		}
	}
}

// BenchmarkLines finds the lines that matter in every line of the logs, as
// keep does for a cut text.
func BenchmarkLines(b *testing.B) {
	var texts []string
	size := 0
	for _, l := range logRuns {
		s := readLog(b, l.file)
		size += len(s)
		texts = append(texts, s)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range texts {
			for range outcome.Lines(s) {
			}
		}
	}
}
