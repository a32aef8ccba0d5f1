package llm

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/llmtest"
)

var ask = Request{Version: "test/1", Messages: []Message{
	{Role: "system", Content: "You summarize tool output."},
	{Role: "user", Content: "Tool: Bash\nResult:\nok  \texample.com/app\t0.01s"},
}}

// client returns a client of srv with cfg's bounds (Defaults where zero),
// whose waits between retries are recorded instead of slept.
func client(t *testing.T, srv *llmtest.Server, cfg Config) (*Client, *[]time.Duration) {
	t.Helper()
	d := Defaults()
	cfg.URL = srv.URL
	if cfg.Model == "" {
		cfg.Model = "small-model"
	}
	if cfg.CapField == "" {
		cfg.CapField = d.CapField
	}
	if cfg.Cap == 0 {
		cfg.Cap = d.Cap
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = d.Concurrency
	}
	if cfg.MaxRetryWait == 0 {
		cfg.MaxRetryWait = d.MaxRetryWait
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return c, &waits
}

// TestAnswer: a good answer comes back with the usage the server reported,
// and the fake checked the request (model, key, cap field, temperature).
func TestAnswer(t *testing.T) {
	for _, field := range []string{MaxTokens, MaxCompletionTokens} {
		t.Run(field, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Expect{Model: "small-model", Key: "sk-test", CapField: field}, nil)
			c, _ := client(t, srv, Config{Key: "sk-test", CapField: field, Cap: 99})
			resp, err := c.Complete(context.Background(), ask)
			if err != nil {
				t.Fatal(err)
			}
			want := "Summary: Tool: Bash Result: ok example.com/app 0.01s"
			if resp.Content != want || resp.Cached {
				t.Errorf("answer %q (cached %v), want %q", resp.Content, resp.Cached, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Cap != 99 || len(reqs[0].Messages) != 2 || reqs[0].Messages[0].Role != "system" {
				t.Fatalf("requests %+v", reqs)
			}
			prompt := llmtest.Tokens(ask.Messages[0].Content) + llmtest.Tokens(ask.Messages[1].Content)
			if resp.Usage != (Usage{prompt, llmtest.Tokens(want)}) {
				t.Errorf("usage %+v, want %d prompt and %d completion tokens", resp.Usage, prompt, llmtest.Tokens(want))
			}
			st := c.Stats()
			if st.Requests != 1 || st.Answers != 1 || st.Failures != 0 || st.Usage != resp.Usage {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestNoKey: without a key no Authorization header is sent (the fake fails
// the test if one is).
func TestNoKey(t *testing.T) {
	srv := llmtest.New(t, llmtest.Expect{}, nil)
	c, _ := client(t, srv, Config{})
	if _, err := c.Complete(context.Background(), ask); err != nil {
		t.Fatal(err)
	}
}

// TestContent: the shapes an answer's content comes in.
func TestContent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
		want  string
	}{
		{"string", llmtest.Reply{Content: "Ran the tests: all passed."}, "Ran the tests: all passed."},
		{"parts", llmtest.Reply{Content: "Read main.go.", ContentParts: true}, "Read main.go."},
		{"thinking stripped", llmtest.Reply{Content: "<think>\nThe user wants…\n</think>\n\nListed 3 files."}, "\n\nListed 3 files."},
		{"no usage", llmtest.Reply{Content: "ok", NoUsage: true}, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Expect{}, llmtest.Always(tc.reply))
			c, _ := client(t, srv, Config{})
			resp, err := c.Complete(context.Background(), ask)
			if err != nil || resp.Content != tc.want {
				t.Errorf("got %q, %v; want %q", resp.Content, err, tc.want)
			}
		})
	}
}

// TestFailures: each way a server can fail, the failure it gives, how many
// requests it took and the waits between them.
func TestFailures(t *testing.T) {
	good := llmtest.Echo(5)
	for _, tc := range []struct {
		name     string
		reply    func(llmtest.Request) llmtest.Reply
		timeout  time.Duration
		want     Failure // "" for an answer
		reason   string
		requests int
		waits    []time.Duration
	}{
		{name: "500 retried, then an answer", reply: llmtest.First(1, llmtest.Reply{Status: 500}, good),
			requests: 2, waits: []time.Duration{500 * time.Millisecond}},
		{name: "500 every time", reply: llmtest.Always(llmtest.Reply{Status: 500, Message: "boom"}),
			want: Status, reason: "status 500", requests: 3, waits: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "503 with Retry-After", reply: llmtest.First(2, llmtest.Reply{Status: 503, RetryAfter: "2"}, good),
			requests: 3, waits: []time.Duration{2 * time.Second, 2 * time.Second}},
		{name: "429 with Retry-After, then an answer", reply: llmtest.First(1, llmtest.Reply{Status: 429, RetryAfter: "7"}, good),
			requests: 2, waits: []time.Duration{7 * time.Second}},
		{name: "429 asking to wait too long", reply: llmtest.Always(llmtest.Reply{Status: 429, RetryAfter: "3600"}),
			want: Status, reason: "status 429", requests: 1},
		{name: "429 without Retry-After", reply: llmtest.Always(llmtest.Reply{Status: 429}),
			want: Status, reason: "status 429", requests: 3, waits: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "404 not retried", reply: llmtest.Always(llmtest.Reply{Status: 404, Message: "model not found"}),
			want: Status, reason: "status 404", requests: 1},
		{name: "empty content", reply: llmtest.Always(llmtest.Reply{Content: ""}), want: Empty, reason: "empty", requests: 1},
		{name: "text in reasoning_content only", reply: llmtest.Always(llmtest.Reply{Reasoning: "Summary: ran go test"}),
			want: Empty, reason: "empty", requests: 1},
		{name: "thinking never ends", reply: llmtest.Always(llmtest.Reply{Content: "<think>hmm"}), want: Empty, reason: "empty", requests: 1},
		{name: "finish_reason length", reply: llmtest.Always(llmtest.Reply{Content: "The output shows", FinishReason: "length"}),
			want: Length, reason: "length", requests: 1},
		{name: "connection dropped", reply: llmtest.Always(llmtest.Reply{Drop: true}),
			want: Connection, reason: "connection", requests: 3, waits: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "dropped once, then an answer", reply: llmtest.First(1, llmtest.Reply{Drop: true}, good),
			requests: 2, waits: []time.Duration{500 * time.Millisecond}},
		{name: "no answer at all", reply: llmtest.Always(llmtest.Reply{Hang: true}), timeout: 50 * time.Millisecond,
			want: Timeout, reason: "timeout", requests: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Expect{}, tc.reply)
			c, waits := client(t, srv, Config{Retries: 2, Timeout: tc.timeout})
			resp, err := c.Complete(context.Background(), ask)
			var e *Error
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case tc.want == "" && resp.Content == "":
				t.Fatalf("no answer")
			case tc.want != "" && (!errors.As(err, &e) || e.Failure != tc.want):
				t.Fatalf("got %#v (%v), want a %s failure", err, err, tc.want)
			case tc.want != "" && Reason(err) != tc.reason:
				t.Errorf("reason %q, want %q", Reason(err), tc.reason)
			}
			if got := srv.Count(); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if st := c.Stats(); st.Requests != tc.requests || st.Retries != tc.requests-1 {
				t.Errorf("stats %+v, want %d requests", st, tc.requests)
			}
			if !slices.Equal(*waits, tc.waits) {
				t.Errorf("waited %v, want %v", *waits, tc.waits)
			}
		})
	}
}

