package loops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// TestDeniedCallsAreNoSteps: a call that a hook denied was not run: it is
// neither a failure (Claude Code records ctx-loops' reason as an error
// result) nor a success (Codex's "Command blocked by PreToolUse hook" has
// no exit code). So every identical call after the third failing one is
// denied, and the reason counts the failures that ran.
func TestDeniedCallsAreNoSteps(t *testing.T) {
	d := detector(t)
	reason := DenyReason(Loop{Kind: Repeat, Steps: []int{0, 1, 2}, Tool: "Bash"}, Step{Tool: "Bash", What: "cat missing.txt"})
	claude := func(i int, out string, failed bool) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%02d","name":"Bash","input":{"command":"cat missing.txt"}}]}}`+"\n"+
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%02d","content":%q,"is_error":%v}]}}`+"\n", i, i, out, failed)
	}
	codex := func(i int, out string, _ bool) string {
		return fmt.Sprintf(`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat missing.txt\"}","call_id":"call_%02d"}}`+"\n"+
			`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_%02d","output":%q}}`+"\n", i, i, out)
	}
	for name, c := range map[string]struct {
		line           func(int, string, bool) string
		failure, block string
	}{
		"claude-code": {claude, "Exit code 1\ncat: missing.txt: No such file or directory", reason},
		"codex":       {codex, "Process exited with code 1\nOutput:\ncat: missing.txt: No such file or directory\n", "Command blocked by PreToolUse hook: " + reason + ". Command: cat missing.txt"},
	} {
		t.Run(name, func(t *testing.T) {
			var session strings.Builder
			session.WriteString(c.line(0, c.failure, true) + c.line(1, c.failure, true))
			for i := 2; i < 8; i++ {
				tr := transcripttest.Parse(t, []byte(session.String()))
				steps := Steps(tr, "/p")
				next, _ := HookStep(tools.NewTable(nil), "next", "Bash", `{"command":"cat missing.txt"}`, "/p")
				l, found := d.Check(steps, next)
				if !found {
					t.Fatalf("call %d: not denied; steps %d", i+1, len(steps))
				}
				if got := DenyReason(l, next); !strings.Contains(got, "has already failed 2 times") {
					t.Errorf("call %d: %s", i+1, got)
				}
				session.WriteString(c.line(i, c.block, true))
			}
			tr := transcripttest.Parse(t, []byte(session.String()))
			if rep := d.Analyze(tr); rep.Calls != 8 || rep.Failed != 2 || rep.Denied != 6 {
				t.Errorf("report: %d calls, %d failed, %d denied; want 8, 2, 6", rep.Calls, rep.Failed, rep.Denied)
			}
		})
	}
}

// TestCancelledCallsAreNoLoop: seven reads made in parallel with one that
// failed are cancelled ("Sibling tool call errored"): not run, so neither
// failures nor a loop of the same error; the one failure stays.
func TestCancelledCallsAreNoLoop(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_00","name":"Read","input":{"file_path":"/p/missing.go"}}`)
	for i := 1; i < 8; i++ {
		fmt.Fprintf(&b, `,{"type":"tool_use","id":"toolu_%02d","name":"Read","input":{"file_path":"/p/f%d.go"}}`, i, i)
	}
	b.WriteString("]}}\n" + `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_00","content":"<tool_use_error>File does not exist.</tool_use_error>","is_error":true}`)
	for i := 1; i < 8; i++ {
		fmt.Fprintf(&b, `,{"type":"tool_result","tool_use_id":"toolu_%02d","content":"<tool_use_error>Sibling tool call errored</tool_use_error>","is_error":true}`, i)
	}
	b.WriteString("]}}\n")
	rep := detector(t).Analyze(transcripttest.Parse(t, []byte(b.String())))
	if rep.Calls != 8 || rep.Failed != 1 || rep.Cancelled != 7 || len(rep.Loops) != 0 {
		t.Errorf("%d calls, %d failed, %d cancelled, loops %+v; want 8, 1, 7 and none", rep.Calls, rep.Failed, rep.Cancelled, rep.Loops)
	}
}
