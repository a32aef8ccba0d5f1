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
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// testLog is a test run's log of some 39,600 chars (over the ~30,000 at
// which Claude Code cuts a failing output itself, under memory_query's
// 40,000 a page): 500 lines that pass, the three FAILED lines of
// failureLines in its middle, its summary at the end. The project's
// tests.sh prints it and exits with its argument.
func testLog() (files map[string]string, output string) {
	const pass = "tests/test_app.py::test_%04d PASSED ........................................\n"
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, pass, i)
		if i == 160 || i == 240 || i == 320 {
			fmt.Fprintf(&b, "FAILED tests/test_app.py::test_%04d - AssertionError: expected 200, got 500\n", i)
		}
	}
	b.WriteString("=== 3 failed, 477 passed in 12.34s ===\n")
	return map[string]string{"log.txt": b.String(), "tests.sh": "cat log.txt\nexit ${1:-0}\n", "sub/marker.txt": "here\n"}, b.String()
}

// bash is the model's call of Claude Code's Bash tool on cmd.
func bash(cmd string) agenttest.Turn {
	return agenttest.Turn{Tool: "Bash", Input: map[string]any{"command": cmd, "description": "run"}}
}

// ctxSetup runs the ctx-setup binary in a user's home, as the user would.
func ctxSetup(t *testing.T, home string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(tools(t), "ctx-setup"), args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"CODEX_HOME=", "CLAUDE_CONFIG_DIR=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctx-setup %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestSetupClaudeCode runs the real Claude Code in a new home where
// ctx-setup claude-code wrote ctxkit's hooks and MCP server beside the
// user's own permission rules (allow sh tests.sh, deny rm -rf), no file
// copied, permissions asked as a user's session asks them (no Bash
// allowed on the command line). The model:
//
//   - runs the tests, which fail: ctx-truncate's PreToolUse rewrite cuts
//     the 39,600-char log on its way, so the model gets its FAILED lines
//     and summary and a marker citing the call, and Claude Code reports
//     exit 1 as a failure; the user's allow rule let it run unasked;
//   - gets the whole log back through memory_query, byte for byte (and
//     ctx-recall gives it too);
//   - runs them again passing: the same cut, no failure;
//   - runs them twice in one line: not rewritten, for Claude Code would
//     ask before it ran the two in braces (TestSetupClaudeCodeGroups);
//     it runs unasked as the user's rules allow (and is cut after);
//   - runs rm -rf build: the user's deny rule still denies it;
//   - runs cd sub && ls, then pwd: the cd moved the next call;
//   - cats a missing file three times: ctx-loops denies the third.
//
// The session file records each command as the model wrote it.
func TestSetupClaudeCode(t *testing.T) {
	exe := agenttest.ClaudeCode.Install(t)
	files, output := testLog()
	srv := server(t, []agenttest.Turn{
		bash("sh tests.sh 1"),
		{Tool: "mcp__ctx-recall__memory_query", Input: map[string]any{"id": agenttest.ToolUseID(0)}},
		bash("sh tests.sh 0"),
		bash("sh tests.sh 0 && sh tests.sh 0"),
		bash("rm -rf build"),
		bash("cd sub && ls"),
		bash("pwd"),
		bash("cat missing.txt"), bash("cat missing.txt"), bash("cat missing.txt"),
		{Text: "Done."},
	})
	user := `{"permissions": {"allow": ["Bash(sh tests.sh:*)"], "deny": ["Bash(rm -rf:*)"]}}`
	run := agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Run the tests.", Files: files,
		Hooks: []byte(user), Env: hookEnv(t), AllowedTools: []string{"Read"},
		Prepare: func(home string) { ctxSetup(t, home, "claude-code") }})
	r := srv.ToolResults()
	if len(r) != 10 {
		t.Fatalf("the model saw %d tool results, want 10: %.300q", len(r), r)
	}
	for i, want := range map[int]string{0: "Exit code 1\n", 2: ""} {
		log := r[i]
		if !strings.HasPrefix(log, want) || (want == "" && strings.HasPrefix(log, "Exit code")) {
			t.Errorf("call %d: the model's log starts %.40q, want %q", i, log, want)
		}
		for _, line := range failureLines {
			if !strings.Contains(log, line) {
				t.Errorf("call %d: the model's log lacks %q", i, line)
			}
		}
		if h := marker.CitedCut(log); h != agenttest.ToolUseID(i) || len(log) > 12000 {
			t.Errorf("call %d: the model's log (%d chars) cites %q, want a cut citing %s:\n%s", i, len(log), h, agenttest.ToolUseID(i), log)
		}
	}
	if r[1] != output {
		t.Errorf("memory_query gave %d chars, want the log's %d, byte for byte:\n%.300q", len(r[1]), len(output), r[1])
	}
	recall := exec.Command(filepath.Join(tools(t), "ctx-recall"), agenttest.ToolUseID(0))
	recall.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(run.Home, ".local", "share"), "CTX_ARCHIVE=")
	if got, err := recall.Output(); err != nil || string(got) != output {
		t.Errorf("ctx-recall %s: %v, %d bytes, want the log's %d", agenttest.ToolUseID(0), stderrOf(err), len(got), len(output))
	}
	if !strings.HasPrefix(r[3], "tests/test_app.py::test_0001 PASSED") {
		t.Errorf("two commands in one line: the model saw %.300q, want the log, run unasked", r[3])
	}
	if !strings.Contains(r[4], "rm -rf build") || !strings.Contains(r[4], "denied") {
		t.Errorf("rm -rf build: the model saw %q, want the deny rule's refusal", r[4])
	}
	if r[5] != "marker.txt" || r[6] != filepath.Join(run.Dir, "sub") {
		t.Errorf("cd sub && ls, then pwd: %q, %q; want marker.txt, %s", r[5], r[6], filepath.Join(run.Dir, "sub"))
	}
	if !strings.Contains(r[7], "No such file or directory") || !strings.Contains(r[9], "[ctx-loops] Call not run") {
		t.Errorf("the loop: %q, then %q", r[7], r[9])
	}
	path := run.Transcript(t)
	tr := transcripttest.Load(t, path)
	for _, c := range tr.Calls {
		if strings.Contains(c.Args.Command, "--output-of") {
			t.Errorf("the session file records the rewritten command %q", c.Args.Command)
		}
	}
	everyTool(t, tools(t), path)
}

