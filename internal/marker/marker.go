// Package marker writes and recognises the bracketed markers that start
// every result a ctx-* filter replaced, such as
//
//	[ctx-dedupe] Re-read of src/app.go (lines 1-200): identical to the result of call toolu_01AB above; content not repeated here.
//
// Markers are the contract between the filters and with the people and
// models that read their output (docs/markers.md): a filter recognises its
// own markers on a second pass (idempotence) and leaves the others' alone,
// and a marker that points at another call names it as "call ID", so that
// later filters keep the result it points at. When an archive keeps what a
// marker replaced, the marker line ends by citing its handle (Cite), the
// id that ctx-recall and memory_query give it back by.
package marker

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/lazyre"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Prefix starts every marker.
const Prefix = "[ctx-"

// Line returns the marker line "[ctx-NAME] text".
func Line(tool, text string) string {
	return Prefix + tool + "] " + text
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
	return Prefix + tool + ", " + note + "] " + text
}

// Parse reports whether text starts with a marker, and which tool wrote it
// ("dedupe" for "[ctx-dedupe]" and "summarize" for "[ctx-summarize, model
// M]") and the rest of the marker's line.
func Parse(text string) (tool, line string, ok bool) {
	rest, ok := strings.CutPrefix(text, Prefix)
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

// OnResult reports whether a result's text starts with a marker: a filter
// replaced it. The check of its first bytes spares decoding every other
// result's text.
func OnResult(r *transcript.Result) bool {
	return r.HasPrefix(Prefix) && Is(r.Text(), "")
}

var refPattern = lazyre.New(`\bcall ([A-Za-z0-9_\-.:]+[A-Za-z0-9_])`)

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
		if r.HasPrefix(Prefix) {
			for _, id := range Refs(r.Text()) {
				refs[id] = true
			}
		}
	}
	return refs
}

// callWord is what marker.Refs reads as a pointer: "call" and a space before
// an id.
var callWord = lazyre.New(`\bcall [A-Za-z0-9_\-.:]`)

// Text fits a path or command on a marker line: control characters
// become spaces, a long one is cut with "…", and a "call X" in it is kept
// from reading as a pointer (a no-break space after "call"): a marker line
// names no call but the one it points at.
func Text(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return callWord.ReplaceAllStringFunc(s, func(m string) string {
		return "call\u00a0" + m[len("call "):]
	})
}

// Handles gives the handle under which the archive keeps a result's text,
// for the marker that replaces it to cite; "" when the archive will not
// give it back. A filter takes one in its options (nil: no archive, and its
// markers cite nothing); it is called, possibly from several goroutines at
// once, for the results the filter is about to replace, before it changes
// any of them.
type Handles func(t *transcript.Transcript, r *transcript.Result) string

// Of is h's handle of r, or "" when h is nil.
func (h Handles) Of(t *transcript.Transcript, r *transcript.Result) string {
	if h == nil {
		return ""
	}
	return h(t, r)
}

// Mirror is the handle that the marker replacing m, a copy of r's output
// that the format keeps beside r (transcript.Mirror), cites: r's handle
// when the copy holds r's text, else r's handle, CopyMark and the copy's
// field with its dots as underscores
// (toolu_01AB__toolUseResult_file_content), under which the archive keeps
// the copy's own text; "" when h gives r none. Like h, it is called before
// the filter changes r.
func (h Handles) Mirror(t *transcript.Transcript, r *transcript.Result, m transcript.Mirror) string {
	handle := h.Of(t, r)
	if handle == "" || m.Text == r.Text() {
		return handle
	}
	return handle + CopyMark + strings.ReplaceAll(m.Field, ".", "_")
}

// CopyMark is what a copy's handle (Handles.Mirror) has after the
// result's: no handle of a result has it without a call id of its own.
const CopyMark = "__"

// Recite makes a text whose marker cites one handle (Cite) cite another: a
// result's marker written again for a copy of its output (Mirror). A text
// that does not cite from is returned as it is.
func Recite(text, from, to string) string {
	if from == "" || from == to {
		return text
	}
	return strings.Replace(text, citing(from), citing(to), 1)
}

// citing is what Cite adds for a handle, without the full stop.
func citing(handle string) string {
	return "; full output: ctx-recall " + handle + " (or memory_query id=" + handle + ")"
}

// Cite ends a marker line, whose last character is a full stop, with the
// handle that gives back what the marker replaced, in words a model acts
// on:
//
//	…; content not repeated here; full output: ctx-recall toolu_01AB (or memory_query id=toolu_01AB).
//
// Without a handle the line is returned as it is.
func Cite(line, handle string) string {
	if handle == "" {
		return line
	}
	return strings.TrimSuffix(line, ".") + citing(handle) + "."
}

// CiteArguments ends a line, whose last character is a full stop, with the
// handle whose record holds a call's arguments as they were: a filter that
// left the text of an edit out of its arguments says where it is.
//
//	…; its arguments: ctx-recall --json toolu_01AB (or memory_query id=toolu_01AB).
func CiteArguments(line, handle string) string {
	if handle == "" {
		return line
	}
	return strings.TrimSuffix(line, ".") + "; its arguments: ctx-recall --json " + handle + " (or memory_query id=" + handle + ")."
}

// CitationPattern is the regular expression of what Cite adds, for the
// recognisers of marker lines.
const CitationPattern = `; full output: ctx-recall ` + handlePattern + ` \(or memory_query id=` + handlePattern + `\)`

// handlePattern is a handle: a call id, or ctx_ and hex digits.
const handlePattern = `[A-Za-z0-9_\-.:]+`

var citation = lazyre.New(`; full output: ctx-recall (` + handlePattern + `) \(or memory_query id=(` + handlePattern + `)\)\.$`)

// Cited returns the handle that a marker line cites (Cite), or "".
func Cited(line string) string {
	m := citation.FindStringSubmatch(line)
	if m == nil || m[1] != m[2] {
		return ""
	}
	return m[1]
}

// CitedIn returns the handle that a replaced result's text cites
// (Cite), or "": on the first marker line of the text (a cut's is
// after its head), or on the line after a marker line that ends with a
// colon, where ctx-summarize moves a target that reads as a pointer.
func CitedIn(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !Is(l, "") {
			continue
		}
		if strings.HasSuffix(l, ":") && i+1 < len(lines) {
			l = lines[i+1]
		}
		return Cited(l)
	}
	return ""
}
