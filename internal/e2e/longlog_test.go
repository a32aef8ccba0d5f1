package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// testLogCommand prints a test log of about 38,000 chars, over the ~30,000
// at which Claude Code keeps an output in a file and under memory_query's
// 40,000 a page: 480 lines that pass, three FAILED lines in the middle and
// a summary at the end; then it exits with code. It is the command's
// output, its last newline included.
func testLogCommand(code int) (command, output string) {
	const pass = "tests/test_app.py::test_%04d PASSED ........................................\n"
	var b strings.Builder
	for i := 1; i <= 480; i++ {
		fmt.Fprintf(&b, pass, i)
		if i == 160 || i == 240 || i == 320 {
			fmt.Fprintf(&b, "FAILED tests/test_app.py::test_%04d - AssertionError: expected 200, got 500\n", i)
		}
	}
	b.WriteString("=== 3 failed, 477 passed in 12.34s ===\n")
	command = `for i in $(seq 1 480); do printf '` + strings.TrimSuffix(pass, "\n") + `\n' $i; case $i in 160|240|320) printf 'FAILED tests/test_app.py::test_%04d - AssertionError: expected 200, got 500\n' $i;; esac; done; echo '=== 3 failed, 477 passed in 12.34s ==='; exit ` + fmt.Sprint(code)
	return command, b.String()
}

// failureLines are what a person and a model need of the log.
var failureLines = []string{
	"FAILED tests/test_app.py::test_0160 - AssertionError: expected 200, got 500",
	"FAILED tests/test_app.py::test_0240 - AssertionError: expected 200, got 500",
	"FAILED tests/test_app.py::test_0320 - AssertionError: expected 200, got 500",
	"=== 3 failed, 477 passed in 12.34s ===",
}

// TestLongLogClaudeCode runs a 38,000-char test log in the real Claude Code
// with the example settings and .mcp.json pasted unchanged, permissions
// asked as a user's session asks them (Bash allowed on the command line,
// memory_query by the settings), no archive named anywhere:
//
//   - exit 0: the model gets the log cut by ctx-truncate's hook, with its
//     three FAILED lines and its summary, and a marker citing the call;
//     memory_query with that id gives back the command's output byte for
//     byte, its last newline too;
//   - exit 1: the command (a loop, and a $(...)) is one the PreToolUse
//     rewrite leaves alone; Claude Code fires PostToolUseFailure, whose
//     output no hook can replace, and the model gets Claude Code's own cut,
//     as docs/hooks.md
//     says: of the output's first 30,000 chars, the first and last 5,000
//     or so; the FAILED lines of the middle and the summary at the end are
//     lost, and nothing of the call reaches the archive.
func TestLongLogClaudeCode(t *testing.T) {
	exe := agenttest.ClaudeCode.Install(t)
	mcpJSON, err := os.ReadFile(filepath.Join(testutil.Root(t), "examples", "hooks", "claude-code", ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []int{0, 1} {
		t.Run(fmt.Sprintf("exit %d", code), func(t *testing.T) {
			command, output := testLogCommand(code)
			if n := len(output); n < 35000 || n >= 40000 {
				t.Fatalf("the log has %d chars", n)
			}
			srv := server(t, []agenttest.Turn{
				{Tool: "Bash", Input: map[string]any{"command": command, "description": "Run the tests"}},
				{Tool: "mcp__ctx-recall__memory_query", Input: map[string]any{"id": agenttest.ToolUseID(0)}},
				{Text: "Done."},
			})
			run := agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Run the tests, then get their whole log back.",
				Files: map[string]string{".mcp.json": string(mcpJSON)}, Hooks: example(t, "claude-code/settings.json"),
				Env: hookEnv(t), AllowedTools: []string{"Bash"}})
			results := srv.ToolResults()
			if len(results) != 2 {
				t.Fatalf("the model saw %d tool results, want 2: %.300q", len(results), results)
			}
			log, recalled := results[0], results[1]
			if code == 0 {
				for _, line := range failureLines {
					if !strings.Contains(log, line) {
						t.Errorf("the model's log lacks %q", line)
					}
				}
				if h := marker.CitedCut(log); h != agenttest.ToolUseID(0) || len(log) > 12000 {
					t.Errorf("the model's log (%d chars) cites %q, want a cut citing %s:\n%s", len(log), h, agenttest.ToolUseID(0), log)
				}
				if recalled != output {
					t.Errorf("memory_query gave %d chars, want the command's %d, byte for byte:\n%.300q", len(recalled), len(output), recalled)
				}
				recall := exec.Command(filepath.Join(tools(t), "ctx-recall"), agenttest.ToolUseID(0))
				recall.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(run.Home, ".local", "share"))
				if got, err := recall.Output(); err != nil || string(got) != output {
					t.Errorf("ctx-recall %s: %v, %d bytes, want the command's %d, its last newline too", agenttest.ToolUseID(0), stderrOf(err), len(got), len(output))
				}
			} else {
				if !strings.Contains(log, "characters truncated] ...") || len(log) > 10100 || strings.Contains(log, failureLines[1]) || strings.Contains(log, failureLines[3]) {
					t.Errorf("the model's log is not Claude Code's own cut: %d chars:\n%s", len(log), log)
				}
				// Nothing of the failed call was archived: the model is told so.
				if !strings.Contains(recalled, "no archive there") {
					t.Errorf("memory_query on the failed call: %.300q", recalled)
				}
			}
			everyTool(t, tools(t), run.Transcript(t))
		})
	}
}

// TestLongRecallCodex: Codex with the example config.toml pasted unchanged
// (its MCP server and its output limit) gets a 38,000-char archived output
// back whole through memory_query: without the example's
// tool_output_token_limit it cuts such an answer to some 12,000 chars.
func TestLongRecallCodex(t *testing.T) {
	exe := agenttest.Codex.Install(t)
	_, output := testLogCommand(0)
	home := t.TempDir() // the archive of a new user's home, as the hooks and filters write it
	session, _ := json.Marshal(map[string]any{"role": "user", "content": "run the tests"})
	call, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": "call_01LongRecallLongRecall", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"pytest"}`}}}})
	result, _ := json.Marshal(map[string]any{"role": "tool", "tool_call_id": "call_01LongRecallLongRecall", "content": output})
	archive := exec.Command(filepath.Join(tools(t), "ctx-archive"))
	archive.Stdin = strings.NewReader("[" + string(session) + "," + string(call) + "," + string(result) + "]")
	archive.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "CTX_ARCHIVE=")
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("ctx-archive: %v: %s", err, out)
	}
	srv := server(t, []agenttest.Turn{
		{Namespace: "mcp__ctx_recall", Tool: "memory_query", Input: map[string]any{"id": "call_01LongRecallLongRecall"}},
		{Text: "Found it."},
	})
	agenttest.Codex.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Get the whole test log back.",
		Hooks: example(t, "codex/config.toml"), Env: append(hookEnv(t), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share")),
		Home: home})
	results := srv.ToolResults()
	if len(results) != 1 {
		t.Fatalf("the model saw %d tool results, want 1", len(results))
	}
	if _, got, _ := strings.Cut(results[0], "\nOutput:\n"); got != output {
		t.Errorf("memory_query through Codex gave %d chars, want the %d archived, whole:\n%.300q", len(got), len(output), results[0][max(0, len(results[0])-300):])
	}
}
