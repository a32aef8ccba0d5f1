// Package llmtest is a fake OpenAI-compatible chat completions server for
// tests: an httptest server on 127.0.0.1 that checks every request (path,
// method, headers, model, messages, temperature, the output cap's field)
// and answers as the test says: well, slowly, with 429 and Retry-After,
// with an error status, with empty content, cut at the cap
// (finish_reason length), by dropping the connection, or not at all.
//
// No test needs a network or a real model.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Path is where the server answers, under the base URL that URL gives.
const Path = "/v1/chat/completions"

// TB is the part of testing.TB the server uses: a bad request is a test
// error, and the server closes when the test ends.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Expect is what every request must carry.
type Expect struct {
	Model    string // the model; "" accepts any non-empty name
	Key      string // the bearer token; "" wants no Authorization header
	CapField string // max_tokens (the default) or max_completion_tokens
}

// Message is a message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is a request as the server read it.
type Request struct {
	N        int // its order of arrival, from 1
	Model    string
	Messages []Message
	Cap      int    // the value of the cap field
	Query    string // the URL's query, as sent
}

// Prompt is the content of the request's last message.
func (r Request) Prompt() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// Reply is how the server answers one request.
type Reply struct {
	Status     int    // HTTP status; 0 is 200
	RetryAfter string // the Retry-After header, if any
	Message    string // an error status's message
	// Content is the answer's text, FinishReason its finish_reason ("" is
	// "stop"). Reasoning goes in reasoning_content, where some servers put
	// a reasoning model's text, leaving content empty.
	Content, FinishReason, Reasoning string
	// ContentParts sends the content as an array of text parts.
	ContentParts bool
	Delay        time.Duration // wait before answering
	Hang         bool          // never answer: wait until the client gives up
	Drop         bool          // close the connection without an answer
	NoUsage      bool          // leave out the usage object
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give a client: http://127.0.0.1:PORT/v1.
	URL string

	t      TB
	want   Expect
	reply  func(Request) Reply
	srv    *httptest.Server
	closed chan struct{}

	n        atomic.Int64
	mu       sync.Mutex
	requests []Request
	inFlight int
	maxIn    int
}

// New starts a server that checks every request against want and answers
// with reply (Echo(20) when nil). It closes when the test ends.
func New(t TB, want Expect, reply func(Request) Reply) *Server {
	t.Helper()
	if want.CapField == "" {
		want.CapField = "max_tokens"
	}
	if reply == nil {
		reply = Echo(20)
	}
	s := &Server{t: t, want: want, reply: reply, closed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, ending the requests that hang.
func (s *Server) Close() {
	select {
	case <-s.closed:
		return
	default:
	}
	close(s.closed)
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns the requests read so far, well-formed ones only, in
// order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is how many requests arrived, bad ones included.
func (s *Server) Count() int { return int(s.n.Load()) }

// MaxInFlight is the most requests the server was handling at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxIn
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := int(s.n.Add(1))
	s.mu.Lock()
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	req, problem := s.check(r)
	if problem != "" {
		s.t.Errorf("fake LLM server: request %d: %s", n, problem)
		writeError(w, http.StatusBadRequest, problem)
		return
	}
	req.N, req.Query = n, r.URL.RawQuery
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	rep := s.reply(req)
	if rep.Delay > 0 || rep.Hang {
		var timeout <-chan time.Time
		if !rep.Hang {
			timer := time.NewTimer(rep.Delay)
			defer timer.Stop()
			timeout = timer.C
		}
		select {
		case <-timeout:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
	if rep.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		writeError(w, rep.Status, rep.Message)
		return
	}
	writeJSON(w, http.StatusOK, completion(req, rep))
}

// check reads a request and says what is wrong with it, if anything.
func (s *Server) check(r *http.Request) (Request, string) {
	var req Request
	switch {
	case r.Method != http.MethodPost:
		return req, "method " + r.Method + ", want POST"
	case r.URL.Path != Path:
		return req, "path " + r.URL.Path + ", want " + Path
	case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		return req, fmt.Sprintf("Content-Type %q, want application/json", r.Header.Get("Content-Type"))
	}
	auth := r.Header.Get("Authorization")
	switch {
	case s.want.Key == "" && auth != "":
		return req, "an Authorization header, and no key was set"
	case s.want.Key != "" && auth != "Bearer "+s.want.Key:
		return req, fmt.Sprintf("Authorization %q, want the bearer token of the key", auth)
	}
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return req, "body is not a JSON object: " + err.Error()
	}
	if err := json.Unmarshal(body["model"], &req.Model); err != nil || req.Model == "" {
		return req, "no model"
	}
	if s.want.Model != "" && req.Model != s.want.Model {
		return req, fmt.Sprintf("model %q, want %q", req.Model, s.want.Model)
	}
	if err := json.Unmarshal(body["messages"], &req.Messages); err != nil || len(req.Messages) == 0 {
		return req, "messages missing, empty or not an array of {role, content} with string content"
	}
	for i, m := range req.Messages {
		switch {
		case m.Role != "system" && m.Role != "user" && m.Role != "assistant":
			return req, fmt.Sprintf("message %d has role %q", i, m.Role)
		case strings.TrimSpace(m.Content) == "":
			return req, fmt.Sprintf("message %d is empty", i)
		}
	}
	if last := req.Messages[len(req.Messages)-1].Role; last != "user" {
		return req, "the last message is the " + last + "'s, want the user's"
	}
	if t := string(body["temperature"]); t != "0" && t != "0.0" {
		return req, "temperature " + t + ", want 0"
	}
	if st := string(body["stream"]); st != "" && st != "false" {
		return req, "stream " + st + ", want none or false"
	}
	other := "max_completion_tokens"
	if s.want.CapField == other {
		other = "max_tokens"
	}
	if _, ok := body[other]; ok {
		return req, other + " sent, want " + s.want.CapField
	}
	if err := json.Unmarshal(body[s.want.CapField], &req.Cap); err != nil || req.Cap <= 0 {
		return req, s.want.CapField + " missing or not a positive integer"
	}
	return req, ""
}

// completion is the answer's JSON.
func completion(req Request, rep Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	if rep.ContentParts {
		msg["content"] = []map[string]string{{"type": "text", "text": rep.Content}}
	}
	if rep.Reasoning != "" {
		msg["reasoning_content"] = rep.Reasoning
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	out := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-%d", req.N),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
	}
	if !rep.NoUsage {
		prompt := 0
		for _, m := range req.Messages {
			prompt += Tokens(m.Content)
		}
		done := Tokens(rep.Content + rep.Reasoning)
		out["usage"] = map[string]int{"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}
	}
	return out
}

// Tokens is the fake's token count of a text, which it reports as usage:
// its words.
func Tokens(s string) int { return len(strings.Fields(s)) }

func writeError(w http.ResponseWriter, status int, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "fake_error"}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// The answers tests ask for.

// Echo answers well: the first n words of the prompt (the last message),
// prefixed "Summary:". The same request gets the same answer.
func Echo(n int) func(Request) Reply {
	return func(r Request) Reply {
		words := strings.Fields(r.Prompt())
		return Reply{Content: "Summary: " + strings.Join(words[:min(n, len(words))], " ")}
	}
}

// Always answers every request with rep.
func Always(rep Reply) func(Request) Reply {
	return func(Request) Reply { return rep }
}

// First answers the first n requests with rep and the others with then.
func First(n int, rep Reply, then func(Request) Reply) func(Request) Reply {
	var seen atomic.Int64
	return func(r Request) Reply {
		if seen.Add(1) <= int64(n) {
			return rep
		}
		return then(r)
	}
}
