package proxy

import (
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// step is the proxy's own step on a request: the body it sends, and what
// the ledger needs of it.
type step struct {
	api      API
	where    string // the request's method and path, for the log
	body     []byte // what goes upstream
	changed  bool   // body is not the client's
	replaced int    // results and edits' arguments sent in another form than the client's
	session  string // marker.SessionKey: Claude Code's session, Codex's, else a hash of the opening
	model    string // the model asked for
	cache    cacheKind
	// conv tells a conversation apart within its session (a subagent's,
	// a side request's): the cache model compares a request with the one
	// before it in its conversation.
	conv string
	// client and sent are the history as the client sent it and as the
	// proxy sent it, as the cache sees them; filled when there is a
	// ledger.
	client, sent replay.Prompt
	measured     bool
	// keep are the outputs the body is sent without that the archive is
	// to keep, once the upstream accepts the request: a request it
	// refuses (one without a key, a web page's) leaves nothing there.
	keep []archive.Execution
}

// cacheKind is how an API bills the tokens a request does not read from
// the cache.
type cacheKind uint8

const (
	cacheNone cacheKind = iota // no cache: every prompt token is input (Messages without cache_control)
	cache5m                    // written for 5 minutes (Messages' cache_control)
	cache1h                    // written for an hour (cache_control with "ttl": "1h")
	cacheAuto                  // cached without a write premium (OpenAI's automatic cache)
)

// errCompressed is a request body the client compressed: sent as it came.
var errCompressed = errors.New("the body is compressed")

// compact runs the proxy's step on a request body it holds. Whatever goes
// wrong, the client's bytes are sent, and one line logged.
func (p *Proxy) compact(api API, h http.Header, body []byte, where string) (st *step) {
	st = &step{api: api, where: where, body: body}
	defer func() {
		if v := recover(); v != nil {
			p.cfg.Log(where + ": compaction failed, sent as received: " + panicked(v))
			st.fallBack(body)
		}
	}()
	if err := p.compactBody(st, h); err != nil {
		p.cfg.Log(where + ": not compacted, sent as received: " + unquoted(err, body))
		st.fallBack(body)
	}
	return st
}

// panicked says what a panic in the step was and where it came from,
// without its value unless the runtime made it: a bug's own message may
// quote the body.
func panicked(v any) string {
	what := "a panic"
	if err, ok := v.(runtime.Error); ok {
		what = err.Error()
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	for past := false; ; {
		f, more := frames.Next()
		if past && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s at %s:%d", what, filepath.Base(f.File), f.Line)
		}
		past = past || f.Function == "runtime.gopanic"
		if !more {
			return what
		}
	}
}

// unquoted says what is wrong with a body without a byte of it (the
// parser's own errors show the text they stop at, and a body may hold a
// key): whether it is JSON, and where the parser stopped.
func unquoted(err error, body []byte) string {
	var se *transcript.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	what := "not JSON"
	if jsonscan.Valid(unsafe.String(unsafe.SliceData(body), len(body))) {
		what = "JSON, not a request with a history"
	}
	return fmt.Sprintf("the body is %s (line %d, column %d)", what, se.Line, max(1, se.Column))
}

// fallBack makes the step send the client's body as it came.
func (st *step) fallBack(body []byte) {
	st.body, st.changed, st.replaced, st.keep = body, false, 0, nil
	st.sent = st.client
}

func (p *Proxy) compactBody(st *step, h http.Header) error {
	if enc := h.Get("Content-Encoding"); enc != "" && enc != "identity" {
		return fmt.Errorf("%w (%s)", errCompressed, enc)
	}
	src := unsafe.String(unsafe.SliceData(st.body), len(st.body)) // the body is not changed while held
	after := p.prefixes.best(st.api, st.body)
	t, err := transcript.Parse(st.body, transcript.Options{Format: st.api.format(), Tools: p.cfg.Tools, After: after.parse(), Keep: true})
	if err != nil {
		if st.api == Responses && jsonscan.Valid(src) && !jsonscan.Parse(src, 0).Get("input").IsArray() {
			return nil // a prompt (input a string): no history
		}
		return err
	}
	was := after.known(t)
	tl := stats.CountKnown(t, p.cfg.Counter, after.knownTally(t, was))
	// What was read is kept once the step is done with it; t itself may
	// be parsed again without a replacement (toKeep).
	parsed := t
	defer func() { p.prefixes.put(readOf(st.api, parsed, tl, st.client), after) }()
	st.model, st.cache = requestFacts(st.api, t)
	st.session = marker.SessionKey(t)
	ledger := p.cfg.Ledger != nil
	if ledger {
		st.client = replay.PromptKnown(t, tl, after.prompt(), was)
		st.sent, st.measured = st.client, true
		st.conv = conversationKey(st.session, st.client)
	}
	f := p.filters[0]
	if st.cache == cache1h {
		f = p.filters[1]
	}
	replaced := f.ApplyCounted(t, tl).Stats().Replaced
	if !t.Changed() {
		return nil
	}
	if p.cfg.Archive != nil {
		if t, replaced, err = p.toKeep(st, t, replaced); err != nil {
			return fmt.Errorf("the archive: %w", err)
		}
		if !t.Changed() {
			return nil
		}
	}
	st.body, st.changed, st.replaced = t.Bytes(), true, len(replaced)
	if ledger {
		var changed []*transcript.Message
		for _, rp := range replaced {
			changed = append(changed, rp.Result.Message)
			if rp.Input != "" && rp.Result.Call != nil {
				changed = append(changed, rp.Result.Call.Message)
			}
		}
		st.sent = st.client.With(t, p.recount(tl, replaced), changed)
	}
	return nil
}

// recount is tl, the tally of a transcript as the client sent it, with
// what the policy replaced counted as it is sent now.
func (p *Proxy) recount(tl stats.Tally, replaced []stats.Replaced) stats.Tally {
	tl.Results, tl.Calls = slices.Clone(tl.Results), slices.Clone(tl.Calls)
	for _, rp := range replaced {
		r := rp.Result
		tl.Results[r.Index] = p.cfg.Counter.Count(r.Text()) + stats.ImageTokens(r)
		if rp.Input != "" && r.Call != nil {
			tl.Calls[r.Call.Index] = p.cfg.Counter.Count(r.Call.Input)
		}
	}
	return tl
}

// conversationKey keys a conversation by its session and its first two
// messages as the client sent them (the system prompt and the task, or
// the task alone): Claude Code's subagents and side requests share its
// session id, not their opening.
func conversationKey(session string, client replay.Prompt) string {
	key := strings.Clone(session) // not a view of the body, which the ledger would keep alive
	for _, k := range client.Keys[:min(2, len(client.Keys))] {
		key += ":" + strconv.FormatUint(k, 36)
	}
	return key
}

// requestFacts reads, from a request body's fields (its history is most
// of it, and the transcript steps over it), the model it asks for and how the API bills what
// it does not read from its cache. Messages caches only with
// cache_control: on the body, or on the tools, the system prompt or the
// last messages' blocks, where clients put their breakpoints; the last of
// those says for how long the new part is written.
func requestFacts(api API, t *transcript.Transcript) (model string, cache cacheKind) {
	f := t.Fields("model", "cache_control", "tools", "system")
	if api != Messages {
		return f[0].Str(), cacheAuto
	}
	kind := cacheNone
	see := func(cc jsonscan.Value) {
		if !cc.IsObject() {
			return
		}
		kind = cache5m
		if cc.Get("ttl").Str() == "1h" {
			kind = cache1h
		}
	}
	blocks := func(v jsonscan.Value) {
		v.Each(func(b jsonscan.Value) bool {
			see(b.Get("cache_control"))
			return true
		})
	}
	see(f[1])
	blocks(f[2])
	blocks(f[3])
	msgs := t.Elements()
	for _, m := range msgs[max(0, len(msgs)-4):] {
		blocks(m.Get("content"))
	}
	return f[0].Str(), kind
}

// toKeep finds the outputs a request is sent without that the archive
// does not have yet by what this process stored (st.keep). Those that it
// holds another output for under the same handle are not replaced: the
// request is the client's body with every other replacement (a marker
// citing a handle that gives back another text would be worse than none),
// and one line logged.
func (p *Proxy) toKeep(st *step, t *transcript.Transcript, replaced []stats.Replaced) (*transcript.Transcript, []stats.Replaced, error) {
	var fresh []archive.Execution
	for _, e := range archive.Originals(t, replaced) {
		if !p.kept.has(e) {
			fresh = append(fresh, e)
		}
	}
	conflicts, err := p.cfg.Archive.Conflicts(fresh)
	if err != nil {
		return nil, nil, err
	}
	skip := map[int]bool{}
	var handles []string
	for i, e := range fresh {
		if conflicts[i] {
			skip[e.Seq] = true
			handles = append(handles, e.Handle)
			continue
		}
		st.keep = append(st.keep, e)
	}
	if len(skip) == 0 {
		return t, replaced, nil
	}
	p.cfg.Log(fmt.Sprintf("%s: %s sent as received: the archive holds other outputs under their handles (%s)",
		st.where, textfmt.Plural(len(skip), "result", "results"), strings.Join(handles, ", ")))
	return p.without(st, replaced, skip)
}

// without is the client's body with every replacement of replaced but
// those of the results at the indexes of skip: parsed again, with the
// others' new texts and arguments set in it.
func (p *Proxy) without(st *step, replaced []stats.Replaced, skip map[int]bool) (*transcript.Transcript, []stats.Replaced, error) {
	t, err := transcript.Parse(st.body, transcript.Options{Format: st.api.format(), Tools: p.cfg.Tools})
	if err != nil {
		return nil, nil, err
	}
	var kept []stats.Replaced
	for _, rp := range replaced {
		r := rp.Result
		if skip[r.Index] {
			continue
		}
		if rp.Mirror != "" {
			return nil, nil, errors.New("a copy of an output replaced") // request bodies have none
		}
		nr := t.Results[r.Index]
		if text := r.Text(); nr.Text() != text {
			t.SetText(nr, text)
		}
		if rp.Input != "" && r.Call != nil {
			t.SetInput(t.Calls[r.Call.Index], r.Call.Input)
		}
		kept = append(kept, stats.Replaced{Result: nr, Before: rp.Before, Input: rp.Input})
	}
	return t, kept, nil
}

// keep stores in the archive the outputs a request the upstream accepted
// was sent without (st.keep). It runs before the answer reaches the
// client, so that what the markers cite is there when the agent asks.
func (p *Proxy) keep(st *step) {
	if len(st.keep) == 0 {
		return
	}
	if err := p.cfg.Archive.Keep(st.keep); err != nil {
		p.cfg.Log(st.where + ": the archive: " + err.Error())
		return
	}
	p.kept.add(st.keep)
}

// keptSet remembers the executions this process stored, by session,
// handle and output: a conversation sends the same replaced outputs on
// every request, and the archive need not check them again each time.
type keptSet struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[keptKey]struct{}
}

type keptKey struct {
	session, handle string
	size            int
	sum             uint64
}

// maxKept bounds the set; past it, the set starts again (the archive
// checks what it then sees twice).
const maxKept = 1 << 16

func newKeptSet() *keptSet { return &keptSet{seed: maphash.MakeSeed(), m: map[keptKey]struct{}{}} }

func (k *keptSet) key(e archive.Execution) keptKey {
	return keptKey{e.Session, e.Handle, len(e.Output), maphash.String(k.seed, e.Output)}
}

// kept is a key to keep: its strings may be views of a request's body,
// which the set must not keep alive.
func (k keptKey) kept() keptKey {
	k.session, k.handle = strings.Clone(k.session), strings.Clone(k.handle)
	return k
}

func (k *keptSet) has(e archive.Execution) bool {
	key := k.key(e)
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.m[key]
	return ok
}

func (k *keptSet) add(execs []archive.Execution) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.m)+len(execs) > maxKept {
		clear(k.m)
	}
	for _, e := range execs {
		k.m[k.key(e).kept()] = struct{}{}
	}
}
