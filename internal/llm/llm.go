// Package llm is a small client of OpenAI-compatible chat completions
// (POST {base}/chat/completions), the API that OpenAI, Ollama, vLLM,
// llama.cpp's server and LM Studio all serve. It is plain net/http: an SDK
// would add megabytes to every binary for one request shape.
//
// A Client asks with temperature 0 and an output cap whose field name is a
// setting (servers differ: max_tokens or max_completion_tokens). It bounds
// what a run can cost and how long it can hang: a timeout per request,
// retries on connection errors, 429 and 5xx that honour Retry-After, a limit
// on requests in flight and on requests in all, and it stops asking a server
// that keeps failing to answer. Every failure is an *Error that says what
// went wrong, so that a caller can fall back and count why. Answers can be
// kept in a Cache, so that asking the same again costs nothing.
package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The names of the output cap's field.
const (
	MaxTokens           = "max_tokens"            // Ollama, llama.cpp, vLLM, LM Studio, older OpenAI models
	MaxCompletionTokens = "max_completion_tokens" // OpenAI's current models (reasoning models require it), vLLM
)

// Config says where to ask and within which bounds. Defaults has the
// values to start from; New checks them.
type Config struct {
	// URL is the API's base, such as http://localhost:11434/v1 or
	// https://api.openai.com/v1; requests go to URL/chat/completions, the
	// URL's query kept (Azure's ?api-version=). Messages show it with the
	// query's values and the password masked (Redact).
	URL   string
	Model string
	// Key is sent as a bearer token when it is not empty. Callers read it
	// from the environment, never from a flag that ps would show.
	Key string
	// CapField is the name of the output cap's field (MaxTokens or
	// MaxCompletionTokens), and Cap its value: the most tokens an answer
	// may have.
	CapField string
	Cap      int
	// Timeout bounds each request, reading the answer included.
	Timeout time.Duration
	// Retries is how many times a request is sent again after a connection
	// error, a 429 or a 5xx.
	Retries int
	// MaxRetryWait is the longest wait between retries: a Retry-After that
	// asks for more gives up instead.
	MaxRetryWait time.Duration
	// Concurrency is the most requests in flight at once.
	Concurrency int
	// MaxCalls is the most requests a Client sends in all, retries
	// included; 0 is no limit.
	MaxCalls int
	// GiveUpAfter: after this many calls in a row failed to reach the
	// server or timed out (retries spent), the server is taken to be down
	// and later calls fail at once with the same failure; 0 never gives up.
	GiveUpAfter int
	// Cache keeps answers; nil asks every time.
	Cache Cache
	// HTTP sends the requests; nil is a client of the Client's own.
	HTTP *http.Client
}

// Defaults are a Config's starting values; URL and Model are the caller's.
func Defaults() Config {
	return Config{CapField: MaxTokens, Cap: 256, Timeout: 60 * time.Second, Retries: 2,
		MaxRetryWait: 30 * time.Second, Concurrency: 4, GiveUpAfter: 3}
}

// Message is one message of a chat.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Request is what a caller asks.
type Request struct {
	Messages []Message
	// Version names the caller's prompt; cached answers are kept apart by
	// it, so that a new prompt does not get the old prompt's answers.
	Version string
}

// Response is an answer.
type Response struct {
	Content string
	Cached  bool  // from the cache: no request was sent
	Usage   Usage // as the server reported it; zero when cached
}

// Usage is the tokens a server reported.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Stats is what a Client did so far.
type Stats struct {
	Requests  int // HTTP requests sent, retries included
	Retries   int // of those, the retries
	CacheHits int // calls answered from the cache
	Answers   int // calls answered by the server
	Failures  int // calls that failed
	Usage         // tokens the server reported, failed answers included
}

