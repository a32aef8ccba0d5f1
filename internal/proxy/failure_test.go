package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// claudeCode is Claude Code's request body, which the policy changes.
func claudeCode(t testing.TB) request {
	return requestOf(t, filepath.Join(testutil.Root(t), "testdata", "requests", "claude-code-request.json"))
}

// TestUpstreamErrors: what the upstream answers reaches the client as it
// answered, status, headers and body, errors included; a compressed answer
// too, still compressed, whose usage the ledger reads.
func TestUpstreamErrors(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"id":"msg_1","type":"message","model":"claude-opus-4-6","usage":{"input_tokens":10,"cache_read_input_tokens":200,"output_tokens":5}}`))
	zw.Close()
	for _, c := range []struct {
		status int
		header map[string]string
		body   []byte
	}{
		{429, map[string]string{"Retry-After": "7", "Anthropic-Ratelimit-Requests-Remaining": "0", "Content-Type": "application/json"},
			[]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`)},
		{500, map[string]string{"Content-Type": "application/json"}, []byte(`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)},
		{529, map[string]string{"Content-Type": "application/json", "X-Should-Retry": "true"}, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
		{200, map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}, gz.Bytes()},
	} {
		up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
			for k, v := range c.header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(c.status)
			w.Write(c.body)
		})
		cfg := config(t, up)
		ledger := &syncBuffer{}
		cfg.Ledger = NewLedger(ledger, nil)
		proxyURL, logs := serve(t, cfg)
		r := claudeCode(t)
		req, _ := http.NewRequest(http.MethodPost, proxyURL+r.path, bytes.NewReader(r.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Encoding", "gzip") // set by hand: Go's client then leaves the answer compressed
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !bytes.Equal(got, c.body) {
			t.Errorf("%d: the client got %d %q", c.status, resp.StatusCode, got)
		}
		for k, v := range c.header {
			if resp.Header.Get(k) != v {
				t.Errorf("%d: header %s %q, want %q", c.status, k, resp.Header.Get(k), v)
			}
		}
		if n := len(up.got()); n != 1 {
			t.Errorf("%d: the upstream got %d requests", c.status, n)
		}
		logs.settle()
		es := ledger.entries(t)
		switch {
		case c.status != 200 && len(es) != 0:
			t.Errorf("%d: an error in the ledger: %+v", c.status, es)
		case c.status == 200 && (len(es) != 1 || es[0].Usage == nil || es[0].Usage.CacheRead != 200 || es[0].Model != "claude-opus-4-6"):
			t.Errorf("a compressed answer's usage: %+v", es)
		}
		for _, line := range logs.all() {
			t.Errorf("%d: logged %s", c.status, line)
		}
	}
}

// TestUnreachable: an upstream that cannot be reached gets the client a 502
// in its API's error shape, never an empty answer, and one line logged,
// without the request's query.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed, _ := url.Parse("http://" + ln.Addr().String())
	ln.Close()
	cfg := config(t, newUpstream(t, nil))
	cfg.Anthropic, cfg.OpenAI = closed, closed
	proxyURL, logs := serve(t, cfg)
	for _, c := range []struct{ path, body, errorPath string }{
		{"/v1/messages", string(claudeCode(t).body), "error.type"},
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "error.message"},
		{"/v1/models?key=SECRET", "", "error.message"}, // a gateway's key in the query: never logged
	} {
		method := http.MethodPost
		if c.body == "" {
			method = http.MethodGet
		}
		req, _ := http.NewRequest(method, proxyURL+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !gjson.ValidBytes(got) || !gjson.GetBytes(got, c.errorPath).Exists() ||
			!strings.Contains(string(got), "ctx-proxy could not reach the upstream") {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, got)
		}
	}
	logs.settle()
	if lines := logs.all(); len(lines) != 3 || !strings.Contains(lines[0], "could not be reached") || strings.Contains(strings.Join(lines, "\n"), "SECRET") {
		t.Errorf("logged %q", lines)
	}
}

// TestFailOpen: when the proxy's own step fails, the client's bytes go
// upstream as they came, one line is logged, and the upstream's answer
// reaches the client: a compressed body, a body that is not JSON, an
// archive that cannot be written, a summarizer that panics. A body the
// upstream refuses once compacted goes again as the client sent it.
func TestFailOpen(t *testing.T) {
	r := claudeCode(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(r.body)
	zw.Close()
	closedArchive, err := archive.Open(filepath.Join(t.TempDir(), "archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	closedArchive.Close()
	for _, c := range []struct {
		name    string
		body    []byte
		header  map[string]string
		set     func(*Config)
		refuse  bool // the upstream refuses a compacted body with a 400
		logged  string
		replies int
	}{
		{name: "compressed", body: gz.Bytes(), header: map[string]string{"Content-Encoding": "gzip"}, logged: "the body is compressed (gzip)", replies: 1},
		{name: "not JSON", body: []byte(`{"messages": [`), logged: "not compacted, sent as received", replies: 1},
		{name: "archive", body: r.body, set: func(c *Config) { c.Archive = closedArchive }, logged: "the archive:", replies: 1},
		{name: "panic", body: r.body, set: func(c *Config) {
			c.Options.Summarizer = func(string, func(*transcript.Result) string) summarize.Summarizer {
				panic("a summarizer's bug, quoting the body: SECRET")
			}
		}, logged: "compaction failed, sent as received: a panic at failure_test.go:", replies: 1},
		{name: "refused", body: r.body, refuse: true, logged: "the upstream refused the compacted request (400); sent again as received", replies: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := newUpstream(t, func(w http.ResponseWriter, req *http.Request) {
				body, _ := io.ReadAll(req.Body)
				if c.refuse && bytes.Contains(body, []byte("[ctx-compact]")) {
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: bad block"}}`)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"ok":true}`)
			})
			cfg := config(t, up)
			if c.set != nil {
				c.set(&cfg)
			}
			proxyURL, logs := serve(t, cfg)
			status, answer := post(t, proxyURL, r.path, c.body, c.header)
			if status != http.StatusOK || string(answer) != `{"ok":true}` {
				t.Errorf("the client got %d %s", status, answer)
			}
			got := up.got()
			if len(got) != c.replies || !bytes.Equal(got[len(got)-1].Body, c.body) {
				t.Fatalf("the upstream got %d requests, the last of %d bytes; want %d, the last the client's %d bytes", len(got), len(got[len(got)-1].Body), c.replies, len(c.body))
			}
			logs.settle()
			if lines := logs.all(); len(lines) != 1 || !strings.Contains(lines[0], c.logged) || strings.Contains(lines[0], "SECRET") {
				t.Errorf("logged %q, want one line with %q", lines, c.logged)
			}
		})
	}
}

// TestBodyLimit: a body over MaxBody goes upstream as it came, with its
// length known or not; one under it is compacted.
func TestBodyLimit(t *testing.T) {
	r := claudeCode(t)
	up := newUpstream(t, nil)
	cfg := config(t, up)
	cfg.MaxBody = int64(len(r.body) - 1)
	proxyURL, logs := serve(t, cfg)
	post(t, proxyURL, r.path, r.body, nil)
	req, _ := http.NewRequest(http.MethodPost, proxyURL+r.path, io.MultiReader(bytes.NewReader(r.body))) // no length: chunked
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	small := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	post(t, proxyURL, r.path, small, nil)
	got := up.got()
	if len(got) != 3 || !bytes.Equal(got[0].Body, r.body) || !bytes.Equal(got[1].Body, r.body) || !bytes.Equal(got[2].Body, small) {
		t.Errorf("the upstream got %d requests, not the bodies sent", len(got))
	}
	cfg.MaxBody = int64(len(r.body))
	proxyURL, _ = serve(t, cfg)
	post(t, proxyURL, r.path, r.body, nil)
	if last := up.last(t).Body; bytes.Equal(last, r.body) {
		t.Errorf("a body at the limit was not compacted")
	}
	logs.settle()
	for _, line := range logs.all() {
		t.Errorf("logged %s", line)
	}
}

// TestLogQuotesNoBody: a body the proxy cannot read is sent as it came and
// logged in one line that says what was wrong and where, never a byte of
// the body (an API key pasted into one would be on stderr); one that is
// JSON without a history goes through as it came, and nothing is logged.
func TestLogQuotesNoBody(t *testing.T) {
	up := newUpstream(t, nil)
	proxyURL, logs := serve(t, config(t, up))
	const secret = "sk-ant-api03-SECRETKEY"
	for _, c := range []struct {
		body, logged string
	}{
		{secret, "the body is not JSON (line 1, column 1)"},
		{`"` + secret + `"`, "the body is JSON, not a request with a history (line 1, column 1)"},
		{`{"messages": [ "` + secret, "the body is not JSON (line 1, column 39)"},
		{`{"messages":[{"role":"user","content":"x"}], "` + secret + `" }`, "the body is not JSON (line 1, column 71)"},
		{`{"transcript_path":"/home/u/` + secret + `","hook_event_name":"PreToolUse"}`, ""},
		{`{"model":"` + secret + `","messages":5}`, ""},
	} {
		if status, _ := post(t, proxyURL, "/v1/messages", []byte(c.body), nil); status != http.StatusOK {
			t.Errorf("%.40s: %d", c.body, status)
		}
		if got := up.last(t).Body; string(got) != c.body {
			t.Errorf("%.40s: the upstream got %q", c.body, got)
		}
	}
	logs.settle()
	lines := logs.all()
	want := []string{"the body is not JSON (line 1, column 1)", "the body is JSON, not a request with a history (line 1, column 1)",
		"the body is not JSON (line 1, column 39)", "the body is not JSON (line 1, column 71)"}
	if len(lines) != len(want) {
		t.Fatalf("logged %q, want %q", lines, want)
	}
	for i, line := range lines {
		if line != "POST /v1/messages: not compacted, sent as received: "+want[i] {
			t.Errorf("logged %q, want %q", line, want[i])
		}
	}
}
