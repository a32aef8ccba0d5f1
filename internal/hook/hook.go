// Package hook reads the payloads that Claude Code and Codex CLI send their
// hooks on stdin and writes the answers each documents. It is pure: the
// caller (internal/cli's Hook) reads stdin and writes stdout. Payloads are read
// tolerantly: unknown fields are ignored and a field of an unexpected type
// reads as empty, since the agents add fields from version to version.
package hook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/ctxkit/ctxkit/internal/hook/shellwrap"
)

// Agent is an agent whose hooks ctxkit answers.
type Agent string

// The agents, by the names --hook takes.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
)

// ParseAgent reads a --hook value.
func ParseAgent(s string) (Agent, error) {
	switch a := Agent(strings.ToLower(strings.TrimSpace(s))); a {
	case ClaudeCode, Codex:
		return a, nil
	case "claude", "claudecode", "claude_code":
		return ClaudeCode, nil
	}
	return "", fmt.Errorf("unknown agent %q (want claude-code or codex)", s)
}

// The events ctxkit's hooks handle, by their hook_event_name.
const (
	PreToolUse  = "PreToolUse"
	PostToolUse = "PostToolUse"
	// PostToolUseFailure is Claude Code's event after a call that failed
	// (PostToolUse follows only the ones that succeeded).
	PostToolUseFailure = "PostToolUseFailure"
	SessionStart       = "SessionStart"
)

// Payload is what an agent sends a hook. Fields the event does not carry
// are empty.
type Payload struct {
	Event          string // hook_event_name
	SessionID      string
	TranscriptPath string // the session file: Claude Code's JSONL, Codex's rollout
	Cwd            string
	ToolName       string // Bash, Read... (Codex names its exec_command "Bash")
	ToolUseID      string // the call's id in the transcript (Codex: the call_id)
	// ToolInput is the call's arguments as JSON text ({"command": ...}), ""
	// when absent.
	ToolInput string
	// ToolResponse is the tool's output as JSON text: an object in the tool's
	// own shape for Claude Code (Bash: {stdout, stderr, interrupted,
	// isImage}), a string for Codex. "" when absent.
	ToolResponse string
	Source       string // SessionStart: startup, resume, clear, compact
	// Error is what a failed call gave (Claude Code's PostToolUseFailure).
	Error string
	// PermissionMode is Claude Code's: default, acceptEdits, plan,
	// bypassPermissions...
	PermissionMode string
}

// Parse reads a payload. Only JSON that is not an object is an error; what
// the object lacks stays empty for the caller to judge.
func Parse(data []byte) (Payload, error) {
	if !gjson.ValidBytes(data) {
		return Payload{}, errors.New("the payload on stdin is not JSON")
	}
	v := gjson.ParseBytes(data)
	if !v.IsObject() {
		return Payload{}, errors.New("the payload on stdin is not a JSON object")
	}
	str := func(key string) string {
		if f := v.Get(key); f.Type == gjson.String {
			return f.Str
		}
		return ""
	}
	raw := func(key string) string {
		if f := v.Get(key); f.Exists() && f.Type != gjson.Null {
			return f.Raw
		}
		return ""
	}
	input := raw("tool_input")
	// After a PreToolUse hook rewrote a Bash command (shellwrap), Claude
	// Code gives the later hooks the rewritten one: they read the call as
	// the model made it, as the transcript records it.
	if cmd := gjson.Get(input, "command"); cmd.Type == gjson.String {
		if original, ok := shellwrap.Unwrap(cmd.Str); ok {
			input, _ = sjson.Set(input, "command", original)
		}
	}
	return Payload{
		Event:          str("hook_event_name"),
		SessionID:      str("session_id"),
		TranscriptPath: str("transcript_path"),
		Cwd:            str("cwd"),
		ToolName:       str("tool_name"),
		ToolUseID:      str("tool_use_id"),
		ToolInput:      input,
		ToolResponse:   raw("tool_response"),
		Source:         str("source"),
		Error:          str("error"),
		PermissionMode: str("permission_mode"),
	}, nil
}

