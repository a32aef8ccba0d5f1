// Package marker writes and recognises the bracketed markers that start
// every result a ctx-* filter replaced, such as
//
//	[ctx-dedupe] Re-read of src/app.go (lines 1-200): identical to the result of call toolu_01AB above; content not repeated here.
//
// Markers are the contract between the filters and with the people and
// models that read their output (docs/markers.md): a filter recognises its
// own markers on a second pass (idempotence) and leaves the others' alone,
// and a marker that points at another call names it as "call ID", so that
// later filters keep the result it points at.
package marker

import (
	"regexp"
	"strings"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Line returns the marker line "[ctx-NAME] text".
func Line(tool, text string) string {
	return "[ctx-" + tool + "] " + text
}

// LineWith returns the marker line "[ctx-NAME, NOTE] text", whose note says
// what kind of text follows ("model qwen2.5-coder:1.5b"). Brackets and line
// breaks in the note become spaces: they would end the tag.
func LineWith(tool, note, text string) string {
	note = strings.Map(func(r rune) rune {
		if r == '[' || r == ']' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, note)
	return "[ctx-" + tool + ", " + note + "] " + text
}

// Parse reports whether text starts with a marker, and which tool wrote it
// ("dedupe" for "[ctx-dedupe]" and "summarize" for "[ctx-summarize, model
// M]") and the rest of the marker's line.
func Parse(text string) (tool, line string, ok bool) {
	rest, ok := strings.CutPrefix(text, "[ctx-")
	if !ok {
		return "", "", false
	}
	end := strings.IndexByte(rest, ']')
	if end <= 0 || strings.IndexByte(rest[:end], '\n') >= 0 {
		return "", "", false
	}
	tool, note, noted := strings.Cut(rest[:end], ", ")
	if tool == "" || strings.ContainsAny(tool, " ,") || noted && strings.TrimSpace(note) == "" {
		return "", "", false
	}
	line = rest[end+1:]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	return tool, strings.TrimPrefix(line, " "), true
}

// Is reports whether text starts with a marker of the given tool, or of any
// tool when tool is "".
func Is(text, tool string) bool {
	t, _, ok := Parse(text)
	return ok && (tool == "" || t == tool)
}

var refPattern = regexp.MustCompile(`\bcall ([A-Za-z0-9_\-.:]+[A-Za-z0-9_])`)

// Refs returns the ids of the calls a marker points at: every "call ID" on
// its first line.
func Refs(text string) []string {
	_, line, ok := Parse(text)
	if !ok {
		return nil
	}
	var ids []string
	for _, m := range refPattern.FindAllStringSubmatch(line, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// Referenced returns the ids of every call whose result a marker in t points
// at. A filter must not replace those results: the pointer would point at
// nothing.
func Referenced(t *transcript.Transcript) map[string]bool {
	refs := map[string]bool{}
	for _, r := range t.Results {
		// Only marker results can point; the prefix check avoids decoding
		// every other result's text.
		if r.HasPrefix("[ctx-") {
			for _, id := range Refs(r.Text()) {
				refs[id] = true
			}
		}
	}
	return refs
}
