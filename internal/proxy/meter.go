package proxy

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"strings"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// maxMetered is the most of a JSON answer, or of one event's data (all of
// its lines), that the meter keeps to read the usage from; past it the
// usage is not read from it.
const maxMetered = 16 << 20

// meter reads the usage and the model of an answer as it streams through:
// from an event stream, the events that carry them (Messages'
// message_start and message_delta, Responses' response.completed, Chat
// Completions' chunk with usage); from a JSON answer, its usage. It never
// fails the answer: what it cannot read, it says in unread.
type meter struct {
	api API
	sse bool
	// pipe, when the answer is compressed, takes the bytes to a goroutine
	// that decompresses them into the meter; done closes when it ends.
	pipe *io.PipeWriter
	done chan struct{}

	line  []byte // the event stream's line being read
	long  bool   // and it is longer than limit
	event string // the event being read's name
	data  []byte // and its data
	skip  bool   // its data is not needed
	body  []byte // a JSON answer
	over  bool   // something was longer than limit
	limit int    // maxMetered (the fuzz target's is smaller)

	found     bool
	tokens    pricing.Tokens
	reasoning int64
	model     string
	unread    string // why the usage could not be read, when it could not
}

// metered is what a meter read of an answer.
type metered struct {
	found     bool // the answer said its usage
	tokens    pricing.Tokens
	reasoning int64
	model     string
}

// newMeter starts the meter of an answer with these headers to a request
// of api; nil for a request of no API the proxy knows.
func newMeter(api API, h http.Header) *meter {
	if api == "" {
		return nil
	}
	m := &meter{api: api, sse: strings.HasPrefix(h.Get("Content-Type"), "text/event-stream"), limit: maxMetered}
	var open func(io.Reader) (io.ReadCloser, error)
	switch enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))); enc {
	case "", "identity":
		return m
	case "gzip", "x-gzip":
		open = func(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }
	case "deflate":
		open = func(r io.Reader) (io.ReadCloser, error) { return zlib.NewReader(r) }
	default:
		m.unread = "the answer's content encoding is " + enc
		return m
	}
	pr, pw := io.Pipe()
	m.pipe, m.done = pw, make(chan struct{})
	go func() {
		defer close(m.done)
		defer io.Copy(io.Discard, pr) //nolint:errcheck // whatever is left, so that the writer never blocks
		r, err := open(pr)
		if err == nil {
			_, err = io.Copy(writerFunc(m.feed), r)
			r.Close()
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			m.unread = "the compressed answer: " + err.Error()
		}
	}()
	return m
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// write takes the answer's next bytes.
func (m *meter) write(p []byte) {
	switch {
	case m == nil:
	case m.pipe != nil:
		m.pipe.Write(p) //nolint:errcheck // the reader drains whatever comes
	case m.unread == "":
		m.feed(p)
	}
}

// close ends the answer.
func (m *meter) close() {
	if m == nil {
		return
	}
	if m.pipe != nil {
		m.pipe.Close()
		<-m.done
		m.pipe = nil
	}
	if m.sse {
		m.endLine()
		m.dispatch()
	} else if !m.over && len(m.body) > 0 {
		m.read("", m.body)
	}
	if m.over && !m.found && m.unread == "" {
		m.unread = "an event or an answer over 16 MiB"
	}
}

// result is what the meter read, once closed.
func (m *meter) result() metered {
	if m == nil {
		return metered{}
	}
	m.close()
	return metered{found: m.found, tokens: m.tokens, reasoning: m.reasoning, model: m.model}
}

// feed takes decoded bytes of the answer.
func (m *meter) feed(p []byte) {
	if !m.sse {
		if len(m.body)+len(p) > m.limit {
			m.over, m.body = true, nil
		}
		if !m.over {
			m.body = append(m.body, p...)
		}
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			m.addLine(p)
			return
		}
		m.addLine(p[:i])
		m.endLine()
		p = p[i+1:]
	}
}

