package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// The payloads as Claude Code 2.1.197 and Codex 0.169.0 send them.
const (
	claudePre     = `{"session_id":"4f47","transcript_path":"/home/dev/.claude/projects/-home-dev-p/4f47.jsonl","cwd":"/home/dev/p","prompt_id":"4d86","permission_mode":"bypassPermissions","effort":{"level":"high"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat missing.txt","description":"read"},"tool_use_id":"toolu_00"}`
	claudePost    = `{"session_id":"4f47","transcript_path":"/t.jsonl","cwd":"/home/dev/p","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/p/a.txt"},"tool_response":{"type":"text","file":{"filePath":"/home/dev/p/a.txt","content":"hello\nworld\n","numLines":3,"startLine":1,"totalLines":3}},"tool_use_id":"toolu_01","duration_ms":10}`
	claudeFailure = `{"session_id":"4f47","transcript_path":"/t.jsonl","cwd":"/home/dev/p","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"false"},"tool_use_id":"toolu_02","error":"Exit code 1","is_interrupt":false,"duration_ms":108}`
	codexPost     = `{"session_id":"01a2","turn_id":"01a3","transcript_path":"/r.jsonl","cwd":"/home/dev/p","hook_event_name":"PostToolUse","model":"gpt-5","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"seq 1 3"},"tool_response":"1\n2\n3\n","tool_use_id":"call_01"}`
	sessionStart  = `{"session_id":"4f47","transcript_path":"/t.jsonl","cwd":"/home/dev/p","hook_event_name":"SessionStart","source":"compact"}`
)

func TestParse(t *testing.T) {
	cases := []struct {
		payload string
		want    Payload
	}{
		{claudePre, Payload{Event: PreToolUse, SessionID: "4f47", TranscriptPath: "/home/dev/.claude/projects/-home-dev-p/4f47.jsonl", Cwd: "/home/dev/p",
			ToolName: "Bash", ToolUseID: "toolu_00", ToolInput: `{"command":"cat missing.txt","description":"read"}`, PermissionMode: "bypassPermissions"}},
		{claudeFailure, Payload{Event: "PostToolUseFailure", SessionID: "4f47", TranscriptPath: "/t.jsonl", Cwd: "/home/dev/p",
			ToolName: "Bash", ToolUseID: "toolu_02", ToolInput: `{"command":"false"}`, Error: "Exit code 1"}},
		{codexPost, Payload{Event: PostToolUse, SessionID: "01a2", TranscriptPath: "/r.jsonl", Cwd: "/home/dev/p",
			ToolName: "Bash", ToolUseID: "call_01", ToolInput: `{"command":"seq 1 3"}`, ToolResponse: `"1\n2\n3\n"`, PermissionMode: "bypassPermissions"}},
		{sessionStart, Payload{Event: SessionStart, SessionID: "4f47", TranscriptPath: "/t.jsonl", Cwd: "/home/dev/p", Source: "compact"}},
		// Fields of unexpected types read as empty; unknown ones are ignored.
		{`{"hook_event_name":7,"tool_name":null,"tool_input":null,"session_id":["x"],"cwd":"/p","new_field":{"a":1}}`, Payload{Cwd: "/p"}},
		{`{}`, Payload{}},
	}
	for _, c := range cases {
		got, err := Parse([]byte(c.payload))
		if err != nil {
			t.Errorf("Parse(%.60s): %v", c.payload, err)
			continue
		}
		if got != c.want {
			t.Errorf("Parse(%.60s)\n got %+v\nwant %+v", c.payload, got, c.want)
		}
		if back, err := Parse(got.JSON()); err != nil || back != got {
			t.Errorf("Parse(JSON()) of %+v = %+v, %v", got, back, err)
		}
	}
	for _, bad := range []string{"", "not json", `{"a":`, `[1,2]`, `"string"`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

func TestResponse(t *testing.T) {
	p, _ := Parse([]byte(claudePost))
	if got, ok := p.Response("file.content"); !ok || got != "hello\nworld\n" {
		t.Errorf("file.content = %q, %v", got, ok)
	}
	if _, ok := p.Response("file.numLines"); ok {
		t.Errorf("a number read as a string")
	}
	out, err := p.EditResponse(map[string]string{"file.content": "POINTER"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"text","file":{"filePath":"/home/dev/p/a.txt","content":"POINTER","numLines":3,"startLine":1,"totalLines":3}}`
	if out != want {
		t.Errorf("EditResponse: %s\nwant %s", out, want)
	}
	codex, _ := Parse([]byte(codexPost))
	if _, ok := codex.Response("stdout"); ok {
		t.Errorf("Codex's string response has no stdout")
	}
}

// TestAnswers: the answers in the shapes the agents document.
func TestAnswers(t *testing.T) {
	reason := "it failed twice: \"x\" <y> & z\nnext line"
	deny := string(Deny(reason))
	var d struct {
		HookSpecificOutput struct{ HookEventName, PermissionDecision, PermissionDecisionReason string }
	}
	if err := json.Unmarshal([]byte(deny), &d); err != nil || d.HookSpecificOutput.HookEventName != "PreToolUse" ||
		d.HookSpecificOutput.PermissionDecision != "deny" || d.HookSpecificOutput.PermissionDecisionReason != reason ||
		!strings.HasPrefix(deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"`) {
		t.Errorf("Deny: %s", deny)
	}
	upd := string(UpdatedToolOutput(`{"stdout":"CUT","stderr":"","interrupted":false,"isImage":false}`))
	if want := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"CUT","stderr":"","interrupted":false,"isImage":false}}}`; upd != want {
		t.Errorf("UpdatedToolOutput: %s\nwant %s", upd, want)
	}
	ctx := string(AdditionalContext("# Playbook\n\n- [fil-00001] Read a file before editing it. (helpful 3, harmful 0)\n"))
	if want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Playbook\n\n- [fil-00001] Read a file before editing it. (helpful 3, harmful 0)\n"}}`; ctx != want {
		t.Errorf("AdditionalContext: %s\nwant %s", ctx, want)
	}
	for _, a := range []string{deny, upd, ctx} {
		if !json.Valid([]byte(a)) || strings.Contains(a, "\n") {
			t.Errorf("not one line of JSON: %s", a)
		}
	}
}

