// Package proxy is ctx-proxy's core: an HTTP proxy between an agent and its
// model API that sends the history of each request through ctx-compact's
// policy (internal/compact), and everything else through as it came.
//
// It knows three APIs: Anthropic Messages (POST …/messages), OpenAI Chat
// Completions (POST …/chat/completions) and OpenAI Responses (POST
// …/responses). Their request bodies are transcripts (internal/transcript);
// the policy replaces the content of some tool results (and edits'
// arguments), and the transcript writes those into the original bytes:
// every other byte of the body (thinking blocks and their signatures,
// cache_control, system, tools, images, key order, white space) goes
// upstream as the client sent it. Every other request, count_tokens
// included, and every response pass through untouched: headers both ways
// (API keys and OAuth tokens forwarded, never logged or kept), responses
// streamed as they arrive, each read flushed to the client at once.
//
// The policy is a function of the history alone (internal/compact), so the
// proxy keeps no state that the compaction needs: after a restart, or
// behind another proxy with the same settings, the same history is sent as
// the same bytes, and the prompt cache stays warm. The state it does keep
// is for the ledger (the last request of each conversation, to price the
// next by the cache model) and is bounded.
//
// It refuses, before it reads a body, what a web page can send (guard.go).
// It fails open: when its own step fails (a body it cannot read, a
// compaction that panics, an archive it cannot read), the client's bytes
// go upstream as they came and one line is logged. What the upstream
// answers reaches the client unchanged, errors included; when the upstream
// cannot be reached the client gets a 502 in its API's error shape, never
// an empty 200.
package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// API is a model API whose requests the proxy compacts.
type API string

// The APIs.
const (
	Messages  API = "messages"  // Anthropic Messages: POST /v1/messages
	Chat      API = "chat"      // OpenAI Chat Completions: POST /v1/chat/completions
	Responses API = "responses" // OpenAI Responses: POST /v1/responses
)

// format is the transcript format of an API's request bodies.
func (a API) format() transcript.Format {
	switch a {
	case Messages:
		return transcript.Anthropic
	case Chat:
		return transcript.OpenAI
	}
	return transcript.Codex
}

// Defaults.
const (
	// DefaultMaxBody is the largest request body compacted; a larger one
	// goes upstream as it comes, never held in memory.
	DefaultMaxBody = 32 << 20
	// DefaultBodyTimeout is how long a client may send nothing of a
	// request body before the proxy gives up on it (408).
	DefaultBodyTimeout = 30 * time.Second
)

// memoryPerBody is the bytes of request bodies the proxy holds at once, by
// default, in largest bodies: 256 MiB for the default 32 MiB. A request
// that arrives when they are spent goes upstream as it came.
const memoryPerBody = 8

// Config is a proxy's setup.
type Config struct {
	// Anthropic and OpenAI are the upstreams' base URLs: a request's path
	// is appended to them (a base ending in /v1 takes a path's /v1/ once).
	// They come from the proxy's own setup, never from a request.
	Anthropic, OpenAI *url.URL
	// Counter counts tokens for the policy and the ledger.
	Counter tokens.Counter
	// Tools tells the tools' kinds (nil: the built-in ones).
	Tools *tools.Table
	// Options are the policy's (compact.Defaults); the proxy sets
	// HourCache per request from its cache_control, and Handle when it
	// archives.
	Options compact.Options
	// Archive keeps every output a request is sent without, once the
	// upstream accepted the request and before the client reads the
	// answer, and its marker cites it; nil for none.
	Archive *archive.Archive
	// Ledger records what each request cost; nil for none.
	Ledger *Ledger
	// MaxBody is the largest request body compacted (DefaultMaxBody when
	// 0); Memory the bytes of bodies held at once (8 MaxBody when 0), at
	// least MaxBody.
	MaxBody, Memory int64
	// BodyTimeout is how long a client may send nothing of its request
	// body (DefaultBodyTimeout when 0).
	BodyTimeout time.Duration
	// Log logs one line: a failure of the proxy's own step, an upstream
	// that cannot be reached. Nil logs nothing.
	Log func(line string)
	// Transport reaches the upstreams; nil is a transport of its own.
	Transport http.RoundTripper
	// Names are host names the proxy answers to besides the address a
	// request comes in on and, on a loopback address, localhost: the
	// name it was told to listen on. A request for any other host is
	// refused (a web page's, through a name rebound to 127.0.0.1).
	Names []string
}

// Proxy is an http.Handler that proxies to the upstreams.
type Proxy struct {
	cfg       Config
	filters   [2]*compact.Filter // by HourCache
	transport http.RoundTripper
	budget    *budget
	// steps are the compactions that may run at once: the work is the
	// CPU's, and each holds a transcript of its body, several times its
	// size, until it is done.
	steps chan struct{}
	kept  *keptSet
	// prefixes are what the proxy read of recent bodies, which the next
	// request of each conversation takes from.
	prefixes prefixes
}

