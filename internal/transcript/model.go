package transcript

import (
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// parser builds the model from the records of one format.
type parser struct {
	t     *Transcript
	tools *tools.Table
	// Codex: user input seen only as event_msg user_message lines. They are
	// counted only when the rollout has no user message items of its own,
	// since full rollouts hold both.
	root       jsonscan.Value // the document, for a request body's top-level fields
	eventUsers []*Message
	itemUsers  bool
	// Codex: exec_command_end events repeat a command's output and exit
	// code, by call id.
	eventEnds map[string]jsonscan.Value
	// SWE-agent: the call whose observation the next message is, and how
	// many actions came before.
	swePending *Call
	sweSteps   int
	// The time and the model of the record being read, for the messages
	// it makes (stamps.go).
	at    time.Time
	model string
	// restart: the agent compacted its history before the next message.
	restart bool
}

func (p *parser) parse(records []record) {
	for _, r := range records {
		switch p.t.Format {
		case OpenAI:
			p.openaiMessage(r.v, r.pos)
		case Anthropic:
			p.anthropicMessage(r.v, r.pos, jsonscan.Value{})
		case ClaudeCode:
			p.claudeCodeLine(r.v, r.pos)
		case Codex:
			p.codexRecord(r.v, r.pos)
		case SWEAgent:
			p.sweAgentMessage(r.v, r.pos)
		}
	}
	if p.t.Layout == Object {
		switch p.t.Format {
		case Anthropic:
			p.system(p.root.Get("system"))
		case Codex:
			p.system(p.root.Get("instructions"))
		}
		p.t.SessionID = requestSession(p.root)
	}
	if p.t.Cwd == "" && p.t.Layout != JSONL {
		p.t.Cwd = statedCwd(p.t.Messages)
	}
	if len(p.eventUsers) > 0 && p.itemUsers {
		p.dropEventUsers()
	}
	p.pair()
	p.attachEventEnds()
	if p.t.Format == SWEAgent {
		p.sweAgentState()
	}
	p.judge()
	p.joinSessions()
	p.stampAll()
}

// judge reads how every call ended from its result's text (internal/outcome)
// and what the format said beside it: is_error, an exit code.
func (p *parser) judge() {
	for _, r := range p.t.Results {
		r.outcome = outcome.ReadEnds(r.head(outcome.HeadBytes), r.tail(outcome.TailBytes),
			outcome.Hint{IsError: r.IsError, ExitCode: r.ExitCode})
		r.ExitCode = r.outcome.ExitCode
	}
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
		names := []string{"aggregated_output", "stdout", "stderr", "formatted_output", "exit_code"}
		f := ev.Fields(names...)
		for i, v := range f[:4] {
			if v.IsString() && v.Raw != `""` {
				r.mirrors = append(r.mirrors, newMirror(names[i], v))
			}
		}
		if code := f[4]; code.IsNumber() {
			r.commandExit = outcome.ExitCode(int(code.Int()))
			if !r.ExitCode.Known() {
				r.ExitCode = r.commandExit
			}
		}
	}
}

// message appends a message to the model.
func (p *parser) message(role string, pos Pos) *Message {
	m := &Message{Index: len(p.t.Messages), Role: role, Pos: pos, Time: p.at, Model: p.model, Restart: p.restart}
	p.restart = false
	p.t.Messages = append(p.t.Messages, m)
	return m
}

// call adds a tool call to m. input is the arguments as written: JSON text,
// or for custom tools their free-form input (isText).
func (p *parser) call(m *Message, id, name, input string, isText bool) *Call {
	kind, args := p.tools.Decode(name, input, isText)
	c := &Call{Index: len(p.t.Calls), ID: id, Name: name, Kind: kind, Args: args, Input: input, InputIsText: isText, Message: m}
	p.t.Calls = append(p.t.Calls, c)
	m.Calls = append(m.Calls, c)
	return c
}

// result adds a tool result to m.
func (p *parser) result(m *Message, callID string, content contentRef, images []Block) *Result {
	r := &Result{Index: len(p.t.Results), CallID: callID, Message: m, Images: images, content: content}
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
	}
}

func (p *parser) dropEventUsers() {
	drop := map[*Message]bool{}
	for _, m := range p.eventUsers {
		drop[m] = true
	}
	kept := p.t.Messages[:0]
	restart := false // a dropped message's restart passes to the next kept one
	for _, m := range p.t.Messages {
		if drop[m] {
			restart = restart || m.Restart
			continue
		}
		m.Index = len(kept)
		m.Restart = m.Restart || restart
		restart = false
		kept = append(kept, m)
	}
	p.t.Messages = kept
}

// messageBlocks reads a message's content: a string, or an array of blocks
// whose text blocks (text, input_text, output_text) and images are kept.
func messageBlocks(c jsonscan.Value) []Block {
	if c.IsString() {
		return []Block{{Type: Text, Text: c.Str()}}
	}
	var out []Block
	c.Each(func(blk jsonscan.Value) bool {
		f := blk.Fields("type", "text")
		if f[1].IsString() && isTextType(f[0].Str()) {
			out = append(out, Block{Type: Text, Text: f[1].Str()})
		} else if img, ok := imageBlock(blk); ok {
			out = append(out, img)
		}
		return true
	})
	return out
}

// scanBlocks reads the images of a result's array of blocks, the raw
// non-text blocks, which a rewrite keeps, and the values of the text blocks.
func scanBlocks(c jsonscan.Value) (images []Block, keep []string, texts []jsonscan.Value) {
	c.Each(func(blk jsonscan.Value) bool {
		f := blk.Fields("type", "text")
		if f[1].IsString() && isTextType(f[0].Str()) {
			texts = append(texts, f[1])
			return true
		}
		if img, ok := imageBlock(blk); ok {
			images = append(images, img)
		}
		keep = append(keep, blk.Raw)
		return true
	})
	return images, keep, texts
}

// blocksText joins the text blocks of an array of blocks with newlines.
func blocksText(c jsonscan.Value) string {
	var b strings.Builder
	n := 0
	c.Each(func(blk jsonscan.Value) bool {
		f := blk.Fields("type", "text")
		if f[1].IsString() && isTextType(f[0].Str()) {
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(f[1].Str())
			n++
		}
		return true
	})
	return b.String()
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
func imageBlock(b jsonscan.Value) (Block, bool) {
	f := b.Fields("type", "source", "image_url")
	switch f[0].Str() {
	case "image":
		src := f[1].Fields("media_type", "data", "url")
		return Block{Type: Image, MediaType: src[0].Str(), Data: src[1].Str(), URL: src[2].Str()}, true
	case "image_url", "input_image":
		url := f[2]
		if url.IsObject() {
			url = url.Get("url")
		}
		return dataURL(url.Str()), true
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
