package summarize

import (
	"os"
	"strconv"
	"testing"

	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/llmtest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkFilter parses, summarizes and writes a large transcript:
// $CTX_BENCH_FILE (make one with scripts/bigtranscript), else every corpus
// file, with the default options. The encoding is $CTX_BENCH_ENCODING,
// approx by default: the filter's own work, without the cost of exact
// counting.
func BenchmarkFilter(b *testing.B) {
	f := benchFilter(b, Defaults(nil))
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

// BenchmarkModel is BenchmarkFilter with --llm against the fake server,
// which answers at once: what ctx-summarize --llm costs beyond the model's
// own time (prompts, requests on the loopback, answers into summaries).
// No cache: every prompt is a request.
func BenchmarkModel(b *testing.B) {
	opts := Defaults(nil)
	opts.ModelInput = 3000
	f := benchFilter(b, opts)
	srv := llmtest.New(b, llmtest.Expect{Model: "fake"}, llmtest.Echo(60))
	c := newClient(b, srv, nil, 0)
	var rep Report
	filter := withModel(f, c, &rep)
	b.ReportAllocs()
	inputs := testutil.BenchInputs(b)
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			if _, err := filter(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	if rep.Model != nil {
		b.ReportMetric(float64(c.Stats().Requests)/float64(b.N), "requests/op")
	}
}

// benchFilter is the filter of opts, counting in $CTX_BENCH_ENCODING.
func benchFilter(b *testing.B, opts Options) *Filter {
	enc := os.Getenv("CTX_BENCH_ENCODING")
	if enc == "" {
		enc = tokens.Approx
	}
	return filterIn(b, enc, opts)
}

// BenchmarkBudget is BenchmarkFilter with a budget of half of each input's
// history (CTX_BENCH_BUDGET tokens instead, when set): the ladder's work
// until the history fits, or all of it when it cannot.
func BenchmarkBudget(b *testing.B) {
	inputs := testutil.BenchInputs(b)
	b.StopTimer()
	filters := make([]*Filter, len(inputs))
	for i, in := range inputs {
		opts := Defaults(nil)
		opts.KeepRecent = 3
		t, err := transcript.Parse(in, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctr := benchFilter(b, opts).ctr
		opts.Budget = stats.Count(t, ctr).Tokens() / 2
		if n, err := strconv.Atoi(os.Getenv("CTX_BENCH_BUDGET")); err == nil {
			opts.Budget = n
		}
		filters[i] = benchFilter(b, opts)
	}
	b.ReportAllocs()
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		for k, in := range inputs {
			t, err := transcript.Parse(in, transcript.Options{})
			if err != nil {
				b.Fatal(err)
			}
			filters[k].Apply(t)
			_ = t.Bytes()
		}
	}
}
