// Package transcript reads agent transcripts in the five formats ctxkit
// knows (OpenAI Chat Completions messages, Anthropic Messages, Claude Code
// session JSONL, Codex CLI rollouts, SWE-agent trajectories), gives every filter the same model of
// them (messages in order, tool calls with their kind, arguments and result),
// and writes changes back into the original bytes: everything a filter did
// not touch stays byte-identical, in the same layout.
package transcript

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Format is a transcript format.
type Format string

// The formats, by the names --format takes.
const (
	OpenAI     Format = "openai"
	Anthropic  Format = "anthropic"
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	SWEAgent   Format = "swe-agent"
)

// Formats lists every format.
var Formats = []Format{OpenAI, Anthropic, ClaudeCode, Codex, SWEAgent}

// ParseFormat reads a --format value; "" and "auto" mean detect.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "", "auto":
		return "", nil
	case OpenAI, Anthropic, ClaudeCode, Codex, SWEAgent:
		return f, nil
	case "claude", "claudecode", "claude_code":
		return ClaudeCode, nil
	case "sweagent", "swe_agent", "swe":
		return SWEAgent, nil
	}
	return "", fmt.Errorf("unknown format %q (want auto, openai, anthropic, claude-code, codex or swe-agent)", s)
}

// Layout is how the messages are laid out in the file.
type Layout string

// The layouts.
const (
	Array  Layout = "array"  // a JSON array of messages or items
	Object Layout = "object" // a JSON object with a "messages" array (a SWE-agent trajectory's "history", a Responses request body's "input")
	JSONL  Layout = "jsonl"  // one JSON value a line
)

// Pos is where a message stands in its input.
type Pos struct {
	Line    int // 1-based line where it starts
	Element int // 0-based index in the messages array; -1 in JSONL
}

