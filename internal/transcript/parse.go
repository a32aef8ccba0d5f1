package transcript

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Options control parsing.
type Options struct {
	// Format forces a format; "" detects it.
	Format Format
	// Tools classifies calls; nil uses the built-in kinds.
	Tools *tools.Table
	// After is what the parse of an earlier document kept (Prefix): the
	// elements of the history that this one shares with it, byte for
	// byte and at the same place, are taken from it instead of read
	// again. It needs Format, and the same Tools.
	After *Prefix
	// Keep keeps what the parse of a later document takes from this one
	// (Transcript.Prefix), for a request body in a given Format.
	Keep bool
}

// record is one top-level value: a JSONL line or an element of the messages
// array. Its value carries absolute offsets into the input.
type record struct {
	v   jsonscan.Value
	pos Pos
}

// Parse reads a transcript. data must not be modified afterwards: the
// transcript refers to it. Bad input gives a *SyntaxError.
func Parse(data []byte, opts Options) (*Transcript, error) {
	// The input is read-only from here on, so a string view of it saves
	// copying what may be hundreds of megabytes.
	src := unsafe.String(unsafe.SliceData(data), len(data))
	var (
		layout      Layout = Object
		root, msgs  jsonscan.Value
		records     []record
		carried     int
		rb          rebaser
		err         error
		after       = opts.After.usable(opts)
		historyName string
	)
	if after != nil {
		root, msgs, records, carried, rb = after.split(src)
		historyName = after.key
	}
	if carried == 0 {
		if layout, root, records, err = split(src, opts.Format); err != nil {
			return nil, err
		}
	}
	format := opts.Format
	if format == "" {
		if format, err = sniff(src, root, layout, records); err != nil {
			return nil, err
		}
	}
	table := opts.Tools
	if table == nil {
		table = tools.NewTable(nil)
	}
	p := &parser{t: &Transcript{Format: format, Layout: layout, src: src}, tools: table, root: root, msgs: msgs,
		after: after, carried: carried, rebase: rb}
	if opts.Keep && layout == Object && (format == Anthropic || format == OpenAI || format == Codex) && opts.Format != "" {
		if carried == 0 {
			historyName, p.msgs = messagesOf(root, format)
		}
		p.keep = &keeper{tools: opts.Tools, key: historyName, msgs: p.msgs.Off, recs: records}
	}
	p.parse(records)
	p.t.kept, p.t.root, p.t.history, p.t.carried = p.keep, root, p.msgs, carried
	p.t.records = make([]jsonscan.Value, len(records))
	for i, r := range records {
		p.t.records[i] = r.v
	}
	return p.t, nil
}

// split finds the layout, the document's root value (for a JSON array or
// object) and the records, and checks that every record is valid JSON.
func split(src string, format Format) (Layout, jsonscan.Value, []record, error) {
	start := len(src) - len(strings.TrimLeft(src, " \t\r\n\ufeff"))
	if start == len(src) {
		return "", jsonscan.Value{}, nil, &SyntaxError{Line: 1, Column: 1, Element: -1,
			Msg: "empty input: no transcript to read (in a pipe, an earlier command may have failed)"}
	}
	switch src[start] {
	case '[':
		return document(src, start, Array, format)
	case '{':
		// One object spanning the input that holds the messages is a
		// document; otherwise each line is a record. A first line that is
		// not a complete value means a pretty-printed document.
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		first := src[start:end]
		if !jsonscan.Valid(first) {
			return document(src, start, Object, format)
		}
		if strings.TrimSpace(src[end:]) == "" {
			// One line, valid: a document if it holds the messages (a
			// line of --each-line, often), read without checking it again.
			root := jsonscan.Value{Raw: strings.TrimRight(first, " \t\r"), Off: start}
			if _, msgs := messagesOf(root, format); msgs.IsArray() {
				return Object, root, records(src, msgs), nil
			}
		}
		return jsonl(src)
	}
	line, col := textfmt.LineCol(src, start)
	return "", jsonscan.Value{}, nil, &SyntaxError{Line: line, Column: col, Element: -1, Msg: notJSONMsg(src[start:])}
}

