package transcript

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/tools"
)

// parser builds the model from the records of one format.
type parser struct {
	t     *Transcript
	tools *tools.Table
	// Codex: user input seen only as event_msg user_message lines. They are
	// counted only when the rollout has no user message items of its own,
	// since full rollouts hold both.
	eventUsers []*Message
	itemUsers  bool
	// Codex: exec_command_end events repeat a command's output and exit
	// code, by call id.
	eventEnds map[string]gjson.Result
}

func (p *parser) parse(records []record) {
	for _, r := range records {
		switch p.t.Format {
		case OpenAI:
			p.openaiMessage(r.v, r.pos)
		case Anthropic:
			p.anthropicMessage(r.v, r.pos, gjson.Result{})
		case ClaudeCode:
			p.claudeCodeLine(r.v, r.pos)
		case Codex:
			p.codexRecord(r.v, r.pos)
		}
	}
	if p.t.Format == Anthropic && p.t.Layout == Object {
		p.anthropicSystem()
	}
	if len(p.eventUsers) > 0 && p.itemUsers {
		p.dropEventUsers()
	}
	p.pair()
	p.attachEventEnds()
}

// attachEventEnds makes the outputs that Codex's exec_command_end events
// repeat mirrors of their results.
func (p *parser) attachEventEnds() {
	if len(p.eventEnds) == 0 {
		return
	}
	for _, r := range p.t.Results {
		ev, ok := p.eventEnds[r.CallID]
		if !ok {
			continue
		}
		delete(p.eventEnds, r.CallID) // one event per result
		for _, f := range []string{"aggregated_output", "stdout", "stderr", "formatted_output"} {
			if v := ev.Get(f); v.Type == gjson.String && v.Str != "" {
				r.mirrors = append(r.mirrors, newMirror(f, v))
			}
		}
		if code := ev.Get("exit_code"); code.Type == gjson.Number && !r.HasExitCode {
			r.ExitCode, r.HasExitCode = int(code.Int()), true
		}
	}
}

// message appends a message to the model.
func (p *parser) message(role string, pos Pos) *Message {
	m := &Message{Index: len(p.t.Messages), Role: role, Pos: pos}
	p.t.Messages = append(p.t.Messages, m)
	return m
}

// call adds a tool call to m. input is the arguments as written: JSON text,
// or for custom tools their free-form input (isText).
func (p *parser) call(m *Message, id, name, input string, isText bool) *Call {
	var in gjson.Result
	switch {
	case isText:
		in = gjson.Result{Type: gjson.String, Str: input}
	case gjson.Valid(input):
		in = gjson.Parse(input)
	}
	kind, args := p.tools.Classify(name, in)
	c := &Call{Index: len(p.t.Calls), ID: id, Name: name, Kind: kind, Args: args, Input: input, Message: m}
	p.t.Calls = append(p.t.Calls, c)
	m.Calls = append(m.Calls, c)
	return c
}

// result adds a tool result to m.
func (p *parser) result(m *Message, callID string, content contentRef, text string, images []Block) *Result {
	r := &Result{Index: len(p.t.Results), CallID: callID, Message: m, Text: text, Images: images, content: content}
	p.t.Results = append(p.t.Results, r)
	m.Results = append(m.Results, r)
	return r
}

// pair joins every result to the first call with its id that has no result
// yet. Calls without results and results without calls stay unpaired.
func (p *parser) pair() {
	open := map[string][]*Call{}
	for _, c := range p.t.Calls {
		if c.ID != "" {
			open[c.ID] = append(open[c.ID], c)
		}
	}
	for _, r := range p.t.Results {
		q := open[r.CallID]
		if r.CallID == "" || len(q) == 0 {
			continue
		}
		c := q[0]
		open[r.CallID] = q[1:]
		c.Result, r.Call = r, c
		// Shell tools print their exit code into the output.
		if !r.HasExitCode && c.Args.Command != "" {
			r.ExitCode, r.HasExitCode = exitCodeFromText(r.Text)
		}
	}
}

func (p *parser) dropEventUsers() {
	drop := map[*Message]bool{}
	for _, m := range p.eventUsers {
		drop[m] = true
	}
	kept := p.t.Messages[:0]
	for _, m := range p.t.Messages {
		if !drop[m] {
			m.Index = len(kept)
			kept = append(kept, m)
		}
	}
	p.t.Messages = kept
}

// content reads a message's or a result's content: a string, or an array of
// blocks whose text blocks (text, input_text, output_text) are joined with
// newlines and whose images are kept. It also returns the raw non-text
// blocks, which a rewrite keeps.
func readContent(c gjson.Result) (text string, images []Block, keep []string, isArray bool) {
	switch {
	case c.Type == gjson.String:
		return c.String(), nil, nil, false
	case !c.IsArray():
		return "", nil, nil, false
	}
	var b strings.Builder
	n := 0
	c.ForEach(func(_, blk gjson.Result) bool {
		if t := blk.Get("text"); t.Type == gjson.String && isTextType(blk.Get("type").String()) {
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.String())
			n++
			return true
		}
		if img, ok := imageBlock(blk); ok {
			images = append(images, img)
		}
		keep = append(keep, blk.Raw)
		return true
	})
	return b.String(), images, keep, true
}

func isTextType(t string) bool {
	switch t {
	case "text", "input_text", "output_text", "":
		return true
	}
	return false
}

// imageBlock reads an image in any of the formats' shapes: Anthropic's
// source (base64 or url), OpenAI's image_url, the Responses API's
// input_image.
func imageBlock(b gjson.Result) (Block, bool) {
	switch b.Get("type").String() {
	case "image":
		src := b.Get("source")
		return Block{Type: Image, MediaType: src.Get("media_type").String(), Data: src.Get("data").String(), URL: src.Get("url").String()}, true
	case "image_url", "input_image":
		url := b.Get("image_url")
		if url.IsObject() {
			url = url.Get("url")
		}
		return dataURL(url.String()), true
	}
	return Block{}, false
}

// dataURL splits data:image/png;base64,XXXX into its media type and data.
func dataURL(u string) Block {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(meta, ";base64") {
			return Block{Type: Image, MediaType: strings.TrimSuffix(meta, ";base64"), Data: data}
		}
	}
	return Block{Type: Image, URL: u}
}

// contentBlocks turns the text and images of readContent into blocks.
func contentBlocks(text string, images []Block) []Block {
	var out []Block
	if text != "" {
		out = append(out, Block{Type: Text, Text: text})
	}
	return append(out, images...)
}

// Exit codes that tools print into their output: Claude Code's Bash
// ("Exit code 1"), Codex ("Process exited with code 1", "Exit code: 1"),
// mini-swe-agent ("<returncode>1</returncode>").
var exitPatterns = regexp.MustCompile(`(?m)\A(?:Exit code:? (-?\d+)\s|<returncode>(-?\d+)</returncode>)|^(?:Process exited with code|Exit code:) (-?\d+)\s*$`)

// exitCodeFromText finds an exit code in the first lines of an output.
func exitCodeFromText(text string) (int, bool) {
	head := text
	if len(head) > 512 {
		head = head[:512]
	}
	m := exitPatterns.FindStringSubmatch(head)
	for _, g := range m[min(1, len(m)):] {
		if g != "" {
			n, err := strconv.Atoi(g)
			return n, err == nil
		}
	}
	return 0, false
}
