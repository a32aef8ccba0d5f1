package transcripttest

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestPrefix: cut before every message of every fixture and corpus file,
// a transcript parses in its format and layout and holds the messages
// before the cut, the same.
func TestPrefix(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tr := Parse(t, data)
			step := max(1, len(tr.Messages)/40) // every message of a short one, some of a long one
			for i := 0; i <= len(tr.Messages); i += step {
				p := Prefix(t, data, tr, i)
				if i == 0 && len(p) == 0 {
					continue // nothing before the first message of JSONL
				}
				pt, err := transcript.Parse(p, transcript.Options{Format: tr.Format}) // a short history may not tell its format
				if err != nil {
					t.Fatalf("cut before message %d: %v", i, err)
				}
				if pt.Layout != tr.Layout {
					t.Fatalf("cut before message %d: %s, was %s", i, pt.Layout, tr.Layout)
				}
				want := i
				if i == 0 && tr.Layout != transcript.JSONL && len(tr.Messages) > 0 && tr.Messages[0].Pos.Element < 0 {
					want = 1 // a request body's system prompt is no element of its messages
				}
				if len(pt.Messages) != want {
					t.Fatalf("cut before message %d: %d messages", i, len(pt.Messages))
				}
				for j, m := range pt.Messages {
					if m.Role != tr.Messages[j].Role || len(m.Results) != len(tr.Messages[j].Results) || len(m.Calls) != len(tr.Messages[j].Calls) {
						t.Fatalf("cut before message %d: message %d differs", i, j)
					}
				}
			}
		})
	}
}
