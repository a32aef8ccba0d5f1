package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// received is a request as the upstream received it.
type received struct {
	Method, URI string
	Header      http.Header
	Body        []byte
}

// upstream is a model API on 127.0.0.1 that records every request as it
// receives it and answers with its handler (a 200 with "{}" when nil).
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
}

func newUpstream(t testing.TB, answer http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("upstream: reading the body: %v", err)
		}
		u.mu.Lock()
		u.requests = append(u.requests, received{r.Method, r.RequestURI, r.Header.Clone(), body})
		u.mu.Unlock()
		if answer == nil {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		answer(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// got returns the requests received so far.
func (u *upstream) got() []received {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]received(nil), u.requests...)
}

// last is the last request received.
func (u *upstream) last(t testing.TB) received {
	t.Helper()
	rs := u.got()
	if len(rs) == 0 {
		t.Fatal("the upstream received nothing")
	}
	return rs[len(rs)-1]
}

// logLines collects what a proxy logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
	srv   *httptest.Server
}

// settle stops the proxy once the requests it is serving are done: it
// writes the ledger and logs after the client has its answer.
func (l *logLines) settle() { l.srv.Close() }

func (l *logLines) log(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func counter(t testing.TB) tokens.Counter {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	return ctr
}

// config points a proxy at up for both APIs, with ctx-compact's defaults.
func config(t testing.TB, up *upstream) Config {
	t.Helper()
	base, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctr := counter(t)
	return Config{Anthropic: base, OpenAI: base, Counter: ctr, Options: compact.Defaults(ctr)}
}

// serve starts a proxy with cfg on 127.0.0.1, and returns its URL and what
// it logs.
func serve(t testing.TB, cfg Config) (string, *logLines) {
	t.Helper()
	logs := &logLines{}
	cfg.Log = logs.log
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(p)
	srv.Config = p.Server()
	srv.Start()
	t.Cleanup(srv.Close)
	logs.srv = srv
	return srv.URL, logs
}

// post sends body to the proxy at path with the headers an agent sends,
// and returns the answer's status and body.
func post(t testing.TB, proxyURL, path string, body []byte, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, proxyURL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// request is a request body of testdata/requests, with the path its API
// takes and the headers its agent sends.
type request struct {
	name   string
	body   []byte
	api    API
	path   string
	header map[string]string
}

func requests(t testing.TB) []request {
	var out []request
	for _, path := range testutil.Requests(t) {
		out = append(out, requestOf(t, path))
	}
	return out
}

func requestOf(t testing.TB, path string) request {
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := request{name: filepath.Base(path), body: body}
	switch tr, err := transcript.Parse(body, transcript.Options{}); {
	case err != nil:
		t.Fatal(err)
	case tr.Format == transcript.Anthropic:
		r.api, r.path = Messages, "/v1/messages?beta=true"
		r.header = map[string]string{"X-Api-Key": "sk-ant-test-secret", "Anthropic-Version": "2023-06-01",
			"Anthropic-Beta": "interleaved-thinking-2025-05-14"}
	case tr.Format == transcript.OpenAI:
		r.api, r.path = Chat, "/v1/chat/completions"
		r.header = map[string]string{"Authorization": "Bearer sk-test-secret"}
	default:
		r.api, r.path = Responses, "/v1/responses"
		r.header = map[string]string{"Authorization": "Bearer sk-test-secret", "Session-Id": "s-1"}
	}
	return r
}

// contents are the values of a body that the proxy may change, by their
// path: each tool result's content, and each call's arguments (an edit's
// may be stubbed). Read with gjson, apart from the transcript package.
func contents(t testing.TB, api API, body []byte) map[string]gjson.Result {
	t.Helper()
	if !gjson.ValidBytes(body) {
		t.Fatalf("not JSON: %.200s", body)
	}
	out := map[string]gjson.Result{}
	root := gjson.ParseBytes(body)
	add := func(path string) {
		if v := root.Get(path); v.Exists() {
			out[path] = v
		}
	}
	switch api {
	case Messages:
		root.Get("messages").ForEach(func(i, m gjson.Result) bool {
			m.Get("content").ForEach(func(j, b gjson.Result) bool {
				at := "messages." + i.String() + ".content." + j.String()
				switch b.Get("type").Str {
				case "tool_result":
					add(at + ".content")
				case "tool_use":
					add(at + ".input")
				}
				return true
			})
			return true
		})
	case Chat:
		root.Get("messages").ForEach(func(i, m gjson.Result) bool {
			at := "messages." + i.String()
			if m.Get("role").Str == "tool" {
				add(at + ".content")
			}
			m.Get("tool_calls").ForEach(func(j, _ gjson.Result) bool {
				add(at + ".tool_calls." + j.String() + ".function.arguments")
				return true
			})
			return true
		})
	case Responses:
		root.Get("input").ForEach(func(i, item gjson.Result) bool {
			at := "input." + i.String()
			switch typ := item.Get("type").Str; {
			case strings.HasSuffix(typ, "_output"):
				add(at + ".output")
			case typ == "function_call":
				add(at + ".arguments")
			}
			return true
		})
	}
	return out
}

// spliceBack checks that sent is original but for the contents of tool
// results and calls' arguments: putting the original's back where sent
// has others gives the original, byte for byte. It returns how many
// contents differ.
func spliceBack(t testing.TB, api API, original, sent []byte) int {
	t.Helper()
	before, after := contents(t, api, original), contents(t, api, sent)
	if len(before) != len(after) {
		t.Fatalf("%d results and arguments sent, %d received", len(after), len(before))
	}
	type swap struct {
		at, end int
		with    string
	}
	var swaps []swap
	for path, b := range before {
		a, ok := after[path]
		if !ok {
			t.Fatalf("%s is not where it was", path)
		}
		if a.Raw != b.Raw {
			swaps = append(swaps, swap{a.Index, a.Index + len(a.Raw), b.Raw})
		}
	}
	restored := append([]byte(nil), sent...)
	for len(swaps) > 0 { // from the end, so that the offsets before stay true
		last := 0
		for i, s := range swaps {
			if s.at > swaps[last].at {
				last = i
			}
		}
		s := swaps[last]
		restored = append(restored[:s.at:s.at], append([]byte(s.with), restored[s.end:]...)...)
		swaps = append(swaps[:last], swaps[last+1:]...)
	}
	if !bytes.Equal(restored, original) {
		i := 0
		for i < len(restored) && i < len(original) && restored[i] == original[i] {
			i++
		}
		t.Fatalf("outside the replaced contents the body changed, first at byte %d:\nsent     %.120q\noriginal %.120q", i, restored[i:], original[i:])
	}
	n := 0
	for path, b := range before {
		if after[path].Raw != b.Raw {
			n++
		}
	}
	return n
}