// JSON is the payload as an agent would send it, with the fields Parse
// reads: Parse(p.JSON()) is p.
func (p Payload) JSON() []byte {
	out := []byte(`{}`)
	for _, f := range []struct{ key, value string }{
		{"hook_event_name", p.Event}, {"session_id", p.SessionID}, {"transcript_path", p.TranscriptPath},
		{"cwd", p.Cwd}, {"tool_name", p.ToolName}, {"tool_use_id", p.ToolUseID}, {"source", p.Source}, {"error", p.Error},
		{"permission_mode", p.PermissionMode},
	} {
		if f.value != "" {
			out, _ = sjson.SetBytes(out, f.key, f.value)
		}
	}
	for _, f := range []struct{ key, raw string }{{"tool_input", p.ToolInput}, {"tool_response", p.ToolResponse}} {
		if f.raw != "" {
			out, _ = sjson.SetRawBytes(out, f.key, []byte(f.raw))
		}
	}
	return out
}

// Bypassed reports whether Claude Code runs the call's commands without
// asking, whatever they are (the bypassPermissions mode).
func (p Payload) Bypassed() bool { return p.PermissionMode == "bypassPermissions" }

// ClaudeAllows reports whether Claude Code would run a Bash command line
// made of the given rules' parts without asking: in the bypassPermissions
// mode, or when every rule is in the permissions.allow of a settings file
// it reads (the user's, the project's, the project's local one, the
// managed one). The project is $CLAUDE_PROJECT_DIR, which Claude Code sets
// for its hooks, else the payload's cwd.
func (p Payload) ClaudeAllows(rules []string) bool {
	if p.Bypassed() {
		return true
	}
	project := os.Getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = p.Cwd
	}
	files := []string{filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"),
		"/etc/claude-code/managed-settings.json"}
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		files = append(files, filepath.Join(dir, "settings.json"))
	} else if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	allowed := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, r := range gjson.GetBytes(data, "permissions.allow").Array() {
			allowed[r.Str] = true
		}
	}
	for _, r := range rules {
		if !allowed[r] {
			return false
		}
	}
	return true
}

// Response returns a string field of Claude Code's tool_response object by
// its path of keys separated by dots (stdout, file.content), and whether it
// is there as a string.
func (p Payload) Response(path string) (string, bool) {
	if p.ToolResponse == "" {
		return "", false
	}
	v := gjson.Get(p.ToolResponse, path)
	return v.Str, v.Type == gjson.String
}

// Persisted is where Claude Code kept the whole output of a Bash call
// because it was long (over about 30,000 chars), and its size: the
// tool_response then holds only the output's first 30,000 chars as stdout,
// with persistedOutputPath and persistedOutputSize, and Claude Code shows
// the model its own 2 KB preview of the file unless a hook answers without
// those two fields (WithoutPersisted). The file holds the command's output
// as it printed it, its last newline too, which stdout lacks. false when
// there is none, or when the path is not where Claude Code keeps a
// session's outputs (in the directory beside the transcript named after
// it): a payload does not make a hook read any file it names.
func (p Payload) Persisted() (path string, size int64, ok bool) {
	if p.ToolResponse == "" || p.TranscriptPath == "" {
		return "", 0, false
	}
	f := gjson.GetMany(p.ToolResponse, "persistedOutputPath", "persistedOutputSize")
	if f[0].Type != gjson.String || f[1].Type != gjson.Number || f[1].Int() < 0 {
		return "", 0, false
	}
	path = filepath.Clean(f[0].Str)
	session := strings.TrimSuffix(filepath.Clean(p.TranscriptPath), ".jsonl")
	if !filepath.IsAbs(path) || !strings.HasPrefix(path, session+string(filepath.Separator)) {
		return "", 0, false
	}
	return path, f[1].Int(), true
}

// WithoutPersisted returns a tool_response without Claude Code's
// persistedOutputPath and persistedOutputSize, so that the model gets the
// answer's stdout instead of Claude Code's preview of the file.
func WithoutPersisted(response string) (string, error) {
	for _, key := range []string{"persistedOutputPath", "persistedOutputSize"} {
		var err error
		if response, err = sjson.Delete(response, key); err != nil {
			return "", err
		}
	}
	return response, nil
}

// IsImage reports whether Claude Code's tool_response is an image: a Bash
// stdout that is a data: URI (isImage true), which Claude Code sends the
// model as an image rather than as text.
func (p Payload) IsImage() bool {
	return p.ToolResponse != "" && gjson.Get(p.ToolResponse, "isImage").Bool()
}

// IsImageOutput reports whether a Bash output is what Claude Code sends
// the model as an image: a data: URI of an image, alone.
func IsImageOutput(output string) bool {
	return strings.HasPrefix(output, "data:image/") && strings.Contains(output[:min(len(output), 100)], ";base64,")
}