// Client asks a model. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	shown    string // the endpoint as messages show it (Redact)
	http     *http.Client
	slots    chan struct{} // one per request in flight
	// sleep waits between retries; tests replace it to see the waits
	// without waiting.
	sleep func(ctx context.Context, d time.Duration) error

	sent     atomic.Int64 // requests sent, against MaxCalls
	mu       sync.Mutex
	stats    Stats
	downRun  int    // calls in a row that could not reach the server
	down     *Error // set once the server is taken to be down
	cacheErr error  // the first answer the cache could not keep
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("bad URL %q: want http://HOST[:PORT]/PATH or https://…", Redact(cfg.URL))
	}
	endpoint := u.JoinPath("chat/completions").String()
	switch {
	case strings.TrimSpace(cfg.Model) == "":
		return nil, errors.New("no model named")
	case cfg.CapField != MaxTokens && cfg.CapField != MaxCompletionTokens:
		return nil, fmt.Errorf("unknown cap field %q (want %s or %s)", cfg.CapField, MaxTokens, MaxCompletionTokens)
	case cfg.Cap <= 0:
		return nil, fmt.Errorf("output cap must be 1 or more, not %d", cfg.Cap)
	case cfg.Timeout <= 0:
		return nil, fmt.Errorf("timeout must be more than 0, not %v", cfg.Timeout)
	case cfg.Concurrency <= 0:
		return nil, fmt.Errorf("concurrency must be 1 or more, not %d", cfg.Concurrency)
	case cfg.Retries < 0 || cfg.MaxCalls < 0 || cfg.GiveUpAfter < 0 || cfg.MaxRetryWait < 0:
		return nil, errors.New("retries, max calls, give-up count and retry wait must be 0 or more")
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			MaxIdleConnsPerHost: cfg.Concurrency,
		}}
	}
	return &Client{
		cfg:      cfg,
		endpoint: endpoint,
		shown:    Redact(endpoint),
		http:     hc,
		slots:    make(chan struct{}, cfg.Concurrency),
		sleep:    sleepCtx,
	}, nil
}

// Model is the model the client asks.
func (c *Client) Model() string { return c.cfg.Model }

// Stats returns what the client did so far.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// CacheError is the first error of the cache's Put, or nil: answers that
// were not kept will be asked for again.
func (c *Client) CacheError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cacheErr
}

// Complete asks for an answer to req: from the cache when it has one, else
// from the server, within the Config's bounds. A failure is an *Error.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	body, err := c.body(req.Messages)
	if err != nil {
		return Response{}, err
	}
	var key Key
	if c.cfg.Cache != nil {
		key = c.key(req.Version, body)
		if text, ok := c.cfg.Cache.Get(key); ok {
			c.count(func(s *Stats) { s.CacheHits++ })
			return Response{Content: text, Cached: true}, nil
		}
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return Response{}, c.fail(&Error{Failure: Canceled, Err: ctx.Err()})
	}
	resp, e := c.send(ctx, body)
	<-c.slots
	if e != nil {
		return Response{}, c.fail(e)
	}
	c.count(func(s *Stats) { s.Answers++ })
	if c.cfg.Cache != nil {
		if err := c.cfg.Cache.Put(key, resp.Content); err != nil {
			// The answer is good; only the next run pays for it again.
			c.mu.Lock()
			if c.cacheErr == nil {
				c.cacheErr = err
			}
			c.mu.Unlock()
		}
	}
	return resp, nil
}

// body is the request's JSON.
func (c *Client) body(msgs []Message) ([]byte, error) {
	if len(msgs) == 0 {
		return nil, &Error{Failure: BadRequest, Err: errors.New("no messages")}
	}
	m := map[string]any{
		"model":        c.cfg.Model,
		"messages":     msgs,
		"temperature":  0,
		"stream":       false,
		c.cfg.CapField: c.cfg.Cap,
	}
	b, err := json.Marshal(m) // map keys come out sorted: the same request, the same bytes
	if err != nil {
		return nil, &Error{Failure: BadRequest, Err: err}
	}
	return b, nil
}

// key is the cache key of a request body: the model, the caller's prompt
// version, and a hash of everything else sent (messages and cap).
func (c *Client) key(version string, body []byte) Key {
	h := sha256.Sum256(body)
	return Key{Model: c.cfg.Model, Version: version, Hash: hex.EncodeToString(h[:])}
}

func (c *Client) count(f func(*Stats)) {
	c.mu.Lock()
	f(&c.stats)
	c.mu.Unlock()
}