// TestSetupClaudeCodeBackground: a rewritten command that outlasts its
// timeout is moved to the background by Claude Code, which writes its
// output to a file the model may read while it runs: the file shows the
// head of the log at once (the filter passes it on as it comes), and the
// cut when the command ends, not the whole log.
func TestSetupClaudeCodeBackground(t *testing.T) {
	exe := agenttest.ClaudeCode.Install(t)
	files, output := testLog()
	files["slow.sh"] = "cat log.txt\nsleep 8\n"
	// The background command's file: the one that holds the log's first
	// line (the probe's own file holds file names only).
	show := `d=$(pwd | tr / -); grep -l test_0001 "${TMPDIR:-/tmp}"/claude-*/"$d"/*/tasks/*.output | xargs cat`
	srv := server(t, []agenttest.Turn{
		{Tool: "Bash", Input: map[string]any{"command": "sh slow.sh", "description": "run", "timeout": 2000}},
		bash("sleep 1; " + show),
		bash("sleep 9; " + show),
		{Text: "Done."},
	})
	agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Run the tests.", Files: files,
		Env: hookEnv(t), AllowedTools: []string{"Bash", "Read"},
		Prepare: func(home string) { ctxSetup(t, home, "claude-code") }})
	r := srv.ToolResults()
	if len(r) != 3 || !strings.Contains(r[0], "background") {
		t.Fatalf("the model saw %d tool results, want 3, the first that the command went on in the background: %.300q", len(r), r)
	}
	if head := r[1]; head == "" || !strings.HasPrefix(output, head) || len(head) > 2500 {
		t.Errorf("while the command ran, its file held %d chars, want the log's head (of its %d):\n%.300s", len(head), len(output), head)
	}
	cut := r[2]
	if h := marker.CitedCut(cut); h != agenttest.ToolUseID(0) || len(cut) > 12000 || !strings.HasPrefix(cut, r[1]) {
		t.Errorf("once the command ended, its file held %d chars citing %q, want the cut citing %s, after the head:\n%s", len(cut), h, agenttest.ToolUseID(0), cut)
	}
	for _, line := range failureLines {
		if !strings.Contains(cut, line) {
			t.Errorf("the cut lacks %q", line)
		}
	}
}