// addLine adds to the line being read, keeping no more than an event's
// data may hold.
func (m *meter) addLine(p []byte) {
	switch {
	case m.long:
	case m.skip && len(m.line) >= len("event:") && !bytes.HasPrefix(m.line, []byte("event:")):
		// the data of an event not read: only its start tells the field
	case len(m.line)+len(p) > m.limit:
		m.long, m.line = true, m.line[:0]
	default:
		m.line = append(m.line, p...)
	}
}

// endLine reads a whole line of the event stream.
func (m *meter) endLine() {
	if m.long {
		// A line over the limit: the event it is in is not read.
		m.long, m.over, m.skip, m.data = false, true, true, nil
		return
	}
	line := bytes.TrimSuffix(m.line, []byte("\r"))
	m.line = m.line[:0]
	switch {
	case len(line) == 0:
		m.dispatch()
	case bytes.HasPrefix(line, []byte("event:")):
		m.event = strings.TrimSpace(string(line[len("event:"):]))
		m.skip = !m.wanted(m.event)
	case bytes.HasPrefix(line, []byte("data:")) && !m.skip:
		d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if len(m.data)+1+len(d) > m.limit {
			// An event's data is its lines', however many: past the
			// limit the event is not read, and its data not kept.
			m.over, m.skip, m.data = true, true, nil
			return
		}
		if need := len(m.data) + 1 + len(d); need > cap(m.data) {
			m.data = append(make([]byte, 0, min(max(need, 2*cap(m.data)), m.limit)), m.data...) // doubled: an event of many lines is copied little
		}
		if len(m.data) > 0 {
			m.data = append(m.data, '\n')
		}
		m.data = append(m.data, d...)
	}
}

// wanted reports whether the data of an event of this name may carry the
// usage or the model.
func (m *meter) wanted(event string) bool {
	switch m.api {
	case Messages:
		return event == "message_start" || event == "message_delta" || event == ""
	case Responses:
		return event == "response.completed" || event == "response.incomplete" || event == "response.failed" || event == ""
	}
	return true
}

// dispatch ends an event.
func (m *meter) dispatch() {
	if len(m.data) > 0 && !m.skip {
		m.read(m.event, m.data)
	}
	m.event, m.data, m.skip = "", m.data[:0], false
}

// read reads the usage and the model from an event's data, or from a JSON
// answer (event "").
func (m *meter) read(event string, data []byte) {
	s := string(data)
	if m.api == Chat && m.sse && !strings.Contains(s, `"usage"`) && m.model != "" {
		return // a chunk of text: most of a stream
	}
	if !jsonscan.Valid(s) {
		return
	}
	f := jsonscan.Parse(s, 0).Fields("type", "message", "usage", "response", "model")
	typ := event
	if typ == "" {
		typ = f[0].Str()
	}
	switch m.api {
	case Messages:
		switch {
		case typ == "message_start":
			msg := f[1].Fields("usage", "model")
			m.take(msg[1])
			if msg[0].IsObject() {
				m.tokens, m.found = usage.Anthropic(msg[0], pricing.Tokens{}), true
			}
		case typ == "message_delta" && f[2].IsObject():
			m.tokens, m.found = usage.Anthropic(f[2], m.tokens), true
		case !m.sse && f[2].IsObject(): // a whole message
			m.take(f[4])
			m.tokens, m.found = usage.Anthropic(f[2], pricing.Tokens{}), true
		}
	case Responses:
		r := f[3]
		if !m.sse {
			r = jsonscan.Parse(s, 0) // the response itself
		}
		rf := r.Fields("usage", "model")
		m.take(rf[1])
		if rf[0].IsObject() {
			m.tokens, m.reasoning = usage.Responses(rf[0])
			m.found = true
		}
	case Chat:
		m.take(f[4])
		if f[2].IsObject() {
			m.tokens, m.found = usage.Chat(f[2]), true
		}
	}
}

// take takes the model an answer names.
func (m *meter) take(v jsonscan.Value) {
	if s := v.Str(); s != "" {
		m.model = s
	}
}