// fail counts a failed call, and takes the server to be down after
// GiveUpAfter calls in a row that could not reach it.
func (c *Client) fail(e *Error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Failures++
	switch e.Failure {
	case Connection, Timeout:
		c.downRun++
		if c.cfg.GiveUpAfter > 0 && c.downRun >= c.cfg.GiveUpAfter && c.down == nil {
			c.down = e
		}
	case Canceled, MaxCalls, GaveUp:
	default:
		c.downRun = 0 // the server answered
	}
	return e
}

// send sends body until it is answered, a failure is final, or the retries
// are spent.
func (c *Client) send(ctx context.Context, body []byte) (Response, *Error) {
	var last *Error
	for attempt := 1; ; attempt++ {
		if e := c.reserve(); e != nil {
			if last == nil {
				return Response{}, e
			}
			// A retry the bounds do not allow: the failure is the last one.
			// A server taken to be down is so for a failure like last,
			// which need not be said twice.
			why := e.Error()
			if e.Failure == GaveUp {
				why = e.headline()
			}
			last.Err = fmt.Errorf("%w; not retried: %s", last.Err, why)
			return Response{}, last
		}
		c.count(func(s *Stats) {
			s.Requests++
			if attempt > 1 {
				s.Retries++
			}
		})
		resp, retry, wait, err := c.attempt(ctx, body)
		if err == nil {
			return resp, nil
		}
		err.Attempts = attempt
		if !retry || attempt > c.cfg.Retries {
			return Response{}, err
		}
		if wait.d < 0 {
			wait.d = backoff(attempt)
		}
		if wait.d > c.cfg.MaxRetryWait {
			err.Err = fmt.Errorf("%w; the server asked to wait %v, more than %v%s", err.Err, wait, c.cfg.MaxRetryWait,
				map[bool]string{true: " from now"}[!wait.until.IsZero()])
			return Response{}, err
		}
		if c.sleep(ctx, wait.d) != nil {
			return Response{}, &Error{Failure: Canceled, Attempts: attempt, Err: ctx.Err()}
		}
		last = err
	}
}

// reserve takes one request of MaxCalls, unless the limit is reached or the
// server is taken to be down.
func (c *Client) reserve() *Error {
	c.mu.Lock()
	down := c.down
	c.mu.Unlock()
	if down != nil {
		return &Error{Failure: GaveUp, Err: down}
	}
	if n := c.sent.Add(1); c.cfg.MaxCalls > 0 && n > int64(c.cfg.MaxCalls) {
		c.sent.Add(-1)
		return &Error{Failure: MaxCalls, Err: fmt.Errorf("the limit of %d requests is reached", c.cfg.MaxCalls)}
	}
	return nil
}

// backoff is the wait before retry n (1, 2, …) when the server did not say
// how long: 0.5s, 1s, 2s, … up to 8s.
func backoff(n int) time.Duration {
	return min(500*time.Millisecond<<(n-1), 8*time.Second)
}

// maxBody is the most of an answer read: a chat completion is a few
// kilobytes; a server that sends more is not one.
const maxBody = 8 << 20

// pause is how long the server asked to wait before a retry (Retry-After):
// d, negative when it did not say; until, the date it named, if it named
// one, which messages show rather than a count of hours.
type pause struct {
	d     time.Duration
	until time.Time
}

// noPause is a server's saying nothing of a wait.
var noPause = pause{d: -1}

func (p pause) String() string {
	if !p.until.IsZero() {
		return "until " + p.until.UTC().Format(http.TimeFormat)
	}
	return p.d.String()
}

// attempt sends one request. On failure, retry says whether the request may
// be sent again, and wait how long the server asked to wait first.
func (c *Client) attempt(ctx context.Context, body []byte) (resp Response, retry bool, wait pause, err *Error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	hreq, rerr := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if rerr != nil {
		return Response{}, false, noPause, &Error{Failure: BadRequest, Err: c.mask(rerr)}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "ctxkit")
	if c.cfg.Key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.Key)
	}
	hresp, herr := c.http.Do(hreq)
	if herr != nil {
		err = c.transportError(ctx, herr)
		return Response{}, err.Failure == Connection, noPause, err
	}
	defer hresp.Body.Close()
	data, herr := io.ReadAll(io.LimitReader(hresp.Body, maxBody))
	if herr != nil {
		err = c.transportError(ctx, herr)
		return Response{}, err.Failure == Connection, noPause, err
	}
	if hresp.StatusCode != http.StatusOK {
		err = &Error{Failure: Status, Status: hresp.StatusCode, Err: errors.New(serverMessage(data))}
		if hresp.StatusCode != http.StatusTooManyRequests && hresp.StatusCode < 500 {
			return Response{}, false, noPause, err
		}
		wait, ok := retryAfter(hresp.Header.Get("Retry-After"), time.Now())
		if !ok {
			wait = noPause
		}
		return Response{}, true, wait, err
	}
	resp, err = c.decode(data)
	return resp, false, noPause, err
}

