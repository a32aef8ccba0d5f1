package playbook

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkLearn parses each input ($CTX_BENCH_FILE, else the corpus),
// reflects on it and learns what it shows, as ctx-playbook learn does.
func BenchmarkLearn(b *testing.B) {
	r := reflector(b)
	inputs := testutil.BenchInputs(b)
	for b.Loop() {
		p := New()
		for _, data := range inputs {
			t, err := transcript.Parse(data, transcript.Options{Tools: tools.NewTable(nil)})
			if err != nil {
				b.Fatal(err)
			}
			p.Learn(r.Reflect(t, Source{File: "bench"}), DefaultSimilarity, epoch)
		}
	}
}

// BenchmarkRender renders the corpus's playbook within the default limits.
func BenchmarkRender(b *testing.B) {
	r := reflector(b)
	p := New()
	for _, path := range testutil.CorpusFiles(b) {
		p.Learn(r.Reflect(load(b, path), Source{File: path}), DefaultSimilarity, epoch)
	}
	ctr := counter(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Render(p, RenderOptions{Format: Markdown, MaxStrategies: 50, MaxTokens: 2000, Counter: ctr}); err != nil {
			b.Fatal(err)
		}
	}
}