func (p Pos) String() string {
	if p.Element < 0 {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("element %d (line %d)", p.Element, p.Line)
}

// Transcript is one parsed history.
type Transcript struct {
	Format Format
	Layout Layout
	// Cwd is the session's working directory where the transcript gives it
	// (Claude Code's cwd, Codex's session_meta), else "".
	Cwd string
	// SessionID is the session's id where the transcript gives it (Claude
	// Code's sessionId, Codex's session_meta id, the session a request
	// body names: Claude Code's metadata.user_id, Codex's
	// prompt_cache_key), else "".
	SessionID string
	Messages  []*Message
	Calls     []*Call   // every tool call, in order
	Results   []*Result // every tool result, in order, with or without a call

	src   string
	edits map[int]edit // by start offset
}

// Message is one message of the history, in the model's order.
type Message struct {
	Index int
	Role  string // system, developer, user, assistant or tool
	Pos   Pos
	// Time is when the message was written, where the transcript says:
	// Claude Code's and Codex's line timestamps, mini-swe-agent's
	// extra.timestamp. A message without one has the time of the message
	// before it (the first ones, the first time given); zero when the
	// transcript gives none.
	Time time.Time
	// Model is the model at work when the message was written: Claude
	// Code's message.model, Codex's turn_context, mini-swe-agent's
	// response, else the model the whole document names (a request
	// body's, a trajectory's configuration). A message without one has
	// the model of the message before it (the first ones, the first
	// model named); "" when the transcript names none.
	Model string
	// Response is the id of the API response that wrote the message, where
	// the format keeps it (Claude Code's message.id): Claude Code writes
	// one response over several lines, one per content block, sometimes
	// with the results of its first calls between them. "" elsewhere.
	Response string
	// Restart says the agent compacted its history just before this
	// message (Claude Code's compact_boundary, Codex's compacted record):
	// from here on it sent this message and what follows, with a summary
	// the transcript holds (Claude Code) or not (Codex), not the messages
	// above.
	Restart bool
	Blocks  []Block   // its text, thinking and images, in order
	Calls   []*Call   // the tool calls it makes
	Results []*Result // the tool results it carries
}

// BlockType is the type of a content block the model keeps.
type BlockType string

// The block types.
const (
	Text     BlockType = "text"
	Thinking BlockType = "thinking"
	Image    BlockType = "image"
)

// Block is a piece of a message's own content (not a tool call or result).
type Block struct {
	Type BlockType
	Text string // for Text and Thinking
	// For Image: the media type and base64 data when the image is inline,
	// or the URL when it is not.
	MediaType, Data, URL string
}

// Call is one tool call.
type Call struct {
	Index   int
	ID      string
	Name    string
	Kind    tools.Kind
	Args    tools.Args
	Input   string // the arguments as the model wrote them (JSON text, or a custom tool's input)
	Message *Message
	Result  *Result // nil when the transcript holds no result for it
	// Continues is the call that started the command this one writes to or
	// polls (Codex's write_stdin): this call has its kind and arguments, and
	// its output is more output of that command. A continuation is not an
	// action of its own: a read it continues is one read, not two, and
	// every report counts it as part of its command (Command, End).
	Continues *Call
	// Polls are the calls that continue this one, in order: the command's
	// later output is in their results.
	Polls []*Call

	// InputIsText says Input is a custom tool's free-form text (Codex's
	// apply_patch), not JSON.
	InputIsText bool

	// raw is the input where the format holds it, a JSON object or a
	// string of JSON, for SetInput; empty where the transcript cannot
	// rewrite it (a custom tool's text, a SWE-agent action, no input).
	raw jsonscan.Value
}

// CanSetInput reports whether SetInput can rewrite the call's arguments: a
// JSON object, as a tool_use block or a function call's arguments hold it.
func (c *Call) CanSetInput() bool {
	return c.raw.IsObject() || c.raw.IsString() && !c.InputIsText && jsonscan.Parse(c.Input, 0).IsObject()
}

// Result is one tool result.
type Result struct {
	Index   int
	CallID  string
	Call    *Call // nil for a result whose call is not in the transcript
	Message *Message
	Images  []Block
	IsError bool // the format marks the call as failed
	// ExitCode is the command's exit status where the format or the output
	// shows it.
	ExitCode outcome.Code

	outcome outcome.Outcome // how the call ended, read once when parsed
	// commandExit is the exit code the format gives apart from an output
	// taken while its command still ran (Codex's exec_command_end): the
	// command's, which its outcome leaves out.
	commandExit outcome.Code
	content     contentRef
	mirrors     []mirror
	text        string // the text, once decoded or set
	decoded     bool
}

// Text is the output's text; several text blocks are joined by newlines. It
// is decoded from the input on first use: filters that look at a few
// results do not pay for the rest. Not safe for concurrent first use.
func (r *Result) Text() string {
	if !r.decoded {
		r.text, r.decoded = r.content.text(), true
	}
	return r.text
}

// head returns the start of the text: more than its first n bytes, or
// the whole text; it decodes no more of a long string than it needs.
func (r *Result) head(n int) string {
	v, ok := r.edgeString(true, n)
	if !ok {
		return r.Text()
	}
	for raw := 2*n + 1; ; raw *= 2 { // escapes: n bytes of text take more of JSON
		if s := v.StrPrefix(raw); len(s) > n || raw >= len(v.Raw) {
			return s
		}
	}
}

// tail returns the end of the text: more than its last n bytes, or the
// whole text; it decodes no more of a long string than it needs.
func (r *Result) tail(n int) string {
	v, ok := r.edgeString(false, n)
	if !ok {
		return r.Text()
	}
	for raw := 2*n + 1; ; raw *= 2 {
		if s := strSuffix(v, raw); len(s) > n || raw >= len(v.Raw) {
			return s
		}
	}
}

// edgeString is the JSON string the text starts with (first) or ends with,
// while the text is not decoded: the content string, or the first or last
// of its text blocks when that one holds more than n bytes of the text's
// start or end. false when the whole text is better decoded: a short one is
// decoded once, and kept for the filters that read it.
func (r *Result) edgeString(first bool, n int) (jsonscan.Value, bool) {
	switch {
	case r.decoded:
		return jsonscan.Value{}, false
	case r.content.kind == inString:
		return r.content.value, len(r.content.value.Raw) > 3*n
	case r.content.kind != inBlocks:
		return jsonscan.Value{}, false
	}
	var edge jsonscan.Value
	r.content.value.Each(func(blk jsonscan.Value) bool {
		f := blk.Fields("type", "text")
		if f[1].IsString() && isTextType(f[0].Str()) {
			edge = f[1]
			return !first
		}
		return true
	})
	// A JSON string of more than 6n bytes holds more than n bytes of text.
	return edge, len(edge.Raw) > 6*n+2
}

// strSuffix decodes the end of a JSON string value: what its last n bytes of
// JSON text hold, from the start of the escape they begin in, or all of it
// when shorter.
func strSuffix(v jsonscan.Value, n int) string {
	raw := v.Raw[1 : len(v.Raw)-1]
	if len(raw) <= n {
		return v.Str()
	}
	i := len(raw) - n
	for i < len(raw) && insideEscape(raw, i) {
		i++
	}
	return jsonscan.Value{Raw: `"` + raw[i:] + `"`}.Str()
}

// insideEscape reports whether raw[i], in a JSON string's text, is inside
// an escape: after its backslash, or among the four hex digits of \uXXXX.
func insideEscape(raw string, i int) bool {
	oddBackslashes := func(j int) bool {
		k := j
		for k > 0 && raw[k-1] == '\\' {
			k--
		}
		return (j-k)%2 == 1
	}
	if oddBackslashes(i) {
		return true
	}
	for k := 1; k <= 4 && i-k > 0; k++ {
		if raw[i-k] == 'u' && oddBackslashes(i-k) {
			return true
		}
	}
	return false
}

// HasPrefix reports whether the text starts with prefix, without decoding
// the whole text when it can: for telling marker results apart cheaply.
func (r *Result) HasPrefix(prefix string) bool {
	if !r.decoded && r.content.kind == inString && !strings.ContainsAny(prefix, "\"\\") && isPlainASCII(prefix) {
		raw := r.content.value.Raw
		return strings.HasPrefix(raw[1:], prefix)
	}
	return strings.HasPrefix(r.Text(), prefix)
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// Failed reports whether the call ran and failed: marked as an error, a
// non-zero exit code, or an output that says so (Outcome). A call that was
// denied or cancelled did not fail: it did not run.
func (r *Result) Failed() bool { return r.outcome.Failed() }

// OK reports whether the call ran and did not fail.
func (r *Result) OK() bool { return r.outcome.End == outcome.OK }

// End is how the call ended, as this result says: ok, failed, denied or
// cancelled. A command's end is its latest result's (Call.End).
func (r *Result) End() outcome.End { return r.outcome.End }

// Outcome is how the call ended, as internal/outcome read it from the
// output's start and what the format gave beside it, when the transcript
// was parsed: a filter's change of the text does not change it.
func (r *Result) Outcome() outcome.Outcome { return r.outcome }

// Mirror is a copy of a tool's output that the format keeps beside the
// result, which the model is not sent but a file-size-minded filter must
// treat like the result: Claude Code's toolUseResult, mini-swe-agent's
// extra.raw_output.
type Mirror struct {
	Field string // where it is, as a JSON path from the line or message: toolUseResult.stdout
	Text  string
}

// NumMirrors is the number of the result's mirrors, without decoding them:
// for a filter that rewrites them all with SetMirror.
func (r *Result) NumMirrors() int { return len(r.mirrors) }

// Mirror returns the result's i-th mirror, decoding it alone.
func (r *Result) Mirror(i int) Mirror {
	return Mirror{Field: r.mirrors[i].field, Text: r.mirrors[i].Text()}
}

// Mirrors returns the result's mirrors: the string fields of the copy.
func (r *Result) Mirrors() []Mirror {
	out := make([]Mirror, len(r.mirrors))
	for i := range r.mirrors {
		out[i] = r.Mirror(i)
	}
	return out
}

// IsUserTurn reports whether the message is a user's turn: a user message
// with text of its own, not only tool results.
func (m *Message) IsUserTurn() bool {
	if m.Role != "user" {
		return false
	}
	for _, b := range m.Blocks {
		if b.Type == Text && strings.TrimSpace(b.Text) != "" {
			return true
		}
	}
	return false
}