// New checks the setup and builds the proxy.
func New(cfg Config) (*Proxy, error) {
	if cfg.Anthropic == nil || cfg.OpenAI == nil {
		return nil, errors.New("proxy: an upstream URL is missing")
	}
	for _, u := range []*url.URL{cfg.Anthropic, cfg.OpenAI} {
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("upstream %q: want an http or https URL with a host", u.String())
		}
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Memory <= 0 {
		cfg.Memory = memoryPerBody * cfg.MaxBody
	}
	if cfg.Memory < cfg.MaxBody {
		return nil, fmt.Errorf("the memory for request bodies (%s) is less than the largest body compacted (%s)", size(cfg.Memory), size(cfg.MaxBody))
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.Log == nil {
		cfg.Log = func(string) {}
	}
	p := &Proxy{cfg: cfg, transport: cfg.Transport, budget: newBudget(cfg.Memory), kept: newKeptSet(),
		steps: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}
	opts := cfg.Options
	opts.Counter = cfg.Counter
	if opts.Summarizer == nil {
		opts.Summarizer = compact.RuleSummaries
	}
	opts.Summarizer = newMemo().wrap(opts.Summarizer)
	if cfg.Archive != nil {
		opts.Handle = marker.Citation
	}
	for i, hour := range []bool{false, true} {
		opts.HourCache = hour
		f, err := compact.New(opts)
		if err != nil {
			return nil, err
		}
		p.filters[i] = f
	}
	if p.transport == nil {
		p.transport = newTransport()
	}
	return p, nil
}

// Memory is the bytes of request bodies the proxy holds at once at most
// (Config.Memory, or its default).
func (p *Proxy) Memory() int64 { return p.cfg.Memory }

// newTransport reaches the upstreams: timeouts on connecting, none on an
// answer (a model may think for minutes before its first byte, and a
// stream runs as long as it runs); compression as the client asks it.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   30 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true, // the client's Accept-Encoding goes as it is, and so does the answer
	}
}

// Server is an http.Server for the proxy with the timeouts it needs: on
// reading a request's headers and on idle connections, none on writing (it
// would cut a long stream).
func (p *Proxy) Server() *http.Server {
	return &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 5 * time.Minute}
}

// route is where a request goes: the API whose body the proxy compacts
// ("" for one it passes through), and the upstream's base URL. A request
// of no API the proxy knows goes to Anthropic when its path or headers say
// it is Anthropic's, else to OpenAI.
func (p *Proxy) route(r *http.Request) (API, *url.URL) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if r.Method == http.MethodPost {
		switch {
		case strings.HasSuffix(path, "/messages"):
			return Messages, p.cfg.Anthropic
		case strings.HasSuffix(path, "/chat/completions"):
			return Chat, p.cfg.OpenAI
		case strings.HasSuffix(path, "/responses"):
			return Responses, p.cfg.OpenAI
		}
	}
	if strings.Contains(path, "/messages") || strings.HasSuffix(path, "/complete") ||
		r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "" {
		return "", p.cfg.Anthropic
	}
	return "", p.cfg.OpenAI
}

// target is the upstream URL of a request: the base, the request's path
// (its /v1 once, when the base ends in /v1), its query.
func target(base *url.URL, r *http.Request) *url.URL {
	u := *base
	path, raw := r.URL.Path, r.URL.EscapedPath()
	if strings.HasSuffix(base.Path, "/v1") && strings.HasPrefix(path, "/v1/") {
		path, raw = path[3:], strings.TrimPrefix(raw, "/v1")
	}
	u.Path = strings.TrimSuffix(base.Path, "/") + path
	u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + raw
	u.RawQuery = r.URL.RawQuery
	u.Fragment = ""
	return &u
}

// hopHeaders are the headers of one connection, which a proxy does not
// pass on (RFC 9110, 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// copyHeader copies the end-to-end headers of src into dst.
func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
	for _, f := range src.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			dst.Del(strings.TrimSpace(name))
		}
	}
	for _, h := range hopHeaders {
		dst.Del(h)
	}
}

