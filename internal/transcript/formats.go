package transcript

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/lazyre"
	"github.com/ctxkit/ctxkit/internal/outcome"
)

// contentKind is how a result's content is stored, which decides how a new
// text is written back.
type contentKind uint8

const (
	inString   contentKind = iota // a JSON string: the text
	inBlocks                      // an array of blocks
	inNull                        // null, or a value with no text
	inMissing                     // absent: the span is the enclosing object's closing brace, where the field goes
	inEmbedded                    // a JSON string holding an object whose "output" is the text (Codex)
)

// contentRef locates a result's content in the input.
type contentRef struct {
	kind       contentKind
	value      jsonscan.Value // the content; for inEmbedded, the inner "output"
	start, end int
	key        string   // inMissing: the field to add
	hasFields  bool     // inMissing: the object has fields, so the new one needs a comma
	textType   string   // inBlocks: the type a rewritten text block gets
	keep       []string // inBlocks: raw non-text blocks, which a rewrite keeps
	embedded   string   // inEmbedded: the decoded object
}

// text decodes the content's text.
func (c *contentRef) text() string {
	switch c.kind {
	case inString, inEmbedded:
		return c.value.Str()
	case inBlocks:
		return blocksText(c.value)
	}
	return ""
}

// mirror is a string field that repeats a result's output.
type mirror struct {
	field      string
	value      jsonscan.Value
	text       string
	set        bool // text replaces value
	start, end int
}

func (m *mirror) Text() string {
	if m.set {
		return m.text
	}
	return m.value.Str()
}

