package truncatecmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestTruncateHookArchives: with an archive, ctx-truncate's hook stores the
// full output before it answers with the cut, and the handle every cut
// field cites gives back, byte for byte, the output as the model would have
// read it (stdout, then stderr); a filter run later over the session file
// that holds the cut cites the same handle.
func TestTruncateHookArchives(t *testing.T) {
	lines := func(from, to int, suffix string) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "%d%s\n", i, suffix)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	cases := []struct {
		name, stdout, stderr string
		args                 []string
	}{
		{"stdout", lines(1, 3000, ""), "", nil},
		{"stdout and stderr", lines(1, 3000, ""), lines(1, 2000, " warning: slow disk") + "\n", nil},
		{"stderr alone", "", lines(1, 3000, " error"), nil},
		{"tokens", lines(1, 3000, " ✓ ok"), "", []string{"--max-tokens", "500"}},
	}
	db := filepath.Join(t.TempDir(), "archive.db")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := fmt.Sprintf("toolu_01ArchiveHookTest%04d", i)
			payload, _ := sjson.Set(`{"session_id":"s-hook","transcript_path":"/t.jsonl","cwd":"/home/dev/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make test"},"tool_response":{"interrupted":false,"isImage":false}}`, "tool_use_id", id)
			payload, _ = sjson.Set(payload, "tool_response.stdout", c.stdout)
			payload, _ = sjson.Set(payload, "tool_response.stderr", c.stderr)
			var stdout, stderr bytes.Buffer
			argv := append([]string{Command.Name, "--hook", "claude-code", "--archive", db, "--encoding", "approx"}, c.args...)
			if code := cli.Run(Command, argv, strings.NewReader(payload), &stdout, &stderr); code != cli.ExitOK || stderr.Len() > 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out := gjson.Get(stdout.String(), "hookSpecificOutput.updatedToolOutput")
			cited := 0
			for _, field := range []string{"stdout", "stderr"} {
				text := out.Get(field).Str
				if len(text) < len(gjson.Get(payload, "tool_response."+field).Str) {
					if h := marker.CitedCut(text); h != id {
						t.Errorf("the cut %s cites %q, want %q", field, h, id)
					}
					cited++
				}
			}
			if cited == 0 {
				t.Fatalf("nothing cut: %.300s", stdout.String())
			}
			a, err := archive.OpenReadOnly(db)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			rec, err := a.Get(id, "")
			if err != nil {
				t.Fatal(err)
			}
			want := c.stdout // and stderr on a line of its own, as Claude Code joins them
			if c.stdout != "" && c.stderr != "" {
				want += "\n"
			}
			want += c.stderr
			if *rec.Output != want {
				t.Errorf("ctx-recall %s gives %d bytes, want the %d of the full output", id, len(*rec.Output), len(want))
			}
			// The session file as Claude Code writes it, with the cut.
			session, _ := sjson.Set(`{"type":"assistant","sessionId":"s-hook","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"make test"}}]}}`, "message.content.0.id", id)
			result, _ := sjson.Set(`{"type":"user","sessionId":"s-hook","message":{"role":"user","content":[{"type":"tool_result"}]}}`, "message.content.0.tool_use_id", id)
			result, _ = sjson.Set(result, "message.content.0.content", strings.TrimPrefix(out.Get("stdout").Str+"\n"+out.Get("stderr").Str, "\n"))
			tr := transcripttest.Parse(t, []byte(session+"\n"+result+"\n"))
			if h := marker.Citation(tr, tr.Results[0]); h != id {
				t.Errorf("a filter over the session file cites %q, want %q", h, id)
			}
		})
	}
}

// testLog is a long test log with three failures in its middle and a
// summary at its end, as a pytest run prints it.
func testLog(lines int) string {
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "tests/test_app.py::test_%04d PASSED %s\n", i, strings.Repeat("·", 40))
		if i == lines/3 || i == lines/2 || i == 2*lines/3 {
			fmt.Fprintf(&b, "FAILED tests/test_app.py::test_%04d - AssertionError: expected 200, got 500\n", i)
		}
	}
	fmt.Fprintf(&b, "=== 3 failed, %d passed in 12.34s ===\n", lines-3)
	return b.String()
}