// ServeHTTP proxies one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	api, base := p.route(r)
	x := &exchange{w: w, r: r, api: api, base: base, where: r.Method + " " + r.URL.Path, anthropic: base == p.cfg.Anthropic}
	if why, status := p.refusal(r, api); why != "" {
		p.cfg.Log(x.where + ": refused " + why)
		writeError(w, x.anthropic, status, "ctx-proxy refused "+why)
		return
	}
	x.body, x.length = http.NoBody, 0
	if r.Body != nil && r.Body != http.NoBody {
		x.body, x.length = &deadlineReader{r: r.Body, rc: http.NewResponseController(w), timeout: p.cfg.BodyTimeout}, r.ContentLength
	}
	if api != "" && x.body != http.NoBody {
		release, ok := p.take(x)
		defer release()
		if !ok {
			return
		}
	}
	resp := p.send(x)
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if x.st != nil && resp.StatusCode/100 == 2 {
		p.keep(x.st)
	}
	var m *meter
	if x.st != nil && resp.StatusCode/100 == 2 && p.cfg.Ledger != nil {
		m = newMeter(api, resp.Header)
		defer m.close()
	}
	gone := p.relay(w, resp, m, x.where)
	if m != nil {
		if err := p.cfg.Ledger.record(x.st, m.result(), time.Now()); err != nil {
			p.cfg.Log("the ledger: " + err.Error())
		}
		if m.unread != "" && !gone {
			p.cfg.Log(x.where + ": usage not read: " + m.unread)
		}
	}
	if gone {
		abort()
	}
}

// exchange is one request on its way through the proxy.
type exchange struct {
	w         http.ResponseWriter
	r         *http.Request
	api       API
	base      *url.URL
	where     string // the request's method and path, for the log
	anthropic bool   // the client speaks Anthropic's API: its errors take that shape
	// body is what goes upstream, length its length (-1 unknown); held,
	// when the proxy held the client's body, is that body (sent again as
	// it came when the upstream refuses the compacted one), and st the
	// proxy's step on it.
	body   io.Reader
	length int64
	held   []byte
	st     *step
}

// abort ends a request whose client went away (or half-closed its side,
// which Go's server cannot tell apart): its connection is closed with no
// answer, never a 200 that looks whole.
func abort() { panic(http.ErrAbortHandler) }

// take reads the body of a request to compact and runs the proxy's step
// on it; release gives its bytes back to the budget once the request is
// done. A body over MaxBody, or one the budget cannot hold, goes upstream
// as it comes. It reports false when it has answered the client itself.
func (p *Proxy) take(x *exchange) (release func(), ok bool) {
	held, release, rest, err := p.hold(x.r, x.body)
	switch {
	case errors.Is(err, errFull):
		p.cfg.Log(x.where + ": sent as received: the proxy holds " + size(p.budget.total) + " of request bodies already")
		x.body = io.MultiReader(bytes.NewReader(held), rest)
		return release, true
	case err != nil:
		p.bodyFailed(x, err)
		return release, false
	case rest != nil: // over MaxBody: sent as it comes
		x.body = io.MultiReader(bytes.NewReader(held), rest)
		return release, true
	}
	_ = http.NewResponseController(x.w).SetReadDeadline(time.Time{}) // the body is read: nothing times out the answer
	select {
	case p.steps <- struct{}{}:
	case <-x.r.Context().Done():
		abort()
	}
	x.held, x.st = held, p.compact(x.api, x.r.Header, held, x.where)
	<-p.steps
	x.body, x.length = bytes.NewReader(x.st.body), int64(len(x.st.body))
	return release, true
}

// bodyFailed answers a request whose body could not be read: a client
// that sent nothing for the body timeout gets a 408, one that went away
// nothing.
func (p *Proxy) bodyFailed(x *exchange, err error) {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		p.cfg.Log(fmt.Sprintf("%s: the client sent no byte of the body for %v", x.where, p.cfg.BodyTimeout))
		writeError(x.w, x.anthropic, http.StatusRequestTimeout, fmt.Sprintf("ctx-proxy received no byte of the request body for %v", p.cfg.BodyTimeout))
	case x.r.Context().Err() != nil:
		abort()
	default:
		p.cfg.Log(x.where + ": the request body could not be read: " + err.Error())
		writeError(x.w, x.anthropic, http.StatusBadRequest, "ctx-proxy could not read the request body: "+err.Error())
	}
}

// errFull is hold's error when the budget cannot hold the body.
var errFull = errors.New("the budget is spent")