// EditResponse returns Claude Code's tool_response with the string fields
// at the paths set to new values, and every other field as it was: the
// tool's own shape, which updatedToolOutput must keep.
func (p Payload) EditResponse(fields map[string]string) (string, error) {
	out := p.ToolResponse
	for path, v := range fields {
		var err error
		if out, err = sjson.Set(out, path, v); err != nil {
			return "", err
		}
	}
	return out, nil
}

// Output is a tool's output as the model would read it: Codex's string,
// or Claude Code's stdout and then its stderr, on a line of its own when
// both have text, as Claude Code joins them for the model (2.1.197 sends a
// Bash call's stderr within stdout, and stderr empty).
func (p Payload) Output() string {
	v := gjson.Parse(p.ToolResponse)
	if v.Type == gjson.String {
		return v.Str
	}
	var parts []string
	for _, field := range []string{"stdout", "stderr"} {
		if s, ok := p.Response(field); ok && s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// Session returns the call of a payload with output as its result, as the
// two lines of a Claude Code session file would hold them (its session,
// working directory, tool name, arguments and id; at as the time of both):
// a transcript the archive can store the call from, as ctx-archive stores
// it from the session file.
func (p Payload) Session(output string, at time.Time) []byte {
	input := p.ToolInput
	if !gjson.Valid(input) {
		input = "{}"
	}
	line := func(role string) []byte {
		b := []byte(`{"type":"","sessionId":"","cwd":"","timestamp":"","message":{"role":"","content":[{}]}}`)
		b, _ = sjson.SetBytes(b, "type", role)
		b, _ = sjson.SetBytes(b, "sessionId", p.SessionID)
		b, _ = sjson.SetBytes(b, "cwd", p.Cwd)
		b, _ = sjson.SetBytes(b, "timestamp", at.UTC().Format(time.RFC3339Nano))
		b, _ = sjson.SetBytes(b, "message.role", role)
		return b
	}
	call := line("assistant")
	call, _ = sjson.SetBytes(call, "message.content.0.type", "tool_use")
	call, _ = sjson.SetBytes(call, "message.content.0.id", p.ToolUseID)
	call, _ = sjson.SetBytes(call, "message.content.0.name", p.ToolName)
	call, _ = sjson.SetRawBytes(call, "message.content.0.input", []byte(input))
	result := line("user")
	result, _ = sjson.SetBytes(result, "message.content.0.type", "tool_result")
	result, _ = sjson.SetBytes(result, "message.content.0.tool_use_id", p.ToolUseID)
	result, _ = sjson.SetBytes(result, "message.content.0.content", output)
	out := append(call, '\n')
	out = append(out, result...)
	return append(out, '\n')
}

// Answer is what a hook prints on stdout; nil prints nothing, which every
// agent reads as "go on".
type Answer []byte

// Deny answers a PreToolUse hook: the call is not made, and the reason is
// what the model reads instead of its result. Claude Code and Codex take the
// same shape.
func Deny(reason string) Answer {
	out, _ := sjson.SetBytes([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`),
		"hookSpecificOutput.permissionDecisionReason", reason)
	return out
}

// UpdatedInput answers a PreToolUse hook: the tool runs with input (JSON
// text, the whole of the tool's arguments) instead of the model's. It
// carries no permissionDecision: an "allow" would skip the user's
// permission rules and prompts, and Claude Code checks the new input
// against them as it would have checked the model's.
func UpdatedInput(input string) Answer {
	out, _ := sjson.SetRawBytes([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`),
		"hookSpecificOutput.updatedInput", []byte(input))
	return out
}

// UpdatedToolOutput answers a PostToolUse hook: the model and the
// transcript get output instead of the tool's own. output is JSON text in
// the tool's own shape (Bash: {stdout, stderr, interrupted, isImage});
// Claude Code silently ignores an output of another shape.
func UpdatedToolOutput(output string) Answer {
	out, _ := sjson.SetRawBytes([]byte(`{"hookSpecificOutput":{"hookEventName":"PostToolUse"}}`),
		"hookSpecificOutput.updatedToolOutput", []byte(output))
	return out
}

// AdditionalContext answers a SessionStart hook: the text is added to the
// model's context as the session starts. Claude Code and Codex take the
// same shape.
func AdditionalContext(text string) Answer {
	out, _ := sjson.SetBytes([]byte(`{"hookSpecificOutput":{"hookEventName":"SessionStart"}}`),
		"hookSpecificOutput.additionalContext", text)
	return out
}