// notJSONMsg says that an input whose first byte past white space starts
// rest is not JSON.
func notJSONMsg(rest string) string {
	return "not a transcript: expected JSON (an array, an object with \"messages\", or JSONL), found " + quoteSnippet(rest, 20)
}

// quoteSnippet quotes the first line of s, up to n characters.
func quoteSnippet(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	r := []rune(s)
	if len(r) > n {
		return strconv.Quote(string(r[:n])) + "..."
	}
	return strconv.Quote(string(r))
}

// document reads a JSON array of messages, or an object that holds them;
// the value starts at src[start], after any white space and byte order mark.
func document(src string, start int, layout Layout, format Format) (Layout, jsonscan.Value, []record, error) {
	root := jsonscan.Value{Raw: strings.TrimRight(src[start:], " \t\r\n"), Off: start}
	if err := jsonscan.Check(root.Raw); err != nil {
		return "", jsonscan.Value{}, nil, jsonError(src, root, err)
	}
	msgs := root
	if layout == Object {
		var key string
		if key, msgs = messagesOf(root, format); !msgs.IsArray() {
			line, col := textfmt.LineCol(src, start)
			msg := "not a transcript: the JSON object has no \"" + key + "\" array"
			if like := lookalike(root); like != "" {
				msg = "not a transcript: " + like
			}
			return "", jsonscan.Value{}, nil, &SyntaxError{Line: line, Column: col, Element: -1, Msg: msg}
		}
	}
	return layout, root, records(src, msgs), nil
}

// records are the elements of a document's array of messages.
func records(src string, msgs jsonscan.Value) []record {
	var out []record
	lines := newLineCounter(src)
	msgs.Each(func(v jsonscan.Value) bool {
		out = append(out, record{v: v, pos: Pos{Line: lines.at(v.Off), Element: len(out)}})
		return true
	})
	return out
}

// messagesOf is the array of messages an object holds, and its key:
// "messages" (a request body, a mini-swe-agent trajectory), a SWE-agent
// trajectory's "history", or the "input" items of a Responses API request
// body.
func messagesOf(root jsonscan.Value, format Format) (string, jsonscan.Value) {
	f := root.Fields("messages", "history", "input")
	switch {
	case format == SWEAgent || format == "" && !f[0].IsArray() && f[1].IsArray():
		return "history", f[1]
	case format == Codex || format == "" && !f[0].IsArray() && f[2].IsArray():
		return "input", f[2]
	}
	return "messages", f[0]
}

func jsonl(src string) (Layout, jsonscan.Value, []record, error) {
	var records []record
	lineNo := 0
	for off := 0; off < len(src); {
		lineNo++
		end := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
			end += off
		} else {
			end = len(src)
		}
		line := src[off:end]
		lead := len(line) - len(strings.TrimLeft(line, " \t\r\ufeff"))
		trimmed := strings.TrimRight(line[lead:], " \t\r")
		if trimmed != "" {
			records = append(records, record{v: jsonscan.Value{Raw: trimmed, Off: off + lead}, pos: Pos{Line: lineNo, Element: -1}})
		}
		off = next
	}
	if bad := firstInvalid(records); bad >= 0 {
		r := records[bad].v
		return "", jsonscan.Value{}, nil, jsonError(src, r, jsonscan.Check(r.Raw))
	}
	return JSONL, jsonscan.Value{}, records, nil
}

// firstInvalid returns the index of the first record that is not valid
// JSON, or -1. Validating is a third of parsing, and lines are independent:
// large inputs are checked on every core.
func firstInvalid(records []record) int {
	size := 0
	for _, r := range records {
		size += len(r.v.Raw)
	}
	minEach := 64
	if size < 4<<20 {
		minEach = len(records) + 1 // one worker: the caller
	}
	bad := make([]bool, len(records))
	parallel.For(len(records), minEach, func(i int) { bad[i] = !jsonscan.Valid(records[i].v.Raw) })
	return slices.Index(bad, true)
}

