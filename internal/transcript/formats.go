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
	start, end int
	key        string   // inMissing: the field to add
	textType   string   // inBlocks: the type a rewritten text block gets
	keep       []string // inBlocks: raw non-text blocks, which a rewrite keeps
	embedded   string   // inEmbedded: the decoded object
}

// mirror is a string field that repeats a result's output.
type mirror struct {
	field      string
	text       string
	start, end int
}

func span(v gjson.Result) (int, int) { return v.Index, v.Index + len(v.Raw) }

// resultContent reads the content value c of a result held in the object
// parent (under key), and the text and images in it.
func resultContent(parent, c gjson.Result, key, textType string) (contentRef, string, []Block) {
	ref := contentRef{key: key, textType: textType}
	ref.start, ref.end = span(c)
	switch {
	case !c.Exists():
		ref.kind = inMissing
		ref.start, ref.end = span(parent)
		return ref, "", nil
	case c.Type == gjson.String:
		ref.kind = inString
		return ref, c.String(), nil
	case c.IsArray():
		text, images, keep, _ := readContent(c)
		ref.kind, ref.keep = inBlocks, keep
		return ref, text, images
	}
	ref.kind = inNull
	return ref, "", nil
}

// --- Anthropic Messages and Claude Code ---

// anthropicMessage reads a Messages API message. line is the Claude Code line
// around it, whose toolUseResult mirrors the tool's output.
func (p *parser) anthropicMessage(v gjson.Result, pos Pos, line gjson.Result) *Message {
	role := v.Get("role").String()
	if !knownRole(role) {
		return nil
	}
	m := p.message(role, pos)
	c := v.Get("content")
	if c.Type == gjson.String {
		m.Blocks = append(m.Blocks, Block{Type: Text, Text: c.String()})
		return m
	}
	c.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "text":
			m.Blocks = append(m.Blocks, Block{Type: Text, Text: b.Get("text").String()})
		case "thinking":
			m.Blocks = append(m.Blocks, Block{Type: Thinking, Text: b.Get("thinking").String()})
		case "image":
			img, _ := imageBlock(b)
			m.Blocks = append(m.Blocks, img)
		case "tool_use", "server_tool_use":
			p.call(m, b.Get("id").String(), b.Get("name").String(), rawOr(b.Get("input"), "{}"), false)
		case "tool_result":
			ref, text, images := resultContent(b, b.Get("content"), "content", "text")
			r := p.result(m, b.Get("tool_use_id").String(), ref, text, images)
			r.IsError = b.Get("is_error").Bool()
		}
		return true
	})
	if line.Exists() && len(m.Results) == 1 {
		m.Results[0].mirrors = claudeMirrors(line.Get("toolUseResult"))
	}
	return m
}

func rawOr(v gjson.Result, def string) string {
	if !v.Exists() {
		return def
	}
	return v.Raw
}

// anthropicSystem reads the top-level system prompt of a request body.
func (p *parser) anthropicSystem() {
	sys := gjson.Get(p.t.src, "system")
	text, _, _, _ := readContent(sys)
	if text == "" {
		return
	}
	m := &Message{Role: "system", Pos: Pos{Line: newLineCounter(p.t.src).at(sys.Index), Element: -1},
		Blocks: []Block{{Type: Text, Text: text}}}
	p.t.Messages = append([]*Message{m}, p.t.Messages...)
	for i, m := range p.t.Messages {
		m.Index = i
	}
}

func (p *parser) claudeCodeLine(v gjson.Result, pos Pos) {
	if p.t.Cwd == "" {
		p.t.Cwd = v.Get("cwd").String()
	}
	switch v.Get("type").String() {
	case "user", "assistant":
		p.anthropicMessage(v.Get("message"), pos, v)
	}
}

// claudeOutputFields are the fields of toolUseResult that repeat a tool's
// output (Bash's stdout and stderr, Read's file.content, Grep's content,
// Task's content blocks, WebFetch's result); paths, counts and an edit's
// file snapshots are not output.
var claudeOutputFields = []string{"stdout", "stderr", "content", "output", "result", "file.content"}

func claudeMirrors(tur gjson.Result) []mirror {
	if tur.Type == gjson.String {
		return []mirror{newMirror("toolUseResult", tur)}
	}
	if !tur.IsObject() {
		return nil
	}
	var out []mirror
	for _, f := range claudeOutputFields {
		v := tur.Get(f)
		switch {
		case v.Type == gjson.String && v.Str != "":
			out = append(out, newMirror("toolUseResult."+f, v))
		case v.IsArray():
			i := 0
			v.ForEach(func(_, b gjson.Result) bool {
				if t := b.Get("text"); t.Type == gjson.String && t.Str != "" {
					out = append(out, newMirror("toolUseResult."+f+"."+strconv.Itoa(i)+".text", t))
				}
				i++
				return true
			})
		}
	}
	return out
}

