package loops

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// rollout is a Codex rollout of long commands (each with its session id)
// started with exec_command, polled with write_stdin, and ending with the
// exec_command_end event that gives their exit code; order lists the
// calls: "s0" starts command 0, "p0" polls it.
func rollout(t *testing.T, cmds []string, failed bool, order ...string) *transcript.Transcript {
	t.Helper()
	var lines []string
	add := func(typ string, payload map[string]any) {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-05-12T09:00:00.000Z", "type": typ, "payload": payload})
		lines = append(lines, string(b))
	}
	add("session_meta", map[string]any{"id": "019e1c4b-3a7e-7d12-a5c8-4e0f92b7d615", "cwd": "/home/dev/p"})
	add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "run them"}}})
	code := map[bool]int{true: 1, false: 0}[failed]
	for _, o := range order {
		var i int
		fmt.Sscanf(o[1:], "%d", &i)
		start, poll := fmt.Sprintf("call_start%d_0123456789abcdef", i), fmt.Sprintf("call_poll%d_0123456789abcdefg", i)
		if o[0] == 's' {
			add("response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": start,
				"arguments": fmt.Sprintf(`{"cmd":%q,"yield_time_ms":10000}`, cmds[i])})
			add("response_item", map[string]any{"type": "function_call_output", "call_id": start,
				"output": fmt.Sprintf("Chunk ID: 1a2b3c\nWall time: 10.0010 seconds\nProcess running with session ID %d\nOriginal token count: 9\nOutput:\n=== RUN   TestPart%d\n", 100+i, i)})
			continue
		}
		add("response_item", map[string]any{"type": "function_call", "name": "write_stdin", "call_id": poll,
			"arguments": fmt.Sprintf(`{"session_id":%d,"chars":"","yield_time_ms":30000}`, 100+i)})
		add("response_item", map[string]any{"type": "function_call_output", "call_id": poll,
			"output": fmt.Sprintf("Chunk ID: 4d5e6f\nWall time: 2.5000 seconds\nProcess exited with code %d\nOriginal token count: 9\nOutput:\n--- FAIL: TestPart%d (0.01s)\nFAIL\n", code, i)})
		add("event_msg", map[string]any{"type": "exec_command_end", "call_id": start, "exit_code": code,
			"aggregated_output": fmt.Sprintf("=== RUN   TestPart%d\n--- FAIL: TestPart%d (0.01s)\nFAIL\n", i, i)})
	}
	return transcripttest.Parse(t, []byte(strings.Join(lines, "\n")+"\n"))
}

// TestPollsArePartOfTheirCommand: a write_stdin that polls a running
// command is part of that command, not a call of its own: commands each
// started once and polled once make no loop, in whatever order, and a
// command run three times is three calls, however often each was polled.
func TestPollsArePartOfTheirCommand(t *testing.T) {
	d := detector(t)
	three := []string{"go test ./a/...", "go test ./b/...", "go test ./c/..."}
	for _, c := range []struct {
		name  string
		cmds  []string
		order []string
		want  []string
	}{
		{"started together, then polled", three, []string{"s0", "s1", "s2", "p0", "p1", "p2"}, nil},
		{"each started and polled", three, []string{"s0", "p0", "s1", "p1", "s2", "p2"}, nil},
		{"one command run three times", []string{"go test ./...", "go test ./...", "go test ./..."},
			[]string{"s0", "p0", "s1", "p1", "s2", "p2"}, []string{"repeat [0 1 2]"}},
	} {
		tr := rollout(t, c.cmds, true, c.order...)
		steps := Steps(tr, tr.Cwd)
		if len(steps) != 3 {
			t.Errorf("%s: %d steps, want one a command", c.name, len(steps))
		}
		for i, s := range steps {
			if !strings.HasPrefix(s.CallID, "call_start") || !s.Failed || s.ExitCode != outcome.ExitCode(1) || s.Error == "" {
				t.Errorf("%s: step %d %+v, want the command started, failed as its last poll says", c.name, i, s)
			}
		}
		var got []string
		for _, l := range d.Find(steps) {
			got = append(got, describe(l))
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: loops %q, want %q", c.name, got, c.want)
		}
	}
	// A command that succeeded in the end succeeded, whatever its first
	// chunk looked like.
	tr := rollout(t, three, false, "s0", "p0")
	for _, s := range Steps(tr, tr.Cwd) {
		if s.Failed {
			t.Errorf("a command that exited 0: %+v", s)
		}
	}
}

// TestBannerOnPolledCommands: the banner goes above the output that shows
// a command failing (its last poll), not above the first output, taken
// while it ran.
func TestBannerOnPolledCommands(t *testing.T) {
	tr := rollout(t, []string{"go test ./a/...", "go test ./b/..."}, true, "s0", "s1", "p0", "p1")
	b, err := NewBanner(BannerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Apply(tr)
	for _, r := range tr.Results {
		if got, want := marker.Is(r.Text(), "loops"), strings.HasPrefix(r.CallID, "call_poll"); got != want {
			t.Errorf("result of %s: a banner %v, want %v:\n%s", r.CallID, got, want, r.Text())
		}
	}
}