// lineCounter turns increasing offsets into line numbers in one pass.
type lineCounter struct {
	src        string
	off, lines int
}

func newLineCounter(src string) *lineCounter { return &lineCounter{src: src, lines: 1} }

func (c *lineCounter) at(off int) int {
	if off < c.off { // not increasing: count from the start
		c.off, c.lines = 0, 1
	}
	c.lines += strings.Count(c.src[c.off:off], "\n")
	c.off = off
	return c.lines
}

// sniff tells the format from the records.
func sniff(src string, root jsonscan.Value, layout Layout, records []record) (Format, error) {
	if key, _ := messagesOf(root, ""); layout == Object && key == "history" {
		return SWEAgent, nil
	} else if layout == Object && key == "input" {
		return Codex, nil // a Responses API request body
	}
	if layout == Object && root.Get("system").Exists() {
		// A Messages API request body keeps the system prompt at the top.
		for _, r := range records {
			if f := sniffRecord(r.v); f == OpenAI {
				return OpenAI, nil
			}
		}
		return Anthropic, nil
	}
	weak := false
	for _, r := range records {
		switch f := sniffRecord(r.v); f {
		case Codex, ClaudeCode, Anthropic, OpenAI:
			return f, nil
		case "?":
			weak = true // a plain message: both formats read it alike
		}
	}
	if weak || len(records) == 0 && layout != JSONL {
		return OpenAI, nil
	}
	e := &SyntaxError{Line: 1, Column: 1, Element: -1,
		Msg: "unknown format: no messages (role), Claude Code lines (type, message) or Codex items (type, payload) found; use --format to choose one"}
	if len(records) > 0 {
		first := records[0]
		e.Line, e.Column = textfmt.LineCol(src, first.v.Off)
		e.Element = first.pos.Element
		if like := lookalike(first.v); like != "" {
			e.Msg = "unknown format: " + like
		}
	}
	return "", e
}

// sniffRecord returns the format a record shows for sure, "?" for a plain
// chat message that openai and anthropic read alike, or "" for nothing known.
func sniffRecord(v jsonscan.Value) Format {
	f := v.Fields("type", "payload", "message", "leafUuid", "sessionId", "role", "tool_calls", "tool_call_id", "content")
	typ := f[0].Str()
	switch {
	case f[1].Exists() && typ != "":
		return Codex
	case f[2].IsObject() || f[3].Exists() || f[4].Exists() && typ != "":
		return ClaudeCode
	case responsesItemTypes[typ] || typ == "message":
		// Chat and Messages API messages have no type; Responses API items do.
		return Codex
	}
	role := f[5].Str()
	switch {
	case role == "":
		return ""
	case role == "tool" || role == "function" || role == "developer" || f[6].Exists() || f[7].Exists():
		return OpenAI
	case !f[8].IsArray():
		return "?"
	}
	format := Format("?")
	f[8].Each(func(b jsonscan.Value) bool {
		bf := b.Fields("type", "source")
		switch bf[0].Str() {
		case "tool_use", "tool_result", "thinking", "redacted_thinking", "document":
			format = Anthropic
		case "image":
			if bf[1].Exists() {
				format = Anthropic
			}
		case "image_url", "input_audio", "refusal":
			format = OpenAI
		}
		return format == "?"
	})
	return format
}

// responsesItemTypes are the Responses API item types that only Codex (and a
// bare array of Responses input items) uses.
var responsesItemTypes = map[string]bool{
	"function_call": true, "function_call_output": true, "custom_tool_call": true,
	"custom_tool_call_output": true, "local_shell_call": true, "local_shell_call_output": true,
	"reasoning": true, "web_search_call": true,
}
