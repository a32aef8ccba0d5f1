package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// SyntaxError is bad input: where it is and what is wrong. The command line
// prefixes the file name.
type SyntaxError struct {
	Line, Column int // 1-based; Column 0 when the whole line or element is at fault
	Element      int // index in a JSON array of messages, or -1
	Msg          string
}

func (e *SyntaxError) Error() string {
	switch {
	case e.Element >= 0 && e.Column > 0:
		return fmt.Sprintf("%d:%d: element %d: %s", e.Line, e.Column, e.Element, e.Msg)
	case e.Element >= 0:
		return fmt.Sprintf("%d: element %d: %s", e.Line, e.Element, e.Msg)
	case e.Column > 0:
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%d: %s", e.Line, e.Msg)
}

// jsonError describes why v, a value of src, is not valid JSON; err is
// where it stops being so (jsonscan.Check).
func jsonError(src string, v jsonscan.Value, err *jsonscan.Error) *SyntaxError {
	offset := err.Off
	msg := "invalid JSON"
	if err.Deep {
		msg = fmt.Sprintf("invalid JSON: nesting deeper than %d", jsonscan.MaxDepth)
	} else {
		// encoding/json says best what is wrong; it agrees with Check on
		// what is valid, and on where it stops.
		var raw json.RawMessage
		jerr := json.Unmarshal([]byte(v.Raw), &raw)
		var se *json.SyntaxError
		if errors.As(jerr, &se) {
			msg = "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: ")
		}
		// An error with nothing but white space after it means the input
		// stopped early (a string cut at the end of the line is one).
		if rest := v.Raw[min(offset, len(v.Raw)):]; strings.TrimSpace(rest) == "" || strings.Contains(msg, "unexpected end") {
			msg = "invalid JSON: truncated (unexpected end of input)"
			offset = len(strings.TrimRight(v.Raw, " \t\r\n"))
		}
	}
	line, col := textfmt.LineCol(src, v.Off+offset)
	return &SyntaxError{Line: line, Column: col, Element: -1, Msg: msg}
}

// lookalike names what a JSON object that is not a transcript looks like,
// and where its transcript is when it points at one; "" when it looks like
// nothing known.
func lookalike(v jsonscan.Value) string {
	f := v.Fields("transcript_path", "hook_event_name", "history", "trajectory", "choices", "object", "output",
		"session_id", "ts", "text", "display", "project", "contents")
	has := func(i int) bool { return f[i].Exists() }
	switch {
	case has(0) && has(1):
		return "a Claude Code hook payload: its transcript is at transcript_path " + quoteSnippet(f[0].Str(), 200)
	case has(2) && has(3):
		return "a SWE-agent trajectory: use --format swe-agent"
	case has(4) && f[5].Str() == "chat.completion":
		return "a Chat Completions response, not a history: its message is in choices[].message"
	case has(6) && f[5].Str() == "response":
		return "a Responses API response, not a history: its items are in output"
	case has(7) && has(8) && has(9):
		return "Codex's prompt history (history.jsonl), not a session: sessions are in ~/.codex/sessions"
	case has(10) && has(11):
		return "Claude Code's prompt history (history.jsonl), not a session: sessions are in ~/.claude/projects"
	case has(12):
		return "a Gemini request (contents), a format ctxkit does not read"
	}
	return ""
}
