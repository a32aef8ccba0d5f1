package changelog

import (
	"bytes"
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// FuzzAnalyze: any transcript the model reads gives a changelog and a
// timeline without a panic, every call's file can be asked for at every
// call, and an error from At is one line.
func FuzzAnalyze(f *testing.F) {
	for _, path := range fixtures(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := transcript.Parse(data, transcript.Options{})
		if err != nil {
			return
		}
		h := Analyze(tr, "fuzz", Options{Diff: true, Context: true})
		rep := NewChangelog([]*History{h}, ReportOptions{IncludeFailed: true})
		if err := rep.WriteMarkdown(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range h.Changes {
			if _, err := NewTimeline([]*History{h}, c.Path, ReportOptions{}); err != nil {
				t.Fatalf("timeline of %q: %v", c.Path, err)
			}
			if _, err := At(tr, c.Path, c.CallID); err != nil && bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Fatalf("At error on several lines: %q", err)
			}
		}
	})
}
