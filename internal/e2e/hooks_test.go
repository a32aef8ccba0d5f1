package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// example reads one of the example hook configurations, as a user pastes it.
func example(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.Root(t), "examples", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// hookEnv is what an agent's hooks run with: the ctx-* binaries first on
// the PATH, and their state in the test's own directory.
func hookEnv(t *testing.T) []string {
	return []string{pathEnv(tools(t)), "CTX_STATE_DIR=" + t.TempDir()}
}

// TestLoopDenied: the model calls the same failing command eight times; the
// example PreToolUse hook denies the third and every one after it, each
// time counting the two failures that ran (a denied call was not run: it is
// neither a failure nor a success), and the requests to the model carry the
// reason instead of more failures. The command has white space inside its
// quotes, which the reason quotes as it was run.
func TestLoopDenied(t *testing.T) {
	const command = `cat missing.txt || python3 -c "print('E   AssertionError: boom')" >&2; exit 1`
	cases := []struct {
		agent agenttest.Agent
		hooks string
		turn  agenttest.Turn
	}{
		{agenttest.ClaudeCode, "claude-code/settings.json", agenttest.Turn{Tool: "Bash", Input: map[string]any{"command": command, "description": "Show the file"}}},
		{agenttest.Codex, "codex/hooks.json", agenttest.Turn{Tool: "exec_command", Input: map[string]any{"cmd": command}}},
		{agenttest.Codex, "codex/config.toml", agenttest.Turn{Tool: "exec_command", Input: map[string]any{"cmd": command}}},
	}
	for _, c := range cases {
		t.Run(c.hooks, func(t *testing.T) {
			exe := c.agent.Install(t)
			srv := server(t, repeat(8, c.turn))
			run := c.agent.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Show me missing.txt.", Hooks: example(t, c.hooks), Env: hookEnv(t)})
			results := srv.ToolResults()
			if len(results) != 8 {
				t.Fatalf("the model saw %d tool results, want 8: %q", len(results), results)
			}
			for _, r := range results[:2] {
				if !strings.Contains(r, "No such file or directory") {
					t.Errorf("a failure the model saw: %q", r)
				}
			}
			want := "[ctx-loops] Call not run: it would repeat an error loop.\nBash (" + command + ") has already failed 2 times"
			for i, r := range results[2:] {
				if !strings.Contains(r, want) {
					t.Errorf("call %d: the model saw %q, want the hook's reason %q", i+3, r, want)
				}
			}
			path := run.Transcript(t)
			if tr := transcripttest.Load(t, path); len(tr.Calls) != 8 {
				t.Errorf("the transcript holds %d calls, want 8", len(tr.Calls))
			}
			report, err := exec.Command(filepath.Join(tools(t), "ctx-loops"), path).Output()
			if err != nil || !strings.Contains(string(report), ", 8 calls, 2 failed, 6 denied; ") {
				t.Errorf("ctx-loops on the session: %v\n%s", stderrOf(err), report)
			}
			everyTool(t, tools(t), path)
		})
	}
}

// TestOutputCut: a 5,000-line Bash output reaches the model already cut by
// the example PostToolUse hook, and the session file records the cut (the
// command is a pipeline, which the PreToolUse rewrite leaves alone:
// TestSetupClaudeCode has the rewrite's cut). The
// hook archives the full output first, in the default archive (the one
// ctx-recall reads) or in CTX_ARCHIVE's, and the cut cites it: ctx-recall
// gives back the 5,000 lines. CTX_ARCHIVE set empty keeps none.
func TestOutputCut(t *testing.T) {
	for _, archive := range []string{"default", "CTX_ARCHIVE", "none"} {
		t.Run(archive, func(t *testing.T) {
			exe := agenttest.ClaudeCode.Install(t)
			srv := server(t, []agenttest.Turn{{Tool: "Bash", Input: map[string]any{"command": "seq 1 5000 | cat", "description": "Count"}}})
			env := hookEnv(t)
			db := filepath.Join(t.TempDir(), "archive.db")
			switch archive {
			case "CTX_ARCHIVE":
				env = append(env, "CTX_ARCHIVE="+db)
			case "none":
				env = append(env, "CTX_ARCHIVE=")
			}
			run := agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Count to 5000.",
				Hooks: example(t, "claude-code/settings.json"), Env: env})
			if archive == "default" {
				db = filepath.Join(run.Home, ".local", "share", "ctxkit", "archive.db")
			}
			results := srv.ToolResults()
			if len(results) != 1 {
				t.Fatalf("the model saw %d tool results, want 1", len(results))
			}
			got := results[0]
			if !strings.HasPrefix(got, "1\n2\n3\n") || !strings.HasSuffix(got, "4999\n5000") ||
				!strings.Contains(got, "\n[ctx-truncate] 23,892 chars, 5,000 lines; ") || len(got) > 6000 {
				t.Errorf("the model saw %d chars, want the head, the marker and the tail:\n%q\n…\n%q", len(got), got[:min(300, len(got))], got[max(0, len(got)-300):])
			}
			path := run.Transcript(t)
			tr := transcripttest.Load(t, path)
			if len(tr.Results) != 1 || tr.Results[0].Text() != got {
				t.Errorf("the transcript records another output than the model saw")
			}
			handle := marker.CitedCut(got)
			switch {
			case archive == "none" && handle != "":
				t.Errorf("without an archive, the cut cites %s", handle)
			case archive != "none" && handle == "":
				t.Errorf("with an archive, the cut cites no handle: %q", got[:min(len(got), 3000)])
			case archive != "none":
				full, err := exec.Command(filepath.Join(tools(t), "ctx-recall"), "--db", db, handle).Output()
				if err != nil {
					t.Fatalf("ctx-recall %s: %v", handle, stderrOf(err))
				}
				if want := seq(5000); string(full) != want {
					t.Errorf("ctx-recall %s gave %d bytes, want the %d of the 5,000 lines", handle, len(full), len(want))
				}
			}
			everyTool(t, tools(t), path)
		})
	}
}