func TestParseAgent(t *testing.T) {
	for in, want := range map[string]Agent{"claude-code": ClaudeCode, " Claude ": ClaudeCode, "codex": Codex, "CODEX": Codex} {
		if got, err := ParseAgent(in); err != nil || got != want {
			t.Errorf("ParseAgent(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseAgent("gemini"); err == nil {
		t.Error("ParseAgent(gemini): no error")
	}
}

// FuzzParse: any input gives a payload or an error, never a panic, and an
// answer built from what was read is one line of valid JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{claudePre, claudePost, claudeFailure, codexPost, sessionStart, `{}`, `[]`, `{"tool_response":{"file":{"content":1}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		if a := Deny(p.ToolName + p.Error); !json.Valid(a) {
			t.Fatalf("Deny gave invalid JSON: %s", a)
		}
		if p.ToolResponse != "" && strings.HasPrefix(p.ToolResponse, "{") {
			out, err := p.EditResponse(map[string]string{"stdout": "x"})
			if err == nil && !json.Valid(UpdatedToolOutput(out)) {
				t.Fatalf("UpdatedToolOutput gave invalid JSON from %s", p.ToolResponse)
			}
		}
		// The session lines of any payload parse, with the call and its output.
		tr, err := transcript.Parse(p.Session(p.Output(), time.Unix(0, 0)), transcript.Options{Format: transcript.ClaudeCode})
		if err != nil || len(tr.Results) != 1 || tr.Results[0].Text() != p.Output() {
			t.Fatalf("Session of %.100s: %v", data, err)
		}
	})
}

// TestOutput: what the model reads of a tool's output.
func TestOutput(t *testing.T) {
	bash := func(stdout, stderr string) string {
		return `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":` + strconv.Quote(stdout) + `,"stderr":` + strconv.Quote(stderr) + `,"interrupted":false}}`
	}
	cases := map[string]string{
		bash("1\n2", ""):         "1\n2",
		bash("1\n2", "warning"):  "1\n2\nwarning",
		bash("", "warning\n"):    "warning\n",
		bash("", ""):             "",
		codexPost:                "1\n2\n3\n",
		claudePost:               "", // a Read: no stdout
		claudePre:                "",
		`{"tool_response":null}`: "",
	}
	for payload, want := range cases {
		p, err := Parse([]byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Output(); got != want {
			t.Errorf("Output of %.80s = %q, want %q", payload, got, want)
		}
	}
}

// TestSession: the session lines of a payload hold the call as a session
// file would: its session, directory, tool, arguments and id, and the
// output as its result.
func TestSession(t *testing.T) {
	p, _ := Parse([]byte(claudePre))
	at := time.Date(2026, 1, 31, 14, 0, 0, 0, time.UTC)
	data := p.Session("out \"quoted\"\n", at)
	tr, err := transcript.Parse(data, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != transcript.ClaudeCode || tr.SessionID != "4f47" || tr.Cwd != "/home/dev/p" || len(tr.Calls) != 1 || len(tr.Results) != 1 {
		t.Fatalf("%s: format %s, session %q, cwd %q, %d calls, %d results", data, tr.Format, tr.SessionID, tr.Cwd, len(tr.Calls), len(tr.Results))
	}
	c, r := tr.Calls[0], tr.Results[0]
	if c.ID != "toolu_00" || c.Name != "Bash" || c.Args.Command != "cat missing.txt" || r.Call != c || r.Text() != "out \"quoted\"\n" || !c.Message.Time.Equal(at) {
		t.Errorf("%s: call %s %s %q at %v, result %q", data, c.ID, c.Name, c.Args.Command, c.Message.Time, r.Text())
	}
}

// TestClaudeAllows: the rules count when a settings file Claude Code reads
// allows every one of them, or in the bypassPermissions mode.
func TestClaudeAllows(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	rules := []string{"Bash(set -o pipefail)", "Bash(ctx-truncate --output-of:*)"}
	p := Payload{Cwd: "/elsewhere", PermissionMode: "default"}
	write := func(path, content string) {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if p.ClaudeAllows(rules) {
		t.Error("no settings: allowed")
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(set -o pipefail)"]}}`)
	if p.ClaudeAllows(rules) {
		t.Error("one rule of two: allowed")
	}
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"permissions":{"allow":["Bash(ctx-truncate --output-of:*)"]}}`)
	if !p.ClaudeAllows(rules) {
		t.Error("both rules, in the user's and the project's files: not allowed")
	}
	if !(Payload{PermissionMode: "bypassPermissions"}).ClaudeAllows([]string{"Bash(x)"}) {
		t.Error("bypassPermissions: not allowed")
	}
}
