package truncatecmd

import (
	"bytes"
	"fmt"
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
