package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
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

// jsonError locates the first JSON syntax error in data, which starts at
// line firstLine of the input, and describes it.
func jsonError(data string, firstLine int) *SyntaxError {
	var v json.RawMessage
	err := json.Unmarshal([]byte(data), &v)
	offset := len(data)
	msg := "invalid JSON"
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		msg = "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: ")
		if se.Offset > 0 {
			offset = int(se.Offset) - 1
		}
		// An error with nothing but white space after it means the input
		// stopped early (a string cut at the end of the line is one).
		if rest := data[min(offset, len(data)):]; strings.TrimSpace(rest) == "" || strings.Contains(se.Error(), "unexpected end") {
			msg = "invalid JSON: truncated (unexpected end of input)"
			offset = len(strings.TrimRight(data, " \t\r\n"))
		}
	case err != nil:
		msg = "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	line, col := lineCol(data, offset)
	return &SyntaxError{Line: firstLine + line - 1, Column: col, Element: -1, Msg: msg}
}

// lineCol converts a byte offset into a 1-based line and a 1-based column
// counted in characters.
func lineCol(data string, offset int) (int, int) {
	if offset > len(data) {
		offset = len(data)
	}
	before := data[:offset]
	line := strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[start:]) + 1
}
