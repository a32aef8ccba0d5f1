package loops

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkAnalyze is ctx-loops' report without the parse: the steps of
// every call (their keys and error texts) and the loops.
func BenchmarkAnalyze(b *testing.B) {
	d := detector(b)
	var ts []*transcript.Transcript
	for _, data := range testutil.BenchInputs(b) {
		if t, err := transcript.Parse(data, transcript.Options{}); err == nil {
			ts = append(ts, t)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, t := range ts {
			d.Analyze(t)
		}
	}
}