// hold reads a request body to compact into a buffer that grows as the
// body arrives, taking its bytes from the budget as it grows: the body,
// and the function that gives them back. A body over MaxBody is not held:
// rest is the unread remainder, after the bytes read so far; so it is,
// with errFull, when the budget cannot hold it.
func (p *Proxy) hold(r *http.Request, body io.Reader) (held []byte, release func(), rest io.Reader, err error) {
	var taken int64
	release = func() { p.budget.release(taken) }
	known := r.ContentLength >= 0
	if r.ContentLength > p.cfg.MaxBody {
		return nil, release, body, nil
	}
	limit := p.cfg.MaxBody + 1 // a byte more than MaxBody tells a body over it
	if known {
		limit = r.ContentLength
	}
	var buf []byte
	for !known || int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			grown := min(max(2*int64(cap(buf)), 64<<10), limit)
			if !p.budget.take(grown - int64(cap(buf))) {
				return buf, release, body, errFull
			}
			taken += grown - int64(cap(buf))
			buf = append(make([]byte, 0, grown), buf...)
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF && known && int64(len(buf)) < limit:
			return nil, release, nil, io.ErrUnexpectedEOF
		case err == io.EOF:
			return buf, release, nil, nil
		case err != nil:
			return nil, release, nil, err
		case int64(len(buf)) > p.cfg.MaxBody:
			return buf, release, body, nil
		}
	}
	return buf, release, nil, nil
}

// deadlineReader reads a request body with a deadline on each read: a
// client that sends nothing of its body for timeout is cut off (its read
// fails), and holds nothing of the proxy's for longer. The deadline is
// lifted once the body ends, so that it never cuts the answer.
type deadlineReader struct {
	r       io.Reader
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	_ = d.rc.SetReadDeadline(time.Now().Add(d.timeout))
	n, err := d.r.Read(p)
	if err != nil {
		_ = d.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// size says a number of bytes in MiB, or KiB under one.
func size(n int64) string {
	if n < 1<<20 {
		return textfmt.Int(int(n>>10)) + " KiB"
	}
	return textfmt.Int(int(n>>20)) + " MiB"
}

// send sends the request upstream and returns the upstream's response. A
// compacted body the upstream refuses with a 400 is sent again as the
// client sent it, and the client gets what that gets. When the upstream
// cannot be reached, it answers the client with a 502 itself, and returns
// nil.
func (p *Proxy) send(x *exchange) *http.Response {
	resp, err := p.roundTrip(x.r, x.base, x.body, x.length)
	if err == nil && x.st != nil && x.st.changed && resp.StatusCode == http.StatusBadRequest {
		p.cfg.Log(x.where + ": the upstream refused the compacted request (400); sent again as received")
		resp.Body.Close()
		x.st.fallBack(x.held)
		resp, err = p.roundTrip(x.r, x.base, bytes.NewReader(x.held), int64(len(x.held)))
	}
	if err != nil {
		if x.r.Context().Err() != nil {
			abort()
		}
		p.cfg.Log(x.where + ": the upstream could not be reached: " + err.Error())
		writeError(x.w, x.anthropic, http.StatusBadGateway, "ctx-proxy could not reach the upstream: "+err.Error())
		return nil
	}
	return resp
}

// roundTrip sends a request upstream with body, and returns the
// upstream's response.
func (p *Proxy) roundTrip(r *http.Request, base *url.URL, body io.Reader, length int64) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		body, length = http.NoBody, 0
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target(base, r).String(), body)
	if err != nil {
		return nil, err
	}
	copyHeader(out.Header, r.Header)
	out.Header.Del("Content-Length")
	out.ContentLength = length
	if length == 0 && body != http.NoBody {
		out.Body = http.NoBody
	}
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = nil // Go's own is not the client's
	}
	return p.transport.RoundTrip(out)
}

// relay writes the upstream's response to the client: its status and
// headers, then its body as it arrives, each read written and flushed at
// once, and given to the meter. An upstream that fails mid-stream aborts
// the client's connection, so that the client sees a cut answer, not a
// finished one. gone reports that the client went away (or half-closed
// its side) before the answer ended: the caller aborts its connection
// too, once the ledger has what the upstream billed.
func (p *Proxy) relay(w http.ResponseWriter, resp *http.Response, m *meter, where string) (gone bool) {
	copyHeader(w.Header(), resp.Header)
	for k := range resp.Trailer {
		w.Header().Add("Trailer", k)
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return true // the client went away: closing the body cancels the upstream
			}
			_ = rc.Flush()
			m.write(buf[:n])
		}
		if err == io.EOF {
			break
		}
		if errors.Is(err, context.Canceled) {
			return true
		}
		if err != nil {
			p.cfg.Log(where + ": the upstream's answer broke off: " + err.Error())
			abort()
		}
	}
	for k, vs := range resp.Trailer {
		w.Header()[k] = vs
	}
	return false
}

// writeError answers with the proxy's own error, in the shape of the API
// the client speaks (Anthropic's, else OpenAI's), so that its SDK reports
// it as an API error.
func writeError(w http.ResponseWriter, anthropic bool, status int, msg string) {
	quoted, _ := json.Marshal(msg)
	body := `{"error":{"message":` + string(quoted) + `,"type":"api_error","param":null,"code":null}}`
	if anthropic {
		body = `{"type":"error","error":{"type":"api_error","message":` + string(quoted) + `}}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
