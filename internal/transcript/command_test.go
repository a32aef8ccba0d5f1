package transcript_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestCommandsOfPolls: a Codex command and the write_stdin calls that poll
// it are one call, whose end is its latest output's: the polls' exit code
// and failure are the command's, and a read whose output came through a
// poll is one read of its file.
func TestCommandsOfPolls(t *testing.T) {
	tr := transcripttest.Load(t, filepath.Join(testutil.Root(t), "testdata", "codex-polled.jsonl"))
	if n := tr.Tally(); n != (transcript.Tally{Calls: 5, Polls: 11, Failed: 1}) {
		t.Errorf("tally %+v, want 5 calls, 11 polls, 1 failed", n)
	}
	var got []string
	for c := range tr.Commands() {
		n := 0
		for range c.Results() {
			n++
		}
		got = append(got, fmt.Sprintf("%s %s: %d results, %v", c.Name, c.Args.Label(c.Kind, tr.Cwd), n, c.End()))
		for _, p := range c.Polls {
			if p.Command() != c || p.End() != c.End() || p.Last() != c.Last() {
				t.Errorf("poll %s of %s: command %s, end %v", p.ID, c.ID, p.Command().ID, p.End())
			}
		}
	}
	want := []string{
		"exec_command go test -v ./...: 4 results, failed",
		"exec_command npm run build: 3 results, ok",
		"exec_command cargo build --release: 5 results, ok",
		`exec_command rg -n "ExpiresAt" internal/ cmd/shortlink/: 2 results, ok`,
		"exec_command internal/store/store.go (lines 1-230): 2 results, ok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	paths, _ := tr.Reads()
	var read []string
	for i, p := range paths {
		if p != "" {
			read = append(read, tr.Calls[i].ID+" "+p)
		}
	}
	if len(read) != 1 || !strings.HasSuffix(read[0], " internal/store/store.go") || tr.Calls[0].IsPoll() {
		t.Errorf("reads %q, want one of internal/store/store.go", read)
	}
}

// TestCommandEndsWithTheFormatsExitCode: a command whose last output was
// taken while it still ran ended as the format's own record says
// (Codex's exec_command_end).
func TestCommandEndsWithTheFormatsExitCode(t *testing.T) {
	rollout := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process running with session ID 7\nOutput:\nbuilding\n"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":7,\"chars\":\"\"}","call_id":"c2"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Process running with session ID 7\nOutput:\nstill building\n"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","aggregated_output":"building\nstill building\nfailed\n","exit_code":2}}
`
	tr := transcripttest.Parse(t, []byte(rollout))
	c := tr.Calls[0]
	if o := c.Outcome(); o.End != outcome.Failed || o.ExitCode != outcome.ExitCode(2) || tr.Calls[1].End() != outcome.Failed {
		t.Errorf("outcome %+v, poll's end %v; want failed, exit 2", o, tr.Calls[1].End())
	}
	if r := c.Result; r.Failed() {
		t.Errorf("the first output, taken while the command ran, failed: %+v", r.Outcome())
	}
}

// TestEndsOfCallsNotRun: a call the user refused, or that the agent
// cancelled because a call beside it failed, did not fail: the tally
// counts it apart, and a call without a result has none.
func TestEndsOfCallsNotRun(t *testing.T) {
	line := func(id, text string) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":"/p/%s.go"}}]}}`+"\n"+
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":%q,"is_error":true}]}}`+"\n", id, id, id, text)
	}
	session := line("a", "<tool_use_error>File does not exist.</tool_use_error>") +
		line("b", "<tool_use_error>Sibling tool call errored</tool_use_error>") +
		line("c", "<tool_use_error>Sibling tool call errored</tool_use_error>") +
		line("d", "The user doesn't want to proceed with this tool use. The tool use was rejected.") +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"e","name":"Bash","input":{"command":"make"}}]}}` + "\n"
	tr := transcripttest.Parse(t, []byte(session))
	if n := tr.Tally(); n != (transcript.Tally{Calls: 5, Failed: 1, Cancelled: 2, Denied: 1, NoResult: 1}) {
		t.Errorf("tally %+v", n)
	}
	if paths, _ := tr.Reads(); strings.Join(paths, "") != "" {
		t.Errorf("reads %q: none ran", paths)
	}
}