// resultContent locates the content value c of a result held in the object
// parent (under key), and reads the images in it. The text is decoded when
// asked for.
func resultContent(parent, c jsonscan.Value, key, textType string) (contentRef, []Block) {
	ref := contentRef{key: key, textType: textType, value: c}
	ref.start, ref.end = c.Span()
	switch {
	case !c.Exists():
		// The field is inserted before the closing brace: replacing the
		// whole object would overlap the edits of values inside it.
		ref.kind = inMissing
		_, end := parent.Span()
		ref.start, ref.end = end-1, end-1
		ref.hasFields = strings.TrimSpace(parent.Raw[1:len(parent.Raw)-1]) != ""
	case c.IsString():
		ref.kind = inString
	case c.IsArray():
		images, keep, texts := scanBlocks(c)
		if len(texts) == 1 {
			// One text block: its string is the text, and a rewrite
			// replaces that string alone, so the array keeps its layout
			// (a pretty-printed document keeps its lines).
			ref.kind, ref.value = inString, texts[0]
			ref.start, ref.end = texts[0].Span()
			return ref, images
		}
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
func (p *parser) anthropicMessage(v jsonscan.Value, pos Pos, tur jsonscan.Value) {
	f := v.Fields("role", "content", "model", "id")
	role, c := f[0].Str(), f[1]
	if !knownRole(role) {
		return
	}
	p.sawModel(f[2])
	m := p.message(role, pos)
	if role == "assistant" {
		m.Response = f[3].Str()
	}
	if c.IsString() {
		m.Blocks = append(m.Blocks, Block{Type: Text, Text: c.Str()})
		return
	}
	c.Each(func(b jsonscan.Value) bool {
		f := b.Fields("type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error")
		switch f[0].Str() {
		case "text":
			m.Blocks = append(m.Blocks, Block{Type: Text, Text: f[1].Str()})
		case "thinking":
			m.Blocks = append(m.Blocks, Block{Type: Thinking, Text: f[2].Str()})
		case "image":
			img, _ := imageBlock(b)
			m.Blocks = append(m.Blocks, img)
		case "tool_use", "server_tool_use":
			p.call(m, f[3].Str(), f[4].Str(), f[5].RawOr("{}"), false).raw = f[5]
		case "tool_result":
			ref, images := resultContent(b, f[7], "content", "text")
			r := p.result(m, f[6].Str(), ref, images)
			r.IsError = f[8].IsTrue()
		}
		return true
	})
	if tur.Exists() && len(m.Results) == 1 {
		m.Results[0].mirrors = claudeMirrors(tur)
	}
}

// system reads the system prompt at the top of a request body (Messages'
// "system", Responses' "instructions"): a string or text blocks.
func (p *parser) system(sys jsonscan.Value) {
	text := sys.Str()
	if sys.IsArray() {
		text = blocksText(sys)
	}
	if text == "" {
		return
	}
	m := &Message{Role: "system", Pos: Pos{Line: p.lineAt(sys.Off), Element: -1},
		Blocks: []Block{{Type: Text, Text: text}}}
	p.t.Messages = append([]*Message{m}, p.t.Messages...)
	for i, m := range p.t.Messages {
		m.Index = i
	}
}

// requestSession is the session a request body names (by its metadata
// and prompt_cache_key fields): Claude Code's session_id in
// metadata.user_id (a JSON object in a string; older
// versions end the string with _session_ and the id), else the
// prompt_cache_key that Codex sets to its session's id; "" for none.
func requestSession(metadata, promptCacheKey jsonscan.Value) string {
	user := metadata.Get("user_id").Str()
	if strings.HasPrefix(user, "{") && jsonscan.Valid(user) {
		if id := jsonscan.Parse(user, 0).Get("session_id").Str(); id != "" {
			return id
		}
	}
	if i := strings.LastIndex(user, "_session_"); i >= 0 && i+len("_session_") < len(user) {
		return user[i+len("_session_"):]
	}
	return promptCacheKey.Str()
}

// cwdStated finds the working directory where the agents state it in the
// history they send: Claude Code's system prompt ("Primary working
// directory: /p", "Working directory: /p" in older versions), Codex's
// environment context (<cwd>/p</cwd>).
var cwdStated = lazyre.New(`(?m)^[ \t]*(?:- )?(?:Primary working directory|Working directory): *(/[^\n]*?|[A-Za-z]:\\[^\n]*?)[ \t]*$|<cwd>([^<\n]+)</cwd>`)

// statedCwd is the working directory that a request body's system
// prompt or first user messages state (cwdStated), else "".
func statedCwd(msgs []*Message) string {
	for _, m := range msgs {
		if m.Role == "assistant" {
			break // the agent states it before the model's first turn
		}
		for _, b := range m.Blocks {
			if b.Type != Text || !strings.Contains(b.Text, "orking directory") && !strings.Contains(b.Text, "<cwd>") {
				continue
			}
			if sm := cwdStated.FindStringSubmatch(b.Text); sm != nil {
				return sm[1] + sm[2]
			}
		}
	}
	return ""
}

func (p *parser) claudeCodeLine(v jsonscan.Value, pos Pos) {
	f := v.Fields("type", "message", "toolUseResult", "cwd", "sessionId", "timestamp", "subtype")
	p.sawTime(f[5])
	if p.t.Cwd == "" {
		p.t.Cwd = f[3].Str()
	}
	if p.t.SessionID == "" {
		p.t.SessionID = f[4].Str()
	}
	switch f[0].Str() {
	case "user", "assistant":
		p.anthropicMessage(f[1], pos, f[2])
	case "system":
		if f[6].Str() == "compact_boundary" {
			p.restart = true
		}
	}
}

// claudeOutputFields are the fields of toolUseResult that repeat a tool's
// output (Bash's stdout and stderr, Read's file.content, Grep's content,
// Task's content blocks, WebFetch's result); paths, counts and an edit's
// file snapshots are not output.
var claudeOutputFields = []string{"stdout", "stderr", "content", "output", "result", "file"}

func claudeMirrors(tur jsonscan.Value) []mirror {
	if tur.IsString() {
		return []mirror{newMirror("toolUseResult", tur)}
	}
	var out []mirror
	for i, v := range tur.Fields(claudeOutputFields...) {
		name := "toolUseResult." + claudeOutputFields[i]
		if claudeOutputFields[i] == "file" {
			v, name = v.Get("content"), name+".content"
		}
		switch {
		case v.IsString() && v.Raw != `""`:
			out = append(out, newMirror(name, v))
		case v.IsArray():
			j := 0
			v.Each(func(b jsonscan.Value) bool {
				if t := b.Get("text"); t.IsString() && t.Raw != `""` {
					out = append(out, newMirror(name+"."+strconv.Itoa(j)+".text", t))
				}
				j++
				return true
			})
		}
	}
	return out
}

func newMirror(field string, v jsonscan.Value) mirror {
	m := mirror{field: field, value: v}
	m.start, m.end = v.Span()
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

func (p *parser) openaiMessage(v jsonscan.Value, pos Pos) {
	f := v.Fields("role", "content", "tool_calls", "tool_call_id", "extra")
	role, c := f[0].Str(), f[1]
	if !knownRole(role) {
		return // e.g. mini-swe-agent's final "exit": passed through
	}
	if f[4].Exists() {
		extra := f[4].Fields("timestamp", "response")
		p.sawTime(extra[0])
		p.sawModel(extra[1].Get("model"))
	}
	m := p.message(role, pos)
	if role == "tool" {
		ref, images := resultContent(v, c, "content", "text")
		r := p.result(m, f[3].Str(), ref, images)
		// mini-swe-agent keeps the raw output and the return code aside.
		extra := f[4].Fields("raw_output", "returncode")
		if extra[0].IsString() {
			r.mirrors = []mirror{newMirror("extra.raw_output", extra[0])}
		}
		if extra[1].IsNumber() {
			r.ExitCode = outcome.ExitCode(int(extra[1].Int()))
		}
		return
	}
	m.Blocks = messageBlocks(c)
	f[2].Each(func(tc jsonscan.Value) bool {
		f := tc.Fields("id", "function")
		fn := f[1].Fields("name", "arguments")
		input := fn[1].Str()
		if !fn[1].IsString() {
			input = fn[1].Raw
		}
		p.call(m, f[0].Str(), fn[0].Str(), input, false).raw = fn[1]
		return true
	})
}

// --- Codex rollouts and Responses API items ---

func (p *parser) codexRecord(v jsonscan.Value, pos Pos) {
	f := v.Fields("type", "payload", "timestamp")
	payload := f[1]
	p.sawTime(f[2])
	if !payload.Exists() {
		p.responsesItem(v, pos) // a bare array of Responses API items
		return
	}
	switch f[0].Str() {
	case "session_meta":
		pf := payload.Fields("cwd", "base_instructions", "instructions", "id")
		if p.t.Cwd == "" {
			p.t.Cwd = pf[0].Str()
		}
		if p.t.SessionID == "" {
			p.t.SessionID = pf[3].Str()
		}
		instr := pf[1].Get("text")
		if !instr.IsString() {
			instr = pf[2]
		}
		if instr.IsString() && instr.Raw != `""` {
			m := p.message("system", pos)
			m.Blocks = []Block{{Type: Text, Text: instr.Str()}}
		}
	case "turn_context":
		pf := payload.Fields("cwd", "model")
		if p.t.Cwd == "" {
			p.t.Cwd = pf[0].Str()
		}
		p.sawModel(pf[1])
	case "response_item":
		p.responsesItem(payload, pos)
	case "compacted":
		p.restart = true
	case "event_msg":
		pf := payload.Fields("type", "message", "call_id")
		switch pf[0].Str() {
		case "user_message":
			m := p.message("user", pos)
			m.Blocks = []Block{{Type: Text, Text: pf[1].Str()}}
			p.eventUsers = append(p.eventUsers, m)
		case "exec_command_end":
			if id := pf[2].Str(); id != "" {
				if p.eventEnds == nil {
					p.eventEnds = map[string]jsonscan.Value{}
				}
				p.eventEnds[id] = payload
			}
		}
	}
}

func (p *parser) responsesItem(item jsonscan.Value, pos Pos) {
	f := item.Fields("type", "role", "content", "call_id", "id", "name", "arguments", "input", "action", "output", "summary")
	typ, id := f[0].Str(), f[3].Str()
	if id == "" {
		id = f[4].Str()
	}
	switch typ {
	case "message", "":
		role := f[1].Str()
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
		for _, list := range []jsonscan.Value{f[10], f[2]} { // summary, then content
			list.Each(func(b jsonscan.Value) bool {
				if t := b.Get("text"); t.IsString() {
					m.Blocks = append(m.Blocks, Block{Type: Thinking, Text: t.Str()})
				}
				return true
			})
		}
	case "function_call":
		p.call(p.message("assistant", pos), id, f[5].Str(), f[6].Str(), false).raw = f[6]
	case "custom_tool_call":
		p.call(p.message("assistant", pos), id, f[5].Str(), f[7].Str(), true)
	case "local_shell_call", "web_search_call":
		p.call(p.message("assistant", pos), id, typ, f[8].RawOr("{}"), false)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		m := p.message("tool", pos)
		out := f[9]
		ref, images := resultContent(item, out, "output", "input_text")
		var exit outcome.Code
		if ref.kind == inString && strings.HasPrefix(out.Raw, `"{`) {
			// Some versions wrap the output as a JSON string of
			// {"output": ..., "metadata": {"exit_code": ...}}.
			if s := out.Str(); jsonscan.Valid(s) {
				inner := jsonscan.Value{Raw: s}.Fields("output", "metadata")
				if inner[0].IsString() {
					ref.kind, ref.embedded, ref.value = inEmbedded, s, inner[0]
					if code := inner[1].Get("exit_code"); code.IsNumber() {
						exit = outcome.ExitCode(int(code.Int()))
					}
				}
			}
		}
		r := p.result(m, id, ref, images)
		r.ExitCode = exit
	}
}