// seq is what seq 1 n prints, as Claude Code gives it: without the last
// newline.
func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// TestRereadPointer: the file is read, touched (so Claude Code reads it
// again instead of answering "unchanged"), and read again: the example
// PostToolUse hook makes the identical re-read a pointer to the first.
func TestRereadPointer(t *testing.T) {
	exe := agenttest.ClaudeCode.Install(t)
	dir := t.TempDir()
	var content strings.Builder
	for i := 1; i <= 50; i++ {
		content.WriteString("line of the config file, the same at every read\n")
	}
	file := filepath.Join(dir, "config.txt")
	read := agenttest.Turn{Tool: "Read", Input: map[string]any{"file_path": file}}
	srv := server(t, []agenttest.Turn{
		read,
		{Tool: "Bash", Input: map[string]any{"command": "touch -d '+1 minute' config.txt", "description": "Touch"}},
		read,
	})
	run := agenttest.ClaudeCode.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Read config.txt twice.", Dir: dir,
		Files: map[string]string{"config.txt": content.String()}, Hooks: example(t, "claude-code/settings.json"), Env: hookEnv(t)})
	results := srv.ToolResults()
	if len(results) != 3 {
		t.Fatalf("the model saw %d tool results, want 3", len(results))
	}
	if !strings.Contains(results[0], "line of the config file") {
		t.Errorf("the first read: %q", results[0])
	}
	if want := "[ctx-dedupe] Re-read of config.txt (2,400 chars, 50 lines): identical to the result of call " + agenttest.ToolUseID(0) + " above"; !strings.Contains(results[2], want) {
		t.Errorf("the re-read: the model saw %q, want %q", results[2], want)
	}
	everyTool(t, tools(t), run.Transcript(t))
}

func repeat(n int, turn agenttest.Turn) []agenttest.Turn {
	out := make([]agenttest.Turn, n)
	for i := range out {
		out[i] = turn
	}
	return out
}

// server starts a scripted model server for the test.
func server(t *testing.T, script []agenttest.Turn) *agenttest.Server {
	t.Helper()
	srv, err := agenttest.NewServer(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestPlaybookAtStart: with the example SessionStart hook, a new session
// starts with the playbook: the model's first request carries it.
func TestPlaybookAtStart(t *testing.T) {
	cases := []struct {
		agent agenttest.Agent
		hooks string
	}{
		{agenttest.ClaudeCode, "claude-code/settings.json"},
		{agenttest.Codex, "codex/hooks.json"},
		{agenttest.Codex, "codex/config.toml"},
	}
	for _, c := range cases {
		t.Run(c.hooks, func(t *testing.T) {
			exe := c.agent.Install(t)
			pb := filepath.Join(t.TempDir(), "playbook.json")
			add := exec.Command(filepath.Join(tools(t), "ctx-playbook"), "add", "--playbook", pb, "--category", "testing",
				"Run the package's tests before the whole suite.")
			if out, err := add.CombinedOutput(); err != nil {
				t.Fatalf("ctx-playbook add: %v: %s", err, out)
			}
			srv := server(t, []agenttest.Turn{{Text: "Noted."}})
			c.agent.Run(t, exe, agenttest.Session{Server: srv, Prompt: "What should I keep in mind?", Hooks: example(t, c.hooks),
				Env: append(hookEnv(t), "CTX_PLAYBOOK="+pb)})
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("the model was never asked")
			}
			if want := "[tes-00001] Run the package's tests before the whole suite."; !strings.Contains(string(reqs[0]), want) {
				t.Errorf("the first request to the model lacks the playbook's %q: %.2000s", want, reqs[0])
			}
		})
	}
}