// TestSetupClaudeCodeGroups: with permissions bypassed, a line of
// several commands that print (make && make test) is rewritten with them
// in braces after the commands that set up the shell: their output
// reaches the model as one cut, with the failures of the second and its
// exit status, and a cd before them still moves the next call.
func TestSetupClaudeCodeGroups(t *testing.T) {
	exe := agenttest.ClaudeCode.Install(t)
	files, output := testLog()
	srv := server(t, []agenttest.Turn{
		bash("sh tests.sh 0 && sh tests.sh 1"),
		bash("cd sub && ls && pwd"),
		bash("pwd"),
		{Text: "Done."},
	})
	run := agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Run the tests.", Files: files,
		Env: hookEnv(t), Prepare: func(home string) { ctxSetup(t, home, "claude-code") }})
	r := srv.ToolResults()
	if len(r) != 3 {
		t.Fatalf("the model saw %d tool results, want 3: %.300q", len(r), r)
	}
	if !strings.HasPrefix(r[0], "Exit code 1\n") || marker.CitedCut(r[0]) != agenttest.ToolUseID(0) || len(r[0]) > len(output)/4 {
		t.Errorf("the two runs: %d chars of the %d printed, citing %q:\n%s", len(r[0]), 2*len(output), marker.CitedCut(r[0]), r[0])
	}
	for _, line := range failureLines {
		if !strings.Contains(r[0], line) {
			t.Errorf("the cut lacks %q", line)
		}
	}
	sub := filepath.Join(run.Dir, "sub")
	if r[1] != "marker.txt\n"+sub || r[2] != sub {
		t.Errorf("cd sub && ls && pwd, then pwd: %q, %q; want marker.txt and %s, then %s", r[1], r[2], sub, sub)
	}
	for _, c := range transcripttest.Load(t, run.Transcript(t)).Calls {
		if strings.Contains(c.Args.Command, "--output-of") {
			t.Errorf("the session file records the rewritten command %q", c.Args.Command)
		}
	}
}

// TestSetupCodex runs the real Codex in a new home where ctx-setup codex
// merged ctxkit's hooks and MCP server into the config.toml pointing at
// the model server. Codex takes no rewritten command without an allow
// decision, so the failing log reaches the model as Codex cuts it (its
// exit code and summary; docs/hooks.md); memory_query gives back a long
// archived output whole (ctx-setup's tool_output_token_limit); ctx-loops
// denies the third identical failure.
func TestSetupCodex(t *testing.T) {
	exe := agenttest.Codex.Install(t)
	files, output := testLog()
	home := t.TempDir()
	const id = "call_01SetupRecallSetupRecall"
	session, _ := json.Marshal(map[string]any{"role": "user", "content": "run the tests"})
	call, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"pytest"}`}}}})
	result, _ := json.Marshal(map[string]any{"role": "tool", "tool_call_id": id, "content": output})
	archive := exec.Command(filepath.Join(tools(t), "ctx-archive"))
	archive.Stdin = strings.NewReader("[" + string(session) + "," + string(call) + "," + string(result) + "]")
	archive.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "CTX_ARCHIVE=")
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("ctx-archive: %v: %s", err, out)
	}
	exec1 := func(cmd string) agenttest.Turn {
		return agenttest.Turn{Tool: "exec_command", Input: map[string]any{"cmd": cmd}}
	}
	srv := server(t, []agenttest.Turn{
		exec1("sh tests.sh 1"),
		{Namespace: "mcp__ctx_recall", Tool: "memory_query", Input: map[string]any{"id": id}},
		exec1("cat missing.txt"), exec1("cat missing.txt"), exec1("cat missing.txt"),
		{Text: "Done."},
	})
	run := agenttest.Codex.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Run the tests.", Files: files, Home: home,
		Env:     append(hookEnv(t), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share")),
		Prepare: func(home string) { ctxSetup(t, home, "codex") }})
	r := srv.ToolResults()
	if len(r) != 5 {
		t.Fatalf("the model saw %d tool results, want 5: %.300q", len(r), r)
	}
	if !strings.Contains(r[0], "exited with code 1") && !strings.Contains(r[0], "Exit code: 1") || !strings.Contains(r[0], failureLines[3]) {
		t.Errorf("the failing log as Codex gives it: %d chars:\n%.600s\n…\n%s", len(r[0]), r[0], r[0][max(0, len(r[0])-600):])
	}
	if _, got, _ := strings.Cut(r[1], "\nOutput:\n"); got != output {
		t.Errorf("memory_query through Codex gave %d chars, want the %d archived, whole", len(got), len(output))
	}
	if !strings.Contains(r[4], "Command blocked by PreToolUse hook: [ctx-loops] Call not run") {
		t.Errorf("the third identical failure: %q", r[4])
	}
	everyTool(t, tools(t), run.Transcript(t))
}
