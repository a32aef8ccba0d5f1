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
		func(_ context.Context, _ *mcp.CallToolRequest, args recall.Args) (*mcp.CallToolResult, any, error) {
			text, err := answer(path, args)
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

// answer is memory_query's answer as text: an output, or a page of records
// as JSON.
func answer(path string, args recall.Args) (string, error) {
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
		rec, err := a.Get(q.ID, q.Session)
		if err != nil {
			return "", err
		}
		return page(lines.Output(*rec.Output), rec.ID, max(lines.From, 1), rec.Lines), nil
	}
	p, err := a.Find(q)
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

// page cuts an output longer than maxChars at a line boundary, and says
// how to ask for the next lines. first is the number of its first line in
// the whole output, which has lines lines.
func page(text, id string, first, lines int) string {
	if len(text) <= maxChars {
		return text
	}
	cut := strings.LastIndexByte(text[:maxChars], '\n') + 1
	if cut == 0 {
		// One huge line: cut inside it, at the start of a character.
		for cut = maxChars; !utf8.RuneStart(text[cut]); cut-- {
		}
		return fmt.Sprintf("%s\n[memory_query] the first %s of %s bytes of one line shown; the line is too long to show whole.",
			text[:cut], textfmt.Int(cut), textfmt.Int(len(text)))
	}
	shown := strings.Count(text[:cut], "\n")
	last := first + shown - 1
	return fmt.Sprintf("%s[memory_query] lines %s-%s of %s shown; for more, call memory_query with id=%s range=%d,%d.",
		text[:cut], textfmt.Int(first), textfmt.Int(last), textfmt.Int(lines), id, last+1, min(last+shown, lines))
}
