package truncate

import (
	"io"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
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
	b.ReportAllocs()
	inputs := testutil.BenchInputs(b)
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			t, err := transcript.Parse(in, transcript.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Apply(t, opts); err != nil {
				b.Fatal(err)
			}
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

// BenchmarkLines classifies every line of the logs, as keep does for a cut
// middle.
func BenchmarkLines(b *testing.B) {
	var lines []string
	size := 0
	for _, l := range logRuns {
		s := readLog(b, l.file)
		size += len(s)
		lines = append(lines, strings.Split(s, "\n")...)
	}
	r := DefaultRules()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range lines {
			r.classify(line)
		}
	}
}
