package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/testutil"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestSessionStepsIncremental grows every JSONL transcript of the corpus
// chunk by chunk, some chunks ending inside a line, as an agent writes it,
// and reads it with the hook's state after each chunk: at the end the hook
// holds the steps that a parse of the whole file gives.
func TestSessionStepsIncremental(t *testing.T) {
	d, err := loops.New(loops.Options{Min: loops.DefaultMin, Cycles: loops.DefaultCycles})
	if err != nil {
		t.Fatal(err)
	}
	table := tools.NewTable(nil)
	for _, path := range testutil.CorpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full, err := transcript.Parse(data, transcript.Options{Tools: table})
		if err != nil || full.Layout != transcript.JSONL || (full.Format != transcript.ClaudeCode && full.Format != transcript.Codex) {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Setenv("CTX_STATE_DIR", t.TempDir())
			file := filepath.Join(t.TempDir(), "session.jsonl")
			rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
			var got []loops.Step
			for written := 0; written < len(data); {
				next := min(len(data), written+1+rng.IntN(len(data)/20+1))
				if err := os.WriteFile(file, data[:next], 0o644); err != nil {
					t.Fatal(err)
				}
				written = next
				if got, err = sessionSteps(file, full.Format, table, d); err != nil {
					t.Fatalf("after %d of %d bytes: %v", written, len(data), err)
				}
			}
			want := d.Recent(loops.Steps(full, full.Cwd))
			if !slices.Equal(summary(got), summary(want)) {
				t.Errorf("read chunk by chunk:\n%s\nread whole:\n%s", strings.Join(summary(got), "\n"), strings.Join(summary(want), "\n"))
			}
		})
	}
}

func summary(steps []loops.Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = fmt.Sprintf("%s %q failed=%v %s", s.CallID, s.Key, s.Failed, s.ErrorHash)
	}
	return out
}
