package loopscmd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
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

// TestSessionRewritten: a transcript rewritten in place (a filter run with
// -i on it, say) rather than appended to is read again whole, even when it
// grew: the bytes before where the last call stopped changed.
func TestSessionRewritten(t *testing.T) {
	d, err := loops.New(loops.Options{Min: loops.DefaultMin, Cycles: loops.DefaultCycles})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	table := tools.NewTable(nil)
	line := func(id, cmd, out string, failed bool) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"%s"}}]}}`+"\n"+
			`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"%s","is_error":%v}]}}`+"\n", id, cmd, id, out, failed)
	}
	file := filepath.Join(t.TempDir(), "s.jsonl")
	first := line("t1", "make", "Exit code 2\\nmake: error", true) + line("t2", "ls", "a", false)
	if err := os.WriteFile(file, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	if steps, err := sessionSteps(file, transcript.ClaudeCode, table, d); err != nil || len(steps) != 2 {
		t.Fatalf("first read: %d steps, %v", len(steps), err)
	}
	// Same length up to the end of the first read, other bytes, and more.
	second := line("t1", "mbke", "Exit code 2\\nmake: error", true) + line("t2", "ls", "a", false) + line("t3", "pwd", "/", false)
	if err := os.WriteFile(file, []byte(second), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err := sessionSteps(file, transcript.ClaudeCode, table, d)
	if err != nil {
		t.Fatal(err)
	}
	full := transcripttest.Parse(t, []byte(second))
	if want := d.Recent(loops.Steps(full, full.Cwd)); !slices.Equal(summary(steps), summary(want)) {
		t.Errorf("after a rewrite:\n%s\nwant\n%s", strings.Join(summary(steps), "\n"), strings.Join(summary(want), "\n"))
	}
}
