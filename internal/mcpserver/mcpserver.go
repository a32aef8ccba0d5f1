// Package mcpserver is ctx-recall's Model Context Protocol server: one
// tool, memory_query, that answers what ctx-recall answers (internal/recall)
// to an agent. It is a package of its own so that the MCP SDK, and the HTTP
// stack under it, is linked into ctx-recall alone.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/recall"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// ToolName is the MCP tool's name.
const ToolName = "memory_query"

// ToolDescription tells a model when to call memory_query. Markers of the
// ctx-* filters name it: "full output: ctx-recall ID (or memory_query
// id=ID)".
const ToolDescription = `Get back the full output of an earlier tool call whose result was shortened, or search the outputs of past tool calls.

Call it when a tool result in this conversation says its content is not shown, was cut, summarized or archived, and names an id (e.g. "[ctx-truncate] … full output: ctx-recall toolu_01AB (or memory_query id=toolu_01AB)"): pass that id to get the original output back exactly as the tool printed it, or id and range to get only some of its lines. Do this before re-running a command or re-reading a file only to see output you already had.

Without an id, it searches the archive of past tool executions and lists the matches with their ids, newest first, or best match first with query: query (words in the output or the command), path (calls that read, edited or listed a file), tool (a tool name or a kind such as read or shell), failed, since/until, session. Then call it again with an id to read one.`

// maxChars is the most output one answer carries: more would flood the
// model's context. The rest is had with range.
const maxChars = 40_000

// NewServer is the MCP server of ctx-recall --mcp: one tool, memory_query,
// over the archive at path. The archive is opened for each call, read-only,
// so that the server starts before anything is archived and sees what is
// archived while it runs.
func NewServer(path, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ctx-recall", Version: version}, &mcp.ServerOptions{
		Instructions: "memory_query gives back tool outputs that ctxkit's filters shortened in this conversation; the markers of shortened results name the id to ask for.",
	})
	mcp.AddTool(s, &mcp.Tool{Name: ToolName, Description: ToolDescription},
		func(ctx context.Context, _ *mcp.CallToolRequest, args recall.Args) (*mcp.CallToolResult, any, error) {
			// The SDK cancels ctx when the client cancels the request or
			// is gone; a search also stops at callTimeout.
			ctx, cancel := context.WithTimeout(ctx, callTimeout)
			defer cancel()
			text, err := answer(ctx, path, args)
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("the search took more than %v and was stopped: narrow it (fewer words, a tool, a path, since)", callTimeout)
			}
			if err != nil {
				// A tool error, which the model reads, not a protocol one.
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s
}

// Serve runs the MCP server on in and out until in ends, and every request
// read has been answered: ctx-recall --mcp.
func Serve(ctx context.Context, path, version string, in io.Reader, out io.Writer) error {
	err := NewServer(path, version).Run(ctx, &lineTransport{in: in, out: out})
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client is done
	}
	return err
}

// callTimeout bounds the time of one memory_query: an answer by id takes
// milliseconds, a search of a large archive a second at most.
var callTimeout = 10 * time.Second

// answer is memory_query's answer as text: an output, or a page of records
// as JSON.
func answer(ctx context.Context, path string, args recall.Args) (string, error) {
	q, lines, err := args.Check()
	if err != nil {
		return "", err
	}
	a, err := archive.OpenReadOnly(path)
	if err != nil {
		return "", err
	}
	defer a.Close()
	if q.ID != "" {
		rec, err := a.GetContext(ctx, q.ID, q.Session)
		if err != nil {
			return "", err
		}
		text, err := lines.Select(*rec.Output, rec.Lines)
		if err != nil {
			return "", err
		}
		return page(text, at(rec, lines)), nil
	}
	p, err := a.FindContext(ctx, q)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(p); err != nil {
		return "", err
	}
	return b.String(), nil
}

// position is where a page starts in an output, and what the page was
// asked for: for its note's next call.
type position struct {
	id        string
	line, col int // the line the page starts in (1-based), and the byte of that line it starts at (0-based)
	last      int // the last line asked for
	lines     int // the output's
}

// at is where the part of rec's output that l asks for starts.
func at(rec archive.Record, l recall.Lines) position {
	p := position{id: rec.ID, line: max(l.From, 1), last: rec.Lines, lines: rec.Lines}
	if l.From > 0 {
		p.last = min(l.To, rec.Lines)
	}
	before := recall.Lines{From: l.From, To: l.To}.Output(*rec.Output)[:l.Offset]
	p.line += strings.Count(before, "\n")
	p.col = len(before) - (strings.LastIndexByte(before, '\n') + 1)
	return p
}

// page cuts an output longer than maxChars, and ends it with a note that
// says what to call for the rest: at the end of a line, or, when no line
// ends in the page, inside one, at the start of a character, and the
// next call reads on from that byte (offset).
func page(text string, p position) string {
	if len(text) <= maxChars {
		return text
	}
	cut := strings.LastIndexByte(text[:maxChars], '\n') + 1
	if cut == 0 {
		cut = charStart(text, maxChars)
		end := strings.IndexByte(text, '\n')
		if end < 0 {
			end = len(text)
		}
		return fmt.Sprintf("%s\n[memory_query] bytes %s-%s of the %s of line %s shown; for more, call memory_query with id=%s range=%d,%d offset=%d.",
			text[:cut], textfmt.Int(p.col+1), textfmt.Int(p.col+cut), textfmt.Int(p.col+end), textfmt.Int(p.line), p.id, p.line, p.last, p.col+cut)
	}
	last := p.line + strings.Count(text[:cut], "\n") - 1
	from := ""
	if p.col > 0 {
		from = fmt.Sprintf(" (line %s from its byte %s)", textfmt.Int(p.line), textfmt.Int(p.col+1))
	}
	return fmt.Sprintf("%s[memory_query] lines %s-%s of %s shown%s; for more, call memory_query with id=%s range=%d,%d.",
		text[:cut], textfmt.Int(p.line), textfmt.Int(last), textfmt.Int(p.lines), from, p.id, last+1, p.last)
}

// charStart is where to cut s near n so that no character is split: n, or
// the start of the character that n is inside. Bytes that are not UTF-8
// are cut at n.
func charStart(s string, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}
