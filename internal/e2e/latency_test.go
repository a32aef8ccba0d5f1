package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
)

// TestHookLatency measures, inside the real Claude Code, what the example
// hooks add to a tool call: a session of 30 Bash calls (5,000 lines each,
// which ctx-truncate's hook cuts and archives) run with no hooks, with the
// example's hook entries running `cat >/dev/null` (what Claude Code itself
// spends to run three hook processes a call), and with the example
// settings, three times each in turn. The differences of their wall times
// over the calls are what running hooks costs and what ctx's hooks add to
// that (ctx-loops on PreToolUse and PostToolUse, ctx-truncate on
// PostToolUse); Claude Code's own durationMs of each ctx-truncate call is
// reported beside them. It prints the numbers of docs/hooks.md; it runs
// with CTX_HOOK_LATENCY=1 (and CTX_E2E=1), on a machine left alone.
func TestHookLatency(t *testing.T) {
	if os.Getenv("CTX_HOOK_LATENCY") != "1" {
		t.Skip("measures the hooks inside Claude Code: CTX_HOOK_LATENCY=1")
	}
	exe := agenttest.ClaudeCode.Install(t)
	const calls = 30
	var script []agenttest.Turn
	for range calls {
		script = append(script, agenttest.Turn{Tool: "Bash", Input: map[string]any{"command": "seq 1 5000", "description": "Count"}})
	}
	run := func(hooks []byte) (time.Duration, []float64) {
		srv := server(t, script)
		start := time.Now()
		r := agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Count.", Hooks: hooks, Env: hookEnv(t)})
		wall := time.Since(start)
		if got := len(srv.ToolResults()); got != calls {
			t.Fatalf("%d tool results, want %d", got, calls)
		}
		return wall, hookDurations(t, r.Transcript(t), "ctx-truncate")
	}
	// The example's hook entries, each running a process that only reads
	// its payload.
	null := regexp.MustCompile(`"ctx-[a-z]+ [^"]*"`).ReplaceAll(example(t, "claude-code/settings.json"), []byte(`"cat >/dev/null"`))
	var none, nulls, with []time.Duration
	var durations []float64
	for range 3 {
		w, _ := run(nil)
		none = append(none, w)
		w, _ = run(null)
		nulls = append(nulls, w)
		w, d := run(example(t, "claude-code/settings.json"))
		with, durations = append(with, w), append(durations, d...)
	}
	for _, s := range [][]time.Duration{none, nulls, with} {
		slices.Sort(s)
	}
	slices.Sort(durations)
	perCall := func(a, b time.Duration) time.Duration { return ((a - b) / calls).Round(time.Millisecond) }
	fmt.Printf("| sessions of %d Bash calls | wall, median of 3 | per call, over the line above |\n|---|---:|---:|\n", calls)
	fmt.Printf("| no hooks | %v | |\n", none[1].Round(time.Millisecond))
	fmt.Printf("| the example's entries running cat >/dev/null | %v | %v |\n", nulls[1].Round(time.Millisecond), perCall(nulls[1], none[1]))
	fmt.Printf("| the example hooks | %v | %v |\n", with[1].Round(time.Millisecond), perCall(with[1], nulls[1]))
	if n := len(durations); n > 0 {
		fmt.Printf("\nctx-truncate --hook, Claude Code's durationMs over %d calls: median %.0f ms, p90 %.0f ms, max %.0f ms\n",
			n, durations[n/2], durations[n*9/10], durations[n-1])
	}
}

// hookDurations reads Claude Code's durationMs of every run of a hook
// command (by the first word of its command) that answered, from the hook
// attachments of its session file.
func hookDurations(t *testing.T, path, command string) []float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for line := range strings.Lines(string(data)) {
		var l struct {
			Type       string `json:"type"`
			Attachment struct {
				Command    string  `json:"command"`
				DurationMs float64 `json:"durationMs"`
			} `json:"attachment"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Type == "attachment" && strings.HasPrefix(l.Attachment.Command, command+" ") {
			out = append(out, l.Attachment.DurationMs)
		}
	}
	return out
}