// transportError tells a timeout from a connection that failed.
func (c *Client) transportError(ctx context.Context, err error) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Failure: Timeout, Err: fmt.Errorf("no answer within %v", c.cfg.Timeout)}
	}
	if ctx.Err() != nil {
		return &Error{Failure: Canceled, Err: ctx.Err()}
	}
	return &Error{Failure: Connection, Err: c.mask(err)}
}

// mask shows the endpoint in an error of net/http (which names the URL it
// was asked) as messages show it: without the query's values.
func (c *Client) mask(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL == c.endpoint {
		masked := *ue
		masked.URL = c.shown
		return &masked
	}
	return err
}

// Redact is a URL as a message shows it: the values of its query and its
// password masked ("xxxxx"), since either may hold a key. A URL that cannot
// be read is shown without its query and fragment, and with its user and
// password masked.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i] + "…"
		}
		if at := strings.LastIndexByte(raw, '@'); at >= 0 {
			start := strings.Index(raw, "://") + len("://")
			if start < len("://") || start > at {
				start = 0
			}
			raw = raw[:start] + "xxxxx" + raw[at:]
		}
		return raw
	}
	if u.RawQuery != "" {
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			if k, _, ok := strings.Cut(p, "="); ok {
				params[i] = k + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	return u.Redacted()
}

// completion is the part of an answer the client reads.
type completion struct {
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage"`
}

// decode reads a 200 answer.
func (c *Client) decode(data []byte) (Response, *Error) {
	var comp completion
	if err := json.Unmarshal(data, &comp); err != nil {
		return Response{}, &Error{Failure: BadResponse, Err: fmt.Errorf("not a chat completion: %v", err)}
	}
	var usage Usage
	if comp.Usage != nil {
		usage = *comp.Usage
		c.count(func(s *Stats) {
			s.PromptTokens += usage.PromptTokens
			s.CompletionTokens += usage.CompletionTokens
		})
	}
	if len(comp.Choices) == 0 {
		return Response{}, &Error{Failure: BadResponse, Err: errors.New("no choices in the answer")}
	}
	ch := comp.Choices[0]
	if ch.FinishReason == "length" {
		return Response{}, &Error{Failure: Length, Err: fmt.Errorf("the answer reached the cap of %d tokens (finish_reason length)", c.cfg.Cap)}
	}
	text := stripThinking(contentText(ch.Message.Content))
	if strings.TrimSpace(text) == "" {
		return Response{}, &Error{Failure: Empty, Err: errors.New("the answer's content is empty (a reasoning model may have put its text elsewhere)")}
	}
	return Response{Content: text, Usage: usage}, nil
}

// contentText reads a message's content: a string, or an array of parts
// whose text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "output_text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// stripThinking drops a leading <think>…</think> block, which reasoning
// models put in the content on servers that do not parse it out.
func stripThinking(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "<think>") {
		return s
	}
	if _, after, ok := strings.Cut(t, "</think>"); ok {
		return after
	}
	return "" // thinking cut off: no answer
}

// serverMessage is the error a server sent, on one line and short.
func serverMessage(data []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	msg := strings.TrimSpace(string(data))
	if json.Unmarshal(data, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			msg = s
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = "no message"
	}
	return msg
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string, now time.Time) (pause, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return pause{}, false
	}
	if n, err := strconv.Atoi(h); err == nil && n >= 0 {
		// Past about 34 years a wait is as good as forever, and the
		// Duration would overflow.
		return pause{d: time.Duration(min(n, 1<<30)) * time.Second}, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return pause{d: max(t.Sub(now), 0), until: t}, true
	}
	return pause{}, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