// TestStatusMessage: the server's error message is in the error.
func TestStatusMessage(t *testing.T) {
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Status: 404, Message: "model \"x\" not found, try pulling it first"}))
	c, _ := client(t, srv, Config{})
	_, err := c.Complete(context.Background(), ask)
	if err == nil || !strings.Contains(err.Error(), `status 404: model "x" not found, try pulling it first`) {
		t.Errorf("error %v", err)
	}
}

// TestGiveUp: after GiveUpAfter calls in a row that timed out, the client
// sends nothing more and fails at once, saying why.
func TestGiveUp(t *testing.T) {
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Hang: true}))
	c, _ := client(t, srv, Config{Timeout: 20 * time.Millisecond, GiveUpAfter: 2})
	for i := range 5 {
		_, err := c.Complete(context.Background(), ask)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("call %d: %v", i, err)
		}
		if want := map[bool]Failure{true: Timeout, false: GaveUp}[i < 2]; e.Failure != want {
			t.Errorf("call %d: %s, want %s", i, e.Failure, want)
		}
		if Reason(err) != "timeout" {
			t.Errorf("call %d: reason %q", i, Reason(err))
		}
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests, want 2", srv.Count())
	}
}

// TestGiveUpDuringRetry: a call whose retry finds the server taken to be
// down (by another call's failures) ends with its own failure, saying it was
// not retried, without repeating the other call's error.
func TestGiveUpDuringRetry(t *testing.T) {
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Drop: true}))
	c, _ := client(t, srv, Config{GiveUpAfter: 1, Retries: 2})
	c.sleep = func(context.Context, time.Duration) error {
		c.mu.Lock()
		c.down = &Error{Failure: Connection, Attempts: 3, Err: errors.New("another call's error")}
		c.mu.Unlock()
		return nil
	}
	_, err := c.Complete(context.Background(), ask)
	if Reason(err) != "connection" || strings.Contains(err.Error(), "another call's error") ||
		!strings.HasSuffix(err.Error(), "; not retried: the server is not answering") {
		t.Errorf("got %q (%s)", err, Reason(err))
	}
	if srv.Count() != 1 {
		t.Errorf("%d requests, want 1", srv.Count())
	}
}

