package transcript

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// contentKind is how a result's content is stored, which decides how a new
// text is written back.
type contentKind uint8

const (
	inString   contentKind = iota // a JSON string: the text
	inBlocks                      // an array of blocks
	inNull                        // null, or a value with no text
	inMissing                     // absent: the span is the enclosing object
	inEmbedded                    // a JSON string holding an object whose "output" is the text (Codex)
)

// contentRef locates a result's content in the input.
type contentRef struct {
	kind       contentKind
	value      value // the content; for inEmbedded, the inner "output"
	start, end int
	key        string   // inMissing: the field to add
	textType   string   // inBlocks: the type a rewritten text block gets
	keep       []string // inBlocks: raw non-text blocks, which a rewrite keeps
	embedded   string   // inEmbedded: the decoded object
}

// text decodes the content's text.
func (c *contentRef) text() string {
	switch c.kind {
	case inString, inEmbedded:
		return c.value.str()
	case inBlocks:
		return blocksText(c.value)
	}
	return ""
}

// mirror is a string field that repeats a result's output.
type mirror struct {
	field      string
	value      value
	text       string
	set        bool // text replaces value
	start, end int
}

func (m *mirror) Text() string {
	if m.set {
		return m.text
	}
	return m.value.str()
}

// resultContent locates the content value c of a result held in the object
// parent (under key), and reads the images in it. The text is decoded when
// asked for.
func resultContent(parent, c value, key, textType string) (contentRef, []Block) {
	ref := contentRef{key: key, textType: textType, value: c}
	ref.start, ref.end = c.span()
	switch {
	case !c.exists():
		ref.kind = inMissing
		ref.start, ref.end = parent.span()
	case c.isString():
		ref.kind = inString
	case c.isArray():
		images, keep := scanBlocks(c)
		ref.kind, ref.keep = inBlocks, keep
		return ref, images
	default:
		ref.kind = inNull
	}
	return ref, nil
}

// --- Anthropic Messages and Claude Code ---

// anthropicMessage reads a Messages API message. tur is the toolUseResult of
// the Claude Code line around it, which mirrors the tool's output.
func (p *parser) anthropicMessage(v value, pos Pos, tur value) {
	f := v.fields("role", "content")
	role, c := f[0].str(), f[1]
	if !knownRole(role) {
		return
	}
	m := p.message(role, pos)
	if c.isString() {
		m.Blocks = append(m.Blocks, Block{Type: Text, Text: c.str()})
		return
	}
	c.each(func(b value) bool {
		f := b.fields("type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error")
		switch f[0].str() {
		case "text":
			m.Blocks = append(m.Blocks, Block{Type: Text, Text: f[1].str()})
		case "thinking":
			m.Blocks = append(m.Blocks, Block{Type: Thinking, Text: f[2].str()})
		case "image":
			img, _ := imageBlock(b)
			m.Blocks = append(m.Blocks, img)
		case "tool_use", "server_tool_use":
			p.call(m, f[3].str(), f[4].str(), f[5].rawOr("{}"), false)
		case "tool_result":
			ref, images := resultContent(b, f[7], "content", "text")
			r := p.result(m, f[6].str(), ref, images)
			r.IsError = f[8].isTrue()
		}
		return true
	})
	if tur.exists() && len(m.Results) == 1 {
		m.Results[0].mirrors = claudeMirrors(tur)
	}
}

// anthropicSystem reads the top-level system prompt of a request body.
func (p *parser) anthropicSystem(root value) {
	sys := root.get("system")
	text := sys.str()
	if sys.isArray() {
		text = blocksText(sys)
	}
	if text == "" {
		return
	}
	m := &Message{Role: "system", Pos: Pos{Line: newLineCounter(p.t.src).at(sys.off), Element: -1},
		Blocks: []Block{{Type: Text, Text: text}}}
	p.t.Messages = append([]*Message{m}, p.t.Messages...)
	for i, m := range p.t.Messages {
		m.Index = i
	}
}

func (p *parser) claudeCodeLine(v value, pos Pos) {
	f := v.fields("type", "message", "toolUseResult", "cwd", "sessionId")
	if p.t.Cwd == "" {
		p.t.Cwd = f[3].str()
	}
	if p.t.SessionID == "" {
		p.t.SessionID = f[4].str()
	}
	switch f[0].str() {
	case "user", "assistant":
		p.anthropicMessage(f[1], pos, f[2])
	}
}

// claudeOutputFields are the fields of toolUseResult that repeat a tool's
// output (Bash's stdout and stderr, Read's file.content, Grep's content,
// Task's content blocks, WebFetch's result); paths, counts and an edit's
// file snapshots are not output.
var claudeOutputFields = []string{"stdout", "stderr", "content", "output", "result", "file"}

func claudeMirrors(tur value) []mirror {
	if tur.isString() {
		return []mirror{newMirror("toolUseResult", tur)}
	}
	var out []mirror
	for i, v := range tur.fields(claudeOutputFields...) {
		name := "toolUseResult." + claudeOutputFields[i]
		if claudeOutputFields[i] == "file" {
			v, name = v.get("content"), name+".content"
		}
		switch {
		case v.isString() && v.raw != `""`:
			out = append(out, newMirror(name, v))
		case v.isArray():
			j := 0
			v.each(func(b value) bool {
				if t := b.get("text"); t.isString() && t.raw != `""` {
					out = append(out, newMirror(name+"."+strconv.Itoa(j)+".text", t))
				}
				j++
				return true
			})
		}
	}
	return out
}

