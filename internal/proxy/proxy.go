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
// It fails open: when its own step fails (a body it cannot read, a
// compaction that panics, an archive it cannot write), the client's bytes
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
	// DefaultMemory is how many bytes of request bodies the proxy holds at
	// once while it compacts them; a request that would go over waits.
	DefaultMemory = 256 << 20
)

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
	// Archive keeps every output a request is sent without, before the
	// request goes out, and its marker cites it; nil for none.
	Archive *archive.Archive
	// Ledger records what each request cost; nil for none.
	Ledger *Ledger
	// MaxBody is the largest request body compacted (DefaultMaxBody when
	// 0); Memory the bytes of bodies held at once (DefaultMemory when 0).
	MaxBody, Memory int64
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
		cfg.Memory = DefaultMemory
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
	where := r.Method + " " + r.URL.Path
	if why, status := p.refusal(r, api); why != "" {
		p.cfg.Log(where + ": refused " + why)
		writeError(w, base == p.cfg.Anthropic, status, "ctx-proxy refused "+why)
		return
	}
	body := io.Reader(r.Body)
	length := r.ContentLength
	var original []byte // the client's body, when held (to send again as it came)
	var st *step
	if api != "" && r.Body != nil && r.Body != http.NoBody {
		held, release, rest, err := p.hold(r)
		defer release()
		switch {
		case err != nil:
			if r.Context().Err() != nil {
				return // the client went away
			}
			p.cfg.Log(where + ": the request body could not be read: " + err.Error())
			writeError(w, base == p.cfg.Anthropic, http.StatusBadRequest, "ctx-proxy could not read the request body: "+err.Error())
			return
		case rest != nil: // over the limit: sent as it comes
			body = io.MultiReader(bytes.NewReader(held), rest)
		default:
			original = held
			select {
			case p.steps <- struct{}{}:
			case <-r.Context().Done():
				return // the client went away
			}
			st = p.compact(api, r.Header, held, where)
			<-p.steps
			body, length = bytes.NewReader(st.body), int64(len(st.body))
		}
	}
	resp, err := p.send(r, base, body, length)
	if err == nil && st != nil && st.changed && resp.StatusCode == http.StatusBadRequest {
		// The upstream refused the body as the proxy changed it: the
		// client's own bytes go instead, and it gets what they get.
		p.cfg.Log(where + ": the upstream refused the compacted request (400); sent again as received")
		resp.Body.Close()
		st.fallBack(original)
		resp, err = p.send(r, base, bytes.NewReader(original), int64(len(original)))
	}
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		p.cfg.Log(where + ": the upstream could not be reached: " + err.Error())
		writeError(w, base == p.cfg.Anthropic, http.StatusBadGateway, "ctx-proxy could not reach the upstream: "+err.Error())
		return
	}
	defer resp.Body.Close()
	if st != nil && resp.StatusCode/100 == 2 {
		p.keep(st)
	}
	var m *meter
	if st != nil && resp.StatusCode/100 == 2 && p.cfg.Ledger != nil {
		m = newMeter(api, resp.Header)
		defer m.close()
	}
	p.relay(w, resp, m, where)
	if m == nil {
		return
	}
	if err := p.cfg.Ledger.record(st, m.result(), time.Now()); err != nil {
		p.cfg.Log("the ledger: " + err.Error())
	}
	if m.unread != "" {
		p.cfg.Log(where + ": usage not read: " + m.unread)
	}
}

// hold reads a request body to compact, within the memory budget: the
// body, and the function that gives its bytes back to the budget. A body
// over MaxBody (or the budget) is not held: rest is the unread remainder,
// after the bytes read so far.
func (p *Proxy) hold(r *http.Request) (held []byte, release func(), rest io.Reader, err error) {
	need := r.ContentLength
	if need < 0 || need > p.cfg.MaxBody {
		need = p.cfg.MaxBody
	}
	release = func() {}
	if r.ContentLength > p.cfg.MaxBody || !p.budget.fits(need) {
		return nil, release, r.Body, nil
	}
	if err := p.budget.acquire(r.Context(), need); err != nil {
		return nil, release, nil, err
	}
	release = func() { p.budget.release(need) }
	if r.ContentLength >= 0 { // read into a buffer of its size, which never grows
		held = make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, held); err != nil {
			return nil, release, nil, err
		}
		return held, release, nil, nil
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r.Body, p.cfg.MaxBody+1))
	if err != nil {
		return nil, release, nil, err
	}
	if n > p.cfg.MaxBody {
		return buf.Bytes(), release, r.Body, nil
	}
	return buf.Bytes(), release, nil, nil
}

// send sends a request upstream with body, and returns the upstream's
// response.
func (p *Proxy) send(r *http.Request, base *url.URL, body io.Reader, length int64) (*http.Response, error) {
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
// finished one.
func (p *Proxy) relay(w http.ResponseWriter, resp *http.Response, m *meter, where string) {
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
				return // the client went away: closing the body cancels the upstream
			}
			_ = rc.Flush()
			m.write(buf[:n])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			p.cfg.Log(where + ": the upstream's answer broke off: " + err.Error())
			panic(http.ErrAbortHandler)
		}
	}
	for k, vs := range resp.Trailer {
		w.Header()[k] = vs
	}
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