// TestGiveUpResets: a call the server answers, even with an error, ends a
// run of calls that could not reach it.
func TestGiveUpResets(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := llmtest.New(t, llmtest.Expect{}, func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n%2 == 1 {
			return llmtest.Reply{Drop: true}
		}
		return llmtest.Reply{Status: 400}
	})
	c, _ := client(t, srv, Config{GiveUpAfter: 2})
	for i := range 5 {
		_, err := c.Complete(context.Background(), ask)
		if want := map[bool]string{true: "connection", false: "status 400"}[i%2 == 0]; Reason(err) != want {
			t.Fatalf("call %d: reason %q (%v), want %s", i, Reason(err), err, want)
		}
	}
}

// TestConcurrency: no more than Concurrency requests are in flight, and
// that many are.
func TestConcurrency(t *testing.T) {
	const limit, calls = 3, 12
	full := make(chan struct{})
	var mu sync.Mutex
	arrived := 0
	srv := llmtest.New(t, llmtest.Expect{}, func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		arrived++
		if arrived == limit {
			close(full)
		}
		mu.Unlock()
		// Hold every request until limit are in flight together. A client
		// that allowed fewer would never get there: the guard ends the wait.
		select {
		case <-full:
		case <-time.After(10 * time.Second):
		}
		return llmtest.Echo(3)(r)
	})
	c, _ := client(t, srv, Config{Concurrency: limit})
	var wg sync.WaitGroup
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), ask); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := srv.MaxInFlight(); got != limit {
		t.Errorf("at most %d requests in flight, want %d", got, limit)
	}
	if srv.Count() != calls {
		t.Errorf("%d requests, want %d", srv.Count(), calls)
	}
}

// TestMaxCalls: no more requests than MaxCalls, retries included; a retry
// the limit stops gives the failure that needed it.
func TestMaxCalls(t *testing.T) {
	srv := llmtest.New(t, llmtest.Expect{}, nil)
	c, _ := client(t, srv, Config{MaxCalls: 3})
	for i := range 5 {
		_, err := c.Complete(context.Background(), ask)
		if i < 3 && err != nil || i >= 3 && Reason(err) != "max_calls" {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if srv.Count() != 3 {
		t.Errorf("%d requests, want 3", srv.Count())
	}

	srv = llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Status: 502}))
	c, _ = client(t, srv, Config{MaxCalls: 2, Retries: 5})
	_, err := c.Complete(context.Background(), ask)
	if Reason(err) != "status 502" || !strings.Contains(err.Error(), "not retried: max_calls") {
		t.Errorf("error %v", err)
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests, want 2", srv.Count())
	}
}