func newMirror(field string, v value) mirror {
	m := mirror{field: field, value: v}
	m.start, m.end = v.span()
	return m
}

func knownRole(role string) bool {
	switch role {
	case "system", "developer", "user", "assistant", "tool":
		return true
	}
	return false
}

// --- OpenAI Chat Completions ---

func (p *parser) openaiMessage(v value, pos Pos) {
	f := v.fields("role", "content", "tool_calls", "tool_call_id", "extra")
	role, c := f[0].str(), f[1]
	if !knownRole(role) {
		return // e.g. mini-swe-agent's final "exit": passed through
	}
	m := p.message(role, pos)
	if role == "tool" {
		ref, images := resultContent(v, c, "content", "text")
		r := p.result(m, f[3].str(), ref, images)
		// mini-swe-agent keeps the raw output and the return code aside.
		extra := f[4].fields("raw_output", "returncode")
		if extra[0].isString() {
			r.mirrors = []mirror{newMirror("extra.raw_output", extra[0])}
		}
		if extra[1].isNumber() {
			r.ExitCode, r.HasExitCode = extra[1].int(), true
		}
		return
	}
	m.Blocks = messageBlocks(c)
	f[2].each(func(tc value) bool {
		f := tc.fields("id", "function")
		fn := f[1].fields("name", "arguments")
		input := fn[1].str()
		if !fn[1].isString() {
			input = fn[1].raw
		}
		p.call(m, f[0].str(), fn[0].str(), input, false)
		return true
	})
}

// --- Codex rollouts and Responses API items ---

func (p *parser) codexRecord(v value, pos Pos) {
	f := v.fields("type", "payload")
	payload := f[1]
	if !payload.exists() {
		p.responsesItem(v, pos) // a bare array of Responses API items
		return
	}
	switch f[0].str() {
	case "session_meta":
		pf := payload.fields("cwd", "base_instructions", "instructions", "id")
		if p.t.Cwd == "" {
			p.t.Cwd = pf[0].str()
		}
		if p.t.SessionID == "" {
			p.t.SessionID = pf[3].str()
		}
		instr := pf[1].get("text")
		if !instr.isString() {
			instr = pf[2]
		}
		if instr.isString() && instr.raw != `""` {
			m := p.message("system", pos)
			m.Blocks = []Block{{Type: Text, Text: instr.str()}}
		}
	case "turn_context":
		if p.t.Cwd == "" {
			p.t.Cwd = payload.get("cwd").str()
		}
	case "response_item":
		p.responsesItem(payload, pos)
	case "event_msg":
		pf := payload.fields("type", "message", "call_id")
		switch pf[0].str() {
		case "user_message":
			m := p.message("user", pos)
			m.Blocks = []Block{{Type: Text, Text: pf[1].str()}}
			p.eventUsers = append(p.eventUsers, m)
		case "exec_command_end":
			if id := pf[2].str(); id != "" {
				if p.eventEnds == nil {
					p.eventEnds = map[string]value{}
				}
				p.eventEnds[id] = payload
			}
		}
	}
}

func (p *parser) responsesItem(item value, pos Pos) {
	f := item.fields("type", "role", "content", "call_id", "id", "name", "arguments", "input", "action", "output", "summary")
	typ, id := f[0].str(), f[3].str()
	if id == "" {
		id = f[4].str()
	}
	switch typ {
	case "message", "":
		role := f[1].str()
		if !knownRole(role) {
			return
		}
		if role == "user" {
			p.itemUsers = true
		}
		m := p.message(role, pos)
		m.Blocks = messageBlocks(f[2])
	case "reasoning":
		m := p.message("assistant", pos)
		for _, list := range []value{f[10], f[2]} { // summary, then content
			list.each(func(b value) bool {
				if t := b.get("text"); t.isString() {
					m.Blocks = append(m.Blocks, Block{Type: Thinking, Text: t.str()})
				}
				return true
			})
		}
	case "function_call":
		p.call(p.message("assistant", pos), id, f[5].str(), f[6].str(), false)
	case "custom_tool_call":
		p.call(p.message("assistant", pos), id, f[5].str(), f[7].str(), true)
	case "local_shell_call", "web_search_call":
		p.call(p.message("assistant", pos), id, typ, f[8].rawOr("{}"), false)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		m := p.message("tool", pos)
		out := f[9]
		ref, images := resultContent(item, out, "output", "input_text")
		exit, hasExit := 0, false
		if ref.kind == inString && strings.HasPrefix(out.raw, `"{`) {
			// Some versions wrap the output as a JSON string of
			// {"output": ..., "metadata": {"exit_code": ...}}.
			if s := out.str(); gjson.Valid(s) {
				inner := value{raw: s}.fields("output", "metadata")
				if inner[0].isString() {
					ref.kind, ref.embedded, ref.value = inEmbedded, s, inner[0]
					if code := inner[1].get("exit_code"); code.isNumber() {
						exit, hasExit = code.int(), true
					}
				}
			}
		}
		r := p.result(m, id, ref, images)
		r.ExitCode, r.HasExitCode = exit, hasExit
	}
}
