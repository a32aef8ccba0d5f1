// Package agenttest drives the real coding agents (Claude Code, Codex CLI)
// in tests: a scripted model server on 127.0.0.1 that speaks the streaming
// APIs they call and records every request, and helpers that install a
// pinned agent into a cache directory, run it headless in a temporary home,
// and find the transcript it wrote.
package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Turn is one scripted model reply: a tool call (Tool and Input), or, when
// Tool is empty, a final text answer.
type Turn struct {
	Tool  string         // the tool to call: Bash, Read (Claude Code), exec_command (Codex)
	Input map[string]any // its arguments
	// Namespace is the namespace of a Codex tool offered in one (an MCP
	// server's tools, mcp__SERVER): the call names it beside Tool.
	Namespace string
	Text      string // the answer when Tool is ""
}

// Server is a scripted model server. The n-th turn of the script answers a
// request that carries n tool results: the reply depends on what the
// request holds, not on how many requests came before, so retries and side
// requests do not shift the script. Past the script's end it answers "done".
type Server struct {
	URL    string // http://127.0.0.1:PORT
	script []Turn

	mu       sync.Mutex
	requests [][]byte
	srv      *http.Server
}

// NewServer starts a server on a free port of 127.0.0.1 that answers with
// the script. Close stops it.
func NewServer(script []Turn) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages", s.messages)
	mux.HandleFunc("/v1/responses", s.responses)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead || r.URL.Path == "/" {
			return // Claude Code checks that the server is up
		}
		http.NotFound(w, r)
	})
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// ToolUseID is the id of the n-th tool call (from 0) a Claude Code session
// gets, and CallID a Codex session's: as long as the agents' own, so that
// the archive keys an output by it (marker.Identifies).
func ToolUseID(n int) string { return fmt.Sprintf("toolu_e2e_%014d", n) }

// CallID is the id of the n-th call (from 0) a Codex session gets (see
// ToolUseID).
func CallID(n int) string { return fmt.Sprintf("call_e2e_%015d", n) }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns the bodies of the model requests received so far, in
// order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

// ToolResults returns the tool outputs that the last request sent to the
// model, in order: what the model saw of every call. Anthropic tool_result
// blocks (their text) and Responses function_call_output items.
func (s *Server) ToolResults() []string {
	reqs := s.Requests()
	if len(reqs) == 0 {
		return nil
	}
	var out []string
	body := gjson.ParseBytes(reqs[len(reqs)-1])
	body.Get("messages.#.content").ForEach(func(_, content gjson.Result) bool {
		content.ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "tool_result" {
				out = append(out, blockText(b.Get("content")))
			}
			return true
		})
		return true
	})
	body.Get("input").ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").Str == "function_call_output" {
			out = append(out, blockText(item.Get("output")))
		}
		return true
	})
	return out
}

// blockText is a content's text: a string, or the text of its blocks.
func blockText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var parts []string
	c.ForEach(func(_, b gjson.Result) bool {
		if t := b.Get("text"); t.Exists() {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// record keeps a request's body and returns the turn that answers it.
func (s *Server) record(w http.ResponseWriter, r *http.Request, results func(gjson.Result) int) (Turn, int, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil || !gjson.ValidBytes(body) {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return Turn{}, 0, false
	}
	s.mu.Lock()
	s.requests = append(s.requests, body)
	s.mu.Unlock()
	n := results(gjson.ParseBytes(body))
	if n < len(s.script) {
		return s.script[n], n, true
	}
	return Turn{Text: "done"}, n, true
}

// messages answers Anthropic's Messages API (Claude Code) with a stream.
func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	turn, n, ok := s.record(w, r, func(body gjson.Result) int {
		count := 0
		body.Get("messages.#.content").ForEach(func(_, content gjson.Result) bool {
			content.ForEach(func(_, b gjson.Result) bool {
				if b.Get("type").Str == "tool_result" {
					count++
				}
				return true
			})
			return true
		})
		return count
	})
	if !ok {
		return
	}
	sse := newSSE(w)
	usage := map[string]any{"input_tokens": 100, "output_tokens": 1}
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_e2e_%d", n), "type": "message", "role": "assistant", "model": "claude-e2e",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	stop := "end_turn"
	if turn.Tool != "" {
		stop = "tool_use"
		input, _ := json.Marshal(turn.Input)
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": ToolUseID(n), "name": turn.Tool, "input": map[string]any{}}})
		// The input arrives in pieces, as a real stream splits it.
		half := len(input) / 2
		for _, part := range []string{string(input[:half]), string(input[half:])} {
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": turn.Text}})
	}
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

// responses answers OpenAI's Responses API (Codex CLI) with a stream.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	turn, n, ok := s.record(w, r, func(body gjson.Result) int {
		count := 0
		body.Get("input").ForEach(func(_, item gjson.Result) bool {
			if item.Get("type").Str == "function_call_output" {
				count++
			}
			return true
		})
		return count
	})
	if !ok {
		return
	}
	sse := newSSE(w)
	id := fmt.Sprintf("resp_e2e_%d", n)
	sse.event("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": id, "object": "response", "status": "in_progress", "output": []any{}}})
	var item map[string]any
	if turn.Tool != "" {
		args, _ := json.Marshal(turn.Input)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_e2e_%02d", n), "call_id": CallID(n),
			"name": turn.Tool, "arguments": string(args), "status": "completed"}
		if turn.Namespace != "" {
			item["namespace"] = turn.Namespace
		}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_e2e_%02d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
	}
	sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "object": "response", "status": "completed",
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}}})
}

// sse writes Server-Sent Events.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}