// TestCanceled: a call whose context is done fails as canceled.
func TestCanceled(t *testing.T) {
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Hang: true}))
	c, _ := client(t, srv, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Count() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Complete(ctx, ask)
	if Reason(err) != "canceled" {
		t.Errorf("error %v", err)
	}
}

// TestCache: a second client on the same cache file sends no request; a
// new prompt version, another model or another prompt miss.
func TestCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "llm.jsonl")
	srv := llmtest.New(t, llmtest.Expect{}, nil)
	run := func(model, version string, msg string) Response {
		t.Helper()
		cache, err := OpenFileCache(path)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close()
		c, _ := client(t, srv, Config{Model: model, Cache: cache})
		req := Request{Version: version, Messages: []Message{{Role: "user", Content: msg}}}
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if st := c.Stats(); st.CacheHits+st.Requests != 1 {
			t.Errorf("stats %+v", st)
		}
		return resp
	}
	first := run("m1", "v1", "Tool: Read")
	if first.Cached || srv.Count() != 1 {
		t.Fatalf("first run: cached %v, %d requests", first.Cached, srv.Count())
	}
	again := run("m1", "v1", "Tool: Read")
	if !again.Cached || again.Content != first.Content || srv.Count() != 1 {
		t.Errorf("second run: %+v, %d requests", again, srv.Count())
	}
	for i, k := range [][3]string{{"m2", "v1", "Tool: Read"}, {"m1", "v2", "Tool: Read"}, {"m1", "v1", "Tool: Grep"}} {
		if r := run(k[0], k[1], k[2]); r.Cached {
			t.Errorf("key %d %v: a cache hit", i, k)
		}
	}
	if srv.Count() != 4 {
		t.Errorf("%d requests, want 4", srv.Count())
	}

	// A torn line (a run stopped mid-write) is skipped; the others are read.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"model":"m1","version":"v1","ha`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r := run("m1", "v1", "Tool: Read"); !r.Cached {
		t.Error("a torn line lost the cache")
	}
}

// TestFailuresNotCached: only good answers are kept.
func TestFailuresNotCached(t *testing.T) {
	path := filepath.Join(t.TempDir(), "llm.jsonl")
	cache, err := OpenFileCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.First(1, llmtest.Reply{Content: ""}, llmtest.Echo(2)))
	c, _ := client(t, srv, Config{Cache: cache})
	if _, err := c.Complete(context.Background(), ask); Reason(err) != "empty" {
		t.Fatalf("first: %v", err)
	}
	if r, err := c.Complete(context.Background(), ask); err != nil || r.Cached {
		t.Fatalf("second: %+v, %v", r, err)
	}
	if r, err := c.Complete(context.Background(), ask); err != nil || !r.Cached {
		t.Fatalf("third: %+v, %v", r, err)
	}
	if st := c.Stats(); st.Requests != 2 || st.CacheHits != 1 || st.Failures != 1 || st.Answers != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestCacheUnwritable: an answer the cache cannot keep is still an answer,
