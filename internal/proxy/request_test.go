package proxy

import (
	"bytes"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestRequestBodies sends every request body of testdata/requests (Claude
// Code's and Codex's own, and documented ones with server tools, signed
// thinking, cache_control, list-form results and images), and a Chat
// Completions body, through the proxy: the upstream receives the body
// compacted as its golden file shows, and byte for byte the client's
// outside the contents of the results the policy replaced; the headers
// arrive as the client sent them, its keys too, and the path with its
// query; the answer comes back as the upstream gave it.
func TestRequestBodies(t *testing.T) {
	for _, r := range requests(t) {
		t.Run(r.name, func(t *testing.T) {
			up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Request-Id", "req_upstream_1")
				w.Write([]byte(`{"id":"msg_1","usage":{"input_tokens":1,"output_tokens":1}}`))
			})
			proxyURL, logs := serve(t, config(t, up))
			status, answer := post(t, proxyURL, r.path, r.body, r.header)
			if status != http.StatusOK || string(answer) != `{"id":"msg_1","usage":{"input_tokens":1,"output_tokens":1}}` {
				t.Errorf("the answer: %d %s", status, answer)
			}
			got := up.last(t)
			testutil.Golden(t, filepath.Join("testdata", r.name+".sent"), got.Body)
			if n := spliceBack(t, r.api, r.body, got.Body); n == 0 {
				t.Errorf("nothing replaced: the body does not test the policy")
			}
			if got.URI != r.path {
				t.Errorf("the upstream got %s, want %s", got.URI, r.path)
			}
			for k, v := range r.header {
				if got.Header.Get(k) != v {
					t.Errorf("header %s: %q, want %q", k, got.Header.Get(k), v)
				}
			}
			if got.Header.Get("Content-Length") != "" && got.Header.Get("Content-Length") != strconv.Itoa(len(got.Body)) {
				t.Errorf("Content-Length %s for %d bytes", got.Header.Get("Content-Length"), len(got.Body))
			}
			logs.settle()
			for _, line := range logs.all() {
				t.Errorf("logged: %s", line)
			}
		})
	}
}

// TestRequestPassThrough: what the proxy does not compact goes through as
// it came, both ways: count_tokens, a GET, a path of no known API, a body
// of no history; the hop-by-hop headers stop at the proxy.
func TestRequestPassThrough(t *testing.T) {
	body := requestOf(t, filepath.Join(testutil.Root(t), "testdata", "requests", "claude-code-request.json")).body // the policy changes it on /v1/messages
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte(`{"echo":` + strconv.Itoa(len(r.Header.Values("X-Api-Key"))) + `}`))
	})
	proxyURL, _ := serve(t, config(t, up))
	for _, c := range []struct {
		method, path string
		body         []byte
	}{
		{http.MethodPost, "/v1/messages/count_tokens?beta=true", body},
		{http.MethodGet, "/v1/models?limit=5", nil},
		{http.MethodPost, "/v1/embeddings", []byte(`{"input":"some text","model":"m"}`)},
		{http.MethodPost, "/v1/responses", []byte(`{"model":"m","input":"a prompt, no history"}`)},
	} {
		req, err := http.NewRequest(c.method, proxyURL+c.path, bytes.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Api-Key", "sk-ant-test-secret")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connection", "keep-alive, X-Hop")
		req.Header.Set("X-Hop", "hop")
		req.Header.Set("Keep-Alive", "timeout=5")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var answer bytes.Buffer
		answer.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot || answer.String() != `{"echo":1}` || resp.Header.Get("X-Upstream") != "yes" {
			t.Errorf("%s %s: answer %d %q %v", c.method, c.path, resp.StatusCode, answer.String(), resp.Header)
		}
		got := up.last(t)
		if got.Method != c.method || got.URI != c.path || !bytes.Equal(got.Body, c.body) {
			t.Errorf("%s %s: the upstream got %s %s and %d bytes, want the %d sent", c.method, c.path, got.Method, got.URI, len(got.Body), len(c.body))
		}
		if got.Header.Get("X-Hop") != "" || got.Header.Get("Keep-Alive") != "" {
			t.Errorf("%s: hop-by-hop headers passed on: %v", c.path, got.Header)
		}
		if got.Header.Get("X-Api-Key") != "sk-ant-test-secret" {
			t.Errorf("%s: the key did not arrive", c.path)
		}
	}
}

// TestTarget: the upstream URL is the base with the request's path, a base
// ending in /v1 taking a path's /v1 once, the query kept as sent.
func TestTarget(t *testing.T) {
	for _, c := range []struct{ base, path, want string }{
		{"https://api.anthropic.com", "/v1/messages?beta=true", "https://api.anthropic.com/v1/messages?beta=true"},
		{"https://api.openai.com/v1", "/v1/responses", "https://api.openai.com/v1/responses"},
		{"https://gw.example.com/openai/", "/v1/chat/completions", "https://gw.example.com/openai/v1/chat/completions"},
		{"http://127.0.0.1:9/api", "/chat/completions", "http://127.0.0.1:9/api/chat/completions"},
		{"https://gw.example.com/a%2Fb", "/v1/x%2Fy?q=%20", "https://gw.example.com/a%2Fb/v1/x%2Fy?q=%20"},
	} {
		base, err := url.Parse(c.base)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1"+c.path, nil)
		if got := target(base, req).String(); got != c.want {
			t.Errorf("%s + %s = %s, want %s", c.base, c.path, got, c.want)
		}
	}
}
