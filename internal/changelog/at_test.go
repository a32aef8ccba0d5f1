package changelog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

func TestAt(t *testing.T) {
	codex := transcripttest.Load(t, filepath.Join("testdata", "sessions", "codex-patch.jsonl"))
	claude := transcripttest.Load(t, filepath.Join("testdata", "sessions", "claude-multiedit.jsonl"))
	cases := []struct {
		name       string
		tr         *transcript.Transcript
		path, call string
		content    string // the file after the call
		err        string // or a part of the error
	}{
		{"as created", codex, "src/discount.js", "call_p2", "export function discount(sum, percent) {\n  return sum - (sum * percent) / 100;\n}\n", ""},
		{"created then patched", codex, "src/discount.js", "call_p4", "export function discount(sum, percent) {\n  const off = Math.round(sum * percent) / 100;\n  return sum - off;\n}\n", ""},
		{"another file's call", codex, "src/discount.js", "call_p3", "", "call call_p3 does not read, edit or write src/discount.js"},
		{"deleted", codex, "src/legacy.js", "call_p5", "", "does not exist after call call_p5: call call_p5 deleted it"},
		{"moved away", codex, "src/cart.js", "call_p2", "", "call call_p2 moved it to src/basket.js"},
		{"moved, content never seen", codex, "src/basket.js", "call_p2", "", "no write, create or whole read of it comes first"},
		{"a whole read", claude, "app/cli.py", "toolu_01Ed6", "import sys\n\nfrom app.models import parse\n\n\ndef main(path):\n    with open(path) as f:\n        tasks = [parse(line) for line in f if line.strip()]\n    for t in sorted(tasks, key=lambda t: -t.priority):\n        print((\"[x] \" if t.done else \"[ ] \") + t.title)\n\n\nif __name__ == \"__main__\":\n    main(sys.argv[1] if len(sys.argv) > 1 else \"tasks.txt\")\n", ""},
		{"no such call", claude, "app/models.py", "toolu_nope", "", "no call toolu_nope"},
		{"never read", claude, "README.md", "toolu_01Bs9", "", "no write, create or whole read of it comes first"},
	}
	for _, c := range cases {
		got, err := At(c.tr, c.path, c.call)
		switch {
		case c.err == "" && (err != nil || got != c.content):
			t.Errorf("%s: At(%s, %s) = %q, %v; want %q", c.name, c.path, c.call, got, err, c.content)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: At(%s, %s): error %v, want one saying %q", c.name, c.path, c.call, err, c.err)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error on several lines: %q", c.name, err)
		}
	}
}

// TestAtCannotReplay: a change whose old text is not in the replayed
// content, or that the call does not show, stops the replay, and the
// error names the call.
func TestAtCannotReplay(t *testing.T) {
	tr, err := transcript.Parse([]byte(`[
{"role":"user","content":"go"},
{"role":"assistant","content":[
 {"type":"tool_use","id":"w1","name":"Write","input":{"file_path":"a.txt","content":"one\ntwo\n"}},
 {"type":"tool_use","id":"e2","name":"Edit","input":{"file_path":"a.txt","old_string":"three","new_string":"3"}},
 {"type":"tool_use","id":"w3","name":"Write","input":{"file_path":"b.txt","content":"ab\n"}},
 {"type":"tool_use","id":"s4","name":"Bash","input":{"command":"sed -i 'y/ab/cd/' b.txt"}},
 {"type":"tool_use","id":"s5","name":"Bash","input":{"command":"sed -i 's/a/A/' b.txt"}}]},
{"role":"user","content":[
 {"type":"tool_result","tool_use_id":"w1","content":"ok"},
 {"type":"tool_result","tool_use_id":"e2","content":"ok"},
 {"type":"tool_result","tool_use_id":"w3","content":"ok"},
 {"type":"tool_result","tool_use_id":"s4","content":""},
 {"type":"tool_result","tool_use_id":"s5","content":""}]}
]`), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, call, want string }{
		{"a.txt", "w1", ""},
		{"a.txt", "e2", `call e2 (Edit, turn 1) cannot be replayed: old string "three": not found in the content replayed so far`},
		{"b.txt", "s4", "call s4 (Bash, turn 1) cannot be replayed: ctx-changelog cannot follow this sed script: command 'y' not supported"},
		{"b.txt", "s5", "call s4 (Bash, turn 1) cannot be replayed"},
	} {
		got, err := At(tr, c.path, c.call)
		if c.want == "" {
			if err != nil || got != "one\ntwo\n" {
				t.Errorf("At(%s, %s) = %q, %v", c.path, c.call, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("At(%s, %s): error %v, want %q", c.path, c.call, err, c.want)
		}
	}
}

func TestResolve(t *testing.T) {
	h := &History{Session: Session{Source: "s.jsonl", Cwd: "/w"}, Changes: []Change{
		{Path: "a/x.go"}, {Path: "b/x.go"}, {Path: "b/y.go", To: "c/z.go"}, {Path: "/etc/hosts"},
	}}
	cases := []struct{ name, want, err string }{
		{"a/x.go", "a/x.go", ""},
		{"/w/a/x.go", "a/x.go", ""},
		{"./b/y.go", "b/y.go", ""},
		{"y.go", "b/y.go", ""},
		{"z.go", "c/z.go", ""},
		{"/etc/hosts", "/etc/hosts", ""},
		{"hosts", "/etc/hosts", ""},
		{"x.go", "", "x.go names 2 files (a/x.go, b/x.go): give more of its path"},
		{"q.go", "", "s.jsonl: no read, edit or write of q.go"},
	}
	for _, c := range cases {
		got, err := h.Resolve(c.name)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %q", c.name, got, err, c.want, c.err)
		}
	}
}
