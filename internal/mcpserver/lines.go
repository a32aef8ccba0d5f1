package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/sjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
)

// lineTransport is the server's stdio transport: newline-delimited JSON-RPC,
// one message a line, as the SDK's IOTransport speaks it, with these
// differences, which keep a bad client from costing a good one its
// answers. A line that is not a JSON-RPC message is answered with an error
// (-32700 when it is not JSON, -32600 otherwise, batches included: MCP has
// had none since 2025-06-18) and skipped, where the SDK's transport ends
// the session. A request's id comes back in its answer byte for byte
// (ids). And the end of the input waits for the answers to every request
// read before it, where the SDK's cancels the ones still running, unless
// the client is gone (goneWatch).
type lineTransport struct {
	in  io.Reader
	out io.Writer
}

// maxLine is the longest line read: a longer one is answered with an error
// and skipped, not held in memory.
const maxLine = mcp.DefaultMaxLineLength

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, lines: make(chan line), closed: make(chan struct{}), ids: newIDs()}
	go c.read(bufio.NewReader(t.in))
	return c, nil
}

// line is what the reading goroutine hands Read: a line, or why there are
// no more.
type line struct {
	text    []byte
	tooLong bool
	err     error
}

type lineConn struct {
	out     io.Writer
	writeMu sync.Mutex

	lines     chan line
	closed    chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex
	ids     *ids          // the requests read and not answered yet
	drained chan struct{} // closed when they are all answered, while the end of the input waits for it
}

// read reads lines for Read in a goroutine of its own, so that Close need
// not wait for a read of stdin, which cannot be interrupted.
func (c *lineConn) read(r *bufio.Reader) {
	for {
		var l line
		for {
			chunk, err := r.ReadSlice('\n')
			if !l.tooLong {
				if len(l.text)+len(chunk) > maxLine {
					l.tooLong, l.text = true, nil
				} else {
					l.text = append(l.text, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && len(l.text) == 0 && !l.tooLong {
				l.err = err
			}
			break
		}
		select {
		case c.lines <- l:
		case <-c.closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// Read returns the next message, answering the lines that are none.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case l = <-c.lines:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
		if l.err != nil {
			if err := c.answered(ctx); err != nil {
				return nil, err
			}
			return nil, l.err
		}
		if msg := c.message(ctx, l); msg != nil {
			return msg, nil
		}
	}
}

// message is a line's message, or nil when the line has been answered as
// bad or is blank.
func (c *lineConn) message(ctx context.Context, l line) jsonrpc.Message {
	text := bytes.TrimSpace(l.text)
	switch {
	case l.tooLong:
		c.refuse(ctx, nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: a line longer than %d bytes", maxLine))
		return nil
	case len(text) == 0:
		return nil
	case !json.Valid(text):
		c.refuse(ctx, nil, jsonrpc.CodeParseError, "parse error: not JSON (one JSON-RPC message a line)")
		return nil
	case text[0] == '[':
		c.refuse(ctx, nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported; send one message a line")
		return nil
	}
	return c.decode(ctx, text)
}

// decode reads a line of JSON as a message, a request with an id the SDK
// is to know it by (ids); nil when the line has been answered as bad.
func (c *lineConn) decode(ctx context.Context, text []byte) jsonrpc.Message {
	wire := requestID(text)
	if string(wire) == "null" {
		// JSON-RPC answers it with an error; MCP's requests have a string
		// or a number, and a notification no id at all.
		c.refuse(ctx, wire, jsonrpc.CodeInvalidRequest, "invalid request: the id is null; a request's id is a string or a number")
		return nil
	}
	decoded := text
	if wire != nil {
		// The SDK decodes a number through a float64, which some do not
		// fit (1e400): it decodes one of ours, and is given the id later.
		if decoded, _ = sjson.SetRawBytes(text, "id", []byte("0")); decoded == nil {
			decoded = text
		}
	}
	msg, err := jsonrpc.DecodeMessage(decoded)
	if err != nil {
		id := wire
		if id == nil {
			id = idOf(text)
		}
		c.refuse(ctx, id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg // an answer to a request of the server's, with the server's id
	}
	c.mu.Lock()
	fresh := true
	switch {
	case wire != nil:
		req.ID, fresh = c.ids.read(wire)
	case req.Method == "notifications/cancelled":
		req.Params = c.ids.cancelled(req.Params)
	}
	c.mu.Unlock()
	if !fresh {
		// The SDK would drop it without an answer.
		c.refuse(ctx, wire, jsonrpc.CodeInvalidRequest, "invalid request: the id of a request not answered yet")
		return nil
	}
	return msg
}

// requestID is the id of a request (a message with a method) as its
// bytes, when it is a string, a number or null; nil for any other message
// (a notification, an answer) and any other id (which DecodeMessage
// refuses).
func requestID(text []byte) json.RawMessage {
	f := jsonscan.Value{Raw: string(text)}.Fields("id", "method")
	if !f[1].Exists() || !f[0].Exists() {
		return nil
	}
	switch id := f[0].Raw; {
	case id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9' || id == "null":
		return json.RawMessage(id)
	}
	return nil
}

// idOf is the id of a message that could not be read, when it has one
// that can be: a string or a number.
func idOf(text []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(text, &m) != nil || len(m.ID) == 0 || (m.ID[0] != '"' && m.ID[0] != '-' && (m.ID[0] < '0' || m.ID[0] > '9')) {
		return nil
	}
	return m.ID
}

// refuse answers a bad line with a JSON-RPC error, with the line's id or
// null when it has none that can be read.
func (c *lineConn) refuse(ctx context.Context, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, message}})
	if err == nil {
		// A client that cannot be written to will show at the next
		// answer, where the SDK sees the error.
		_ = c.write(ctx, data)
	}
}

// answered waits until every request read has been answered, or the
// client is gone: then it is io.EOF, on which the SDK cancels the
// requests still running.
func (c *lineConn) answered(ctx context.Context) error {
	c.mu.Lock()
	if c.ids.pending() == 0 {
		c.mu.Unlock()
		return nil
	}
	c.drained = make(chan struct{})
	drained := c.drained
	c.mu.Unlock()
	stop := make(chan struct{})
	defer close(stop)
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return io.EOF
	case <-goneWatch(c.out, stop):
		return io.EOF
	}
}

// Write writes a message on a line of its own; an answer with the id of
// its request as the client sent it.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	resp, isAnswer := msg.(*jsonrpc.Response)
	if isAnswer {
		c.mu.Lock()
		wire := c.ids.wire(resp.ID)
		c.mu.Unlock()
		if wire != nil {
			if data, err = sjson.SetRawBytes(data, "id", wire); err != nil {
				return fmt.Errorf("encoding a message: %w", err)
			}
		}
	}
	err = c.write(ctx, data)
	if isAnswer {
		c.mu.Lock()
		c.ids.answered(resp.ID)
		if c.ids.pending() == 0 && c.drained != nil {
			close(c.drained)
			c.drained = nil
		}
		c.mu.Unlock()
	}
	return err
}

func (c *lineConn) write(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