func newMirror(field string, v gjson.Result) mirror {
	m := mirror{field: field, text: v.String()}
	m.start, m.end = span(v)
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

func (p *parser) openaiMessage(v gjson.Result, pos Pos) {
	role := v.Get("role").String()
	if !knownRole(role) {
		return // e.g. mini-swe-agent's final "exit": passed through
	}
	m := p.message(role, pos)
	c := v.Get("content")
	if role == "tool" {
		ref, text, images := resultContent(v, c, "content", "text")
		r := p.result(m, v.Get("tool_call_id").String(), ref, text, images)
		if raw := v.Get("extra.raw_output"); raw.Type == gjson.String {
			r.mirrors = []mirror{newMirror("extra.raw_output", raw)}
		}
		if rc := v.Get("extra.returncode"); rc.Type == gjson.Number {
			r.ExitCode, r.HasExitCode = int(rc.Int()), true
		}
		return
	}
	text, images, _, _ := readContent(c)
	m.Blocks = contentBlocks(text, images)
	v.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		args := tc.Get("function.arguments")
		input := args.String()
		if args.Type != gjson.String {
			input = rawOr(args, "")
		}
		p.call(m, tc.Get("id").String(), tc.Get("function.name").String(), input, false)
		return true
	})
}

// --- Codex rollouts and Responses API items ---

func (p *parser) codexRecord(v gjson.Result, pos Pos) {
	payload := v.Get("payload")
	if !payload.Exists() {
		p.responsesItem(v, pos) // a bare array of Responses API items
		return
	}
	switch v.Get("type").String() {
	case "session_meta":
		if p.t.Cwd == "" {
			p.t.Cwd = payload.Get("cwd").String()
		}
		instr := payload.Get("base_instructions.text")
		if instr.Type != gjson.String {
			instr = payload.Get("instructions")
		}
		if s := instr.String(); instr.Type == gjson.String && s != "" {
			m := p.message("system", pos)
			m.Blocks = []Block{{Type: Text, Text: s}}
		}
	case "turn_context":
		if p.t.Cwd == "" {
			p.t.Cwd = payload.Get("cwd").String()
		}
	case "response_item":
		p.responsesItem(payload, pos)
	case "event_msg":
		switch payload.Get("type").String() {
		case "user_message":
			m := p.message("user", pos)
			m.Blocks = []Block{{Type: Text, Text: payload.Get("message").String()}}
			p.eventUsers = append(p.eventUsers, m)
		case "exec_command_end":
			if id := payload.Get("call_id").String(); id != "" {
				if p.eventEnds == nil {
					p.eventEnds = map[string]gjson.Result{}
				}
				p.eventEnds[id] = payload
			}
		}
	}
}

func (p *parser) responsesItem(item gjson.Result, pos Pos) {
	typ := item.Get("type").String()
	switch typ {
	case "message", "":
		role := item.Get("role").String()
		if !knownRole(role) {
			return
		}
		if role == "user" {
			p.itemUsers = true
		}
		m := p.message(role, pos)
		text, images, _, _ := readContent(item.Get("content"))
		m.Blocks = contentBlocks(text, images)
	case "reasoning":
		m := p.message("assistant", pos)
		for _, key := range []string{"summary", "content"} {
			item.Get(key).ForEach(func(_, b gjson.Result) bool {
				if t := b.Get("text"); t.Type == gjson.String {
					m.Blocks = append(m.Blocks, Block{Type: Thinking, Text: t.String()})
				}
				return true
			})
		}
	case "function_call":
		m := p.message("assistant", pos)
		p.call(m, item.Get("call_id").String(), item.Get("name").String(), item.Get("arguments").String(), false)
	case "custom_tool_call":
		m := p.message("assistant", pos)
		p.call(m, item.Get("call_id").String(), item.Get("name").String(), item.Get("input").String(), true)
	case "local_shell_call", "web_search_call":
		m := p.message("assistant", pos)
		id := item.Get("call_id").String()
		if id == "" {
			id = item.Get("id").String()
		}
		p.call(m, id, typ, rawOr(item.Get("action"), "{}"), false)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		m := p.message("tool", pos)
		out := item.Get("output")
		ref, text, images := resultContent(item, out, "output", "input_text")
		var exit gjson.Result
		if ref.kind == inString {
			// Some versions wrap the output as a JSON string of
			// {"output": ..., "metadata": {"exit_code": ...}}.
			if s := out.String(); strings.HasPrefix(s, "{") && gjson.Valid(s) {
				if inner := gjson.Get(s, "output"); inner.Type == gjson.String {
					ref.kind, ref.embedded, text = inEmbedded, s, inner.String()
					exit = gjson.Get(s, "metadata.exit_code")
				}
			}
		}
		id := item.Get("call_id").String()
		if id == "" {
			id = item.Get("id").String()
		}
		r := p.result(m, id, ref, text, images)
		if exit.Type == gjson.Number {
			r.ExitCode, r.HasExitCode = int(exit.Int()), true
		}
	}
}