// and the client says why it was not kept.
func TestCacheUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	cache, err := OpenFileCache(filepath.Join(dir, "llm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Its directory cannot be made: a file is where it would be.
	if err := os.WriteFile(dir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Expect{}, nil)
	c, _ := client(t, srv, Config{Cache: cache})
	if _, err := c.Complete(context.Background(), ask); err != nil {
		t.Fatal(err)
	}
	if c.CacheError() == nil {
		t.Error("no cache error")
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
		date bool
		ok   bool
	}{
		{"3", 3 * time.Second, false, true},
		{" 0 ", 0, false, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true, true},
		{"", 0, false, false},
		{"-1", 0, false, false},
		{"soon", 0, false, false},
	} {
		got, ok := retryAfter(tc.h, now)
		if got.d != tc.want || !got.until.IsZero() != tc.date || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %+v, %v; want %v (a date: %v), %v", tc.h, got, ok, tc.want, tc.date, tc.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		if got := backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestNewChecks(t *testing.T) {
	good := Defaults()
	good.URL, good.Model = "http://localhost:11434/v1", "m"
	if _, err := New(good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for name, edit := range map[string]func(*Config){
		"no scheme":        func(c *Config) { c.URL = "localhost:11434/v1" },
		"ftp":              func(c *Config) { c.URL = "ftp://host/v1" },
		"no model":         func(c *Config) { c.Model = " " },
		"cap field":        func(c *Config) { c.CapField = "max_output_tokens" },
		"cap":              func(c *Config) { c.Cap = 0 },
		"timeout":          func(c *Config) { c.Timeout = 0 },
		"concurrency":      func(c *Config) { c.Concurrency = 0 },
		"negative retries": func(c *Config) { c.Retries = -1 },
		"negative calls":   func(c *Config) { c.MaxCalls = -1 },
	} {
		cfg := good
		edit(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestServerMessage(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"error":{"message":"model 'x' not found","type":"not_found"}}`, "model 'x' not found"},
		{`{"error":"rate limited"}`, "rate limited"},
		{"upstream\n  timed out", "upstream timed out"},
		{"", "no message"},
		{strings.Repeat("x", 300), strings.Repeat("x", 200) + "…"},
	} {
		if got := serverMessage([]byte(tc.body)); got != tc.want {
			t.Errorf("serverMessage(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// TestURLWithQuery: a base URL with a query (Azure's ?api-version=) gets
// the path joined before the query, keeps the query, and no message shows
// the query's values, which may hold a key.
func TestURLWithQuery(t *testing.T) {
	const query = "?api-version=2024-10-21&key=SECRET"
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.First(1, llmtest.Reply{Drop: true}, llmtest.Echo(5)))
	d := Defaults()
	d.URL, d.Model, d.Retries = srv.URL+"/"+query, "m", 0
	c, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), ask)
	if err == nil {
		t.Fatal("a dropped connection: no error")
	}
	if msg := err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, "2024-10-21") || !strings.Contains(msg, "/v1/chat/completions?api-version=xxxxx&key=xxxxx") {
		t.Errorf("the error shows the query's values, or not where it went: %s", msg)
	}
	if _, err := c.Complete(context.Background(), ask); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Query != query[1:] {
		t.Errorf("requests %+v, want the query %s", reqs, query)
	}
	for _, bad := range []string{"ftp://host/v1?key=SECRET", "http:///v1?key=SECRET", "http://user:SECRET@[::1/v1"} {
		d.URL = bad
		if _, err := New(d); err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("New(%s): %v, want an error that does not show the key", bad, err)
		}
	}
}

// TestRetryAfterDate: a Retry-After that names a date too far away is said
// as that date, not as a count of hours.
func TestRetryAfterDate(t *testing.T) {
	const date = "Tue, 01 Sep 2099 00:00:00 GMT"
	srv := llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Status: 429, RetryAfter: date}))
	c, _ := client(t, srv, Config{Retries: 2})
	_, err := c.Complete(context.Background(), ask)
	if err == nil || !strings.Contains(err.Error(), "the server asked to wait until "+date+", more than 30s from now") {
		t.Errorf("error %v, want it to name the date", err)
	}
	srv = llmtest.New(t, llmtest.Expect{}, llmtest.Always(llmtest.Reply{Status: 429, RetryAfter: "3600"}))
	c, _ = client(t, srv, Config{Retries: 2})
	if _, err := c.Complete(context.Background(), ask); err == nil || !strings.Contains(err.Error(), "the server asked to wait 1h0m0s, more than 30s") {
		t.Errorf("error %v, want it to say 1h0m0s", err)
	}
}

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"https://x.openai.azure.com/openai/v1?api-version=2024-10-21", "https://x.openai.azure.com/openai/v1?api-version=xxxxx"},
		{"https://h/v1?a=1&b&c=", "https://h/v1?a=xxxxx&b&c=xxxxx"},
		{"https://me:sk-123@h/v1", "https://me:xxxxx@h/v1"},
		{"http://me:sk-123@[::1/v1?key=sk-456", "http://xxxxx@[::1/v1…"},
		{"%zz?key=sk-456", "%zz…"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
