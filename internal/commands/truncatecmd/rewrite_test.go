package truncatecmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// run runs ctx-truncate with args on stdin, and fails the test on a
// status other than 0 or anything on stderr.
func run(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Run(Command, append([]string{Command.Name}, args...), strings.NewReader(stdin), &stdout, &stderr); code != cli.ExitOK || stderr.Len() > 0 {
		t.Fatalf("ctx-truncate %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// TestRewrite: on PreToolUse the hook answers with the command rewritten
// (shellwrap) and no permission decision, every other field of the input
// kept; the rewritten line's filter, given the command's output, archives
// it under the call and prints the cut, which cites the call; later hooks
// read the call's command as the model wrote it.
func TestRewrite(t *testing.T) {
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	db := filepath.Join(t.TempDir(), "archive.db")
	const id = "toolu_01RewriteTestRewriteTest"
	payload := `{"session_id":"s-rw","transcript_path":"/t.jsonl","cwd":"/home/dev/p","permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd app && pytest -x","description":"Run the tests","timeout":60000},"tool_use_id":"` + id + `"}`
	answer := run(t, payload, "--hook", "claude-code", "--archive", db, "--max-chars", "5000")
	out := gjson.Get(answer, "hookSpecificOutput")
	if out.Get("permissionDecision").Exists() || out.Get("hookEventName").Str != "PreToolUse" {
		t.Fatalf("the answer: %s", answer)
	}
	input := out.Get("updatedInput")
	want := "set -o pipefail; cd app && pytest -x 2>&1 | ctx-truncate --output-of " + id + " --archive " + db + " --max-chars 5000"
	if got := input.Get("command").Str; got != want {
		t.Errorf("the rewritten command:\n%s\nwant\n%s", got, want)
	}
	if input.Get("description").Str != "Run the tests" || input.Get("timeout").Int() != 60000 {
		t.Errorf("the other fields of the input: %s", input.Raw)
	}

	// The line's filter, as bash runs it: the same flags.
	log := testLog(2000)
	cut := run(t, log, "--output-of", id, "--archive", db, "--max-chars", "5000")
	if h := marker.CitedCut(cut); h != id || len(cut) > 8000 || !strings.Contains(cut, "FAILED") {
		t.Errorf("the model's output (%d chars) cites %q, want a cut citing %s:\n%s", len(cut), h, id, cut)
	}
	a, err := archive.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rec, err := a.Get(id, "")
	if err != nil || rec.Output == nil || *rec.Output != log || rec.Cwd != "/home/dev/p" || rec.Session != "s-rw" || rec.Command != "cd app && pytest -x" {
		t.Fatalf("the archive: %v, %+v", err, rec)
	}

	// PostToolUse: Claude Code gives the rewritten input; the hook reads
	// the model's.
	post, _ := sjson.Set(payload, "tool_input.command", input.Get("command").Str)
	post, _ = sjson.Set(post, "hook_event_name", "PostToolUse")
	if p, err := hook.Parse([]byte(post)); err != nil || gjson.Get(p.ToolInput, "command").Str != "cd app && pytest -x" {
		t.Errorf("the payload after the rewrite reads %q", p.ToolInput)
	}
}

// TestRewriteLeavesAlone: no answer for a command the rewrite leaves
// alone, one run in the background, another tool, Codex, or where Claude
// Code would ask before running the rewritten line (no settings allow its
// two added parts, and the mode asks).
func TestRewriteLeavesAlone(t *testing.T) {
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	asks := `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make test"},"tool_use_id":"toolu_01LeftAloneLeftAlone"}`
	if got := run(t, asks, "--hook", "claude-code"); got != "" {
		t.Errorf("without the rules: answered %s", got)
	}
	home := os.Getenv("HOME")
	_ = os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	_ = os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(set -o pipefail)","Bash(ctx-truncate --output-of:*)"]}}`), 0o644)
	if got := run(t, asks, "--hook", "claude-code"); !strings.Contains(got, "updatedInput") {
		t.Errorf("with the rules in the user's settings: answered %q", got)
	}
	// Two commands that print go in braces, before which Claude Code asks
	// unless its permissions are bypassed.
	two, _ := sjson.Set(asks, "tool_input.command", "make && make test")
	if got := run(t, two, "--hook", "claude-code"); got != "" {
		t.Errorf("two commands, permissions asked: answered %s", got)
	}
	two, _ = sjson.Set(two, "permission_mode", "bypassPermissions")
	if got := gjson.Get(run(t, two, "--hook", "claude-code"), "hookSpecificOutput.updatedInput.command").Str; !strings.HasPrefix(got, "set -o pipefail; { make && make test; } 2>&1 | ") {
		t.Errorf("two commands, permissions bypassed: rewritten to %q", got)
	}
	base := `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make test"},"tool_use_id":"toolu_01LeftAloneLeftAlone"}`
	bg, _ := sjson.Set(base, "tool_input.run_in_background", true)
	pipe, _ := sjson.Set(base, "tool_input.command", "make test | tail")
	edit, _ := sjson.Set(base, "tool_name", "Edit")
	badID, _ := sjson.Set(base, "tool_use_id", "a b")
	for name, payload := range map[string]string{"background": bg, "pipeline": pipe, "edit": edit, "bad id": badID} {
		if got := run(t, payload, "--hook", "claude-code"); got != "" {
			t.Errorf("%s: answered %s", name, got)
		}
	}
	var stdout, stderr bytes.Buffer
	cli.Run(Command, []string{Command.Name, "--hook", "codex"}, strings.NewReader(base), &stdout, &stderr)
	if stdout.Len() > 0 {
		t.Errorf("codex: answered %s", stdout.String())
	}
}

// TestPipedNeverBreaks: the filter of a rewritten line passes the output
// on as it came (and exits 0, says nothing) when it is short, an image,
// when the call's payload is gone, or when the archive cannot be written.
func TestPipedNeverBreaks(t *testing.T) {
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	long := testLog(2000)
	image := "data:image/png;base64," + strings.Repeat("iVBORw0KGgo", 3000)
	for name, c := range map[string]struct{ in, archive string }{
		"short":          {"3 passed\n", ""},
		"image":          {image, ""},
		"no payload":     {long, ""},
		"archive is dir": {long, t.TempDir()},
	} {
		args := []string{"--output-of", "toolu_01NoSuchCallNoSuchCall"}
		if c.archive != "" {
			args = append(args, "--archive", c.archive)
		}
		if got := run(t, c.in, args...); got != c.in {
			t.Errorf("%s: the output changed: %d bytes of %d", name, len(got), len(c.in))
		}
	}
}

// TestPipedInBash runs a rewritten line in bash with the real binary's
// code on the other end of the pipe: the command's exit status survives.
func TestPipedInBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	// The filter's side is TestRewrite's; the shell's side is shellwrap's
	// TestSameAsUnwrapped. Here: pipefail with a filter that reads to the
	// end and exits 0 gives the command's status.
	out, err := exec.Command("bash", "-c", "set -o pipefail; sh -c 'seq 1 50000; exit 3' 2>&1 | cat >/dev/null").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("status %v, want 3: %s", err, out)
	}
}