// TestHookPersisted: an output that Claude Code kept in a file (over about
// 30,000 chars: stdout holds its first 30,000, persistedOutputPath the
// whole) is read from the file and cut like any other: the model gets the
// failure lines of the middle and the summary at the end, not Claude
// Code's preview; the answer has no persisted fields; the archive gives
// back the file's bytes, the last newline too. A path outside the session's
// directory, or a file of another size, is not read.
func TestHookPersisted(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, "projects", "-home-dev-app", "s-1.jsonl")
	full := testLog(600)
	if len(full) < 40000 {
		t.Fatalf("the log has %d chars, want 40,000 or more", len(full))
	}
	persisted := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results", "toolu_01PersistedOutput0001.txt")
	outside := filepath.Join(dir, "elsewhere.txt")
	for path, data := range map[string]string{persisted: full, outside: full} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	payload := func(path string, size int) string {
		p, _ := sjson.Set(`{"session_id":"s-1","cwd":"/home/dev/app","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"toolu_01PersistedOutput0001","tool_input":{"command":"pytest"},"tool_response":{"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}`, "transcript_path", transcript)
		p, _ = sjson.Set(p, "tool_response.stdout", full[:30000])
		p, _ = sjson.Set(p, "tool_response.persistedOutputPath", path)
		p, _ = sjson.Set(p, "tool_response.persistedOutputSize", size)
		return p
	}
	db := filepath.Join(dir, "archive.db")
	run := func(payload string) (string, string) {
		var stdout, stderr bytes.Buffer
		if code := cli.Run(Command, []string{Command.Name, "--hook", "claude-code", "--archive", db}, strings.NewReader(payload), &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, errs := run(payload(persisted, len(full)))
	answer := gjson.Get(out, "hookSpecificOutput.updatedToolOutput")
	got := answer.Get("stdout").Str
	if errs != "" || answer.Get("persistedOutputPath").Exists() || answer.Get("persistedOutputSize").Exists() {
		t.Errorf("stderr %q; the answer keeps the persisted fields: %s", errs, answer.Raw[:min(200, len(answer.Raw))])
	}
	for _, want := range []string{"FAILED tests/test_app.py::test_0200", "FAILED tests/test_app.py::test_0300", "FAILED tests/test_app.py::test_0400", "=== 3 failed, 597 passed in 12.34s ==="} {
		if !strings.Contains(got, want) {
			t.Errorf("the model does not get %q:\n%s", want, got)
		}
	}
	handle := marker.CitedCut(got)
	if handle != "toolu_01PersistedOutput0001" || len(got) > 10000 {
		t.Errorf("the cut (%d chars) cites %q", len(got), handle)
	}
	a, err := archive.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rec, err := a.Get(handle, "")
	if err != nil || *rec.Output != full {
		t.Errorf("ctx-recall %s: %v, %d bytes, want the file's %d", handle, err, len(*rec.Output), len(full))
	}
	for name, p := range map[string]string{"outside the session": payload(outside, len(full)), "another size": payload(persisted, len(full)+1)} {
		if out, errs := run(p); out != "" || !strings.Contains(errs, "the agent goes on as if the hook were not there") {
			t.Errorf("%s: answered %.200q, stderr %q; want no answer and one line", name, out, errs)
		}
	}
}

// TestHookGroupsListings: a long listing that a Bash call printed reaches
// the model with every path after its head, grouped by directory, and a
// search's with every file and the line numbers of its matches: the hook
// cuts what the filter would (internal/truncate's golden listings).
func TestHookGroupsListings(t *testing.T) {
	var listing, hits strings.Builder
	for i := range 400 {
		fmt.Fprintf(&listing, "./internal/pkg%02d/file%03d.go\n", i%20, i)
		fmt.Fprintf(&hits, "internal/pkg%02d/file%03d.go:%d:\tctx context.Context,\n", i/40, i/10, 10+i%10)
	}
	for _, c := range []struct {
		command, stdout, want string
		files                 int
	}{
		{"find . -name '*.go'", listing.String(), "paths under ./internal/, every one named below by directory", 400},
		{"grep -rn context.Context internal", hits.String(), "files under internal/, every file named below with the line numbers of its matches", 40},
	} {
		payload, _ := sjson.Set(`{"session_id":"s-l","cwd":"/home/dev/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"toolu_01Listing","tool_response":{"stderr":"","interrupted":false,"isImage":false}}`, "tool_input.command", c.command)
		payload, _ = sjson.Set(payload, "tool_response.stdout", c.stdout)
		var stdout, stderr bytes.Buffer
		if code := cli.Run(Command, []string{Command.Name, "--hook", "claude-code", "--archive", ""}, strings.NewReader(payload), &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", c.command, code, stderr.String())
		}
		got := gjson.Get(stdout.String(), "hookSpecificOutput.updatedToolOutput.stdout").Str
		if !strings.Contains(got, c.want) || !marker.IsCut(got) {
			t.Fatalf("%s: not grouped:\n%.600s", c.command, got)
		}
		for i := range c.files {
			if file := fmt.Sprintf("file%03d.go", i); !strings.Contains(got, file) {
				t.Errorf("%s: %s is not named", c.command, file)
			}
		}
	}
}
