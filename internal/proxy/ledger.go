package proxy

import (
	"container/list"
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/safefile"
)

// Entry is one request in the ledger: what the upstream billed it, and
// what it would have billed the request as the client sent it.
type Entry struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	API     API       `json:"api"`
	Model   string    `json:"model,omitempty"`
	// Unpriced says the price table does not know the model: it was
	// priced as its API's usual model (pricing.DefaultModel).
	Unpriced bool `json:"unpriced,omitempty"`
	// Replaced is the results and edits' arguments that the request was
	// sent in another form than the client's.
	Replaced int `json:"replaced"`
	// Usage is the upstream's own account of the request, from its
	// answer; nil when the answer gave none (a Chat Completions stream
	// without stream_options.include_usage).
	Usage     *pricing.Tokens `json:"usage"`
	Reasoning int64           `json:"reasoning_tokens,omitempty"`
	// Uncompacted is what the upstream would have billed the request as
	// the client sent it: Usage, and the difference that the replay's
	// cache model finds between the two (Client against Sent); nil
	// without Usage.
	Uncompacted     *pricing.Tokens `json:"uncompacted"`
	Cost            float64         `json:"cost_usd"`
	UncompactedCost float64         `json:"uncompacted_cost_usd"`
	// Sent and Client are the cache model's account of the history (the
	// messages, not the system prompt and tools, the same in both) as the
	// proxy sent it and as the client sent it, each against the request
	// before it in its conversation.
	Sent   Cached `json:"sent"`
	Client Cached `json:"client"`
}

// Cached is the tokens of a history that the cache model reads from the
// cache, and those it writes.
type Cached struct {
	Read    int64 `json:"read"`
	Written int64 `json:"written"`
}

// uncompacted is what u, an upstream's bill of a request as sent, would
// have been for the request as the client sent it: the tokens the cache
// model reads more (or less) are read from the cache, those it writes
// more are billed as the API bills what it does not read.
func uncompacted(u pricing.Tokens, kind cacheKind, client, sent Cached) pricing.Tokens {
	read, written := client.Read-sent.Read, client.Written-sent.Written
	switch kind {
	case cacheNone:
		u.Input += read + written
	case cache5m:
		u.CacheRead += read
		u.CacheWrite += written
	case cache1h:
		u.CacheRead += read
		u.CacheWrite1h += written
	case cacheAuto:
		u.CacheRead += read
		u.Input += written
	}
	u.Input, u.CacheRead = max(0, u.Input), max(0, u.CacheRead)
	u.CacheWrite, u.CacheWrite1h = max(0, u.CacheWrite), max(0, u.CacheWrite1h)
	return u
}

// Ledger is where a proxy writes what each request cost: a line of JSON a
// request (Entry), appended, each in one write, so that several proxies
// may share one file. It keeps in memory the last request of each
// conversation, to price the next by the cache model; a restarted proxy
// starts without them, and prices the first request of each conversation
// as if nothing were cached, as sent and as the client sent it alike.
type Ledger struct {
	prices *pricing.Table
	mu     sync.Mutex
	w      io.Writer
	file   *os.File
	last   map[string]*list.Element // of *conversation, by key
	order  *list.List               // least recently used first
}

// maxConversations bounds the conversations a ledger remembers.
const maxConversations = 4096

// conversation is the last request of a conversation, as both sends.
type conversation struct {
	key          string
	client, sent replay.Prompt
}

// OpenLedger opens the ledger at path for appending, creating it and its
// directory when absent. Requests are priced with prices.
func OpenLedger(path string, prices *pricing.Table) (*Ledger, error) {
	f, err := safefile.OpenPrivate(path, os.O_WRONLY|os.O_APPEND) // what each request cost: the user's alone
	if err != nil {
		return nil, err
	}
	l := NewLedger(f, prices)
	l.file = f
	return l, nil
}

// NewLedger is a ledger that writes its lines to w.
func NewLedger(w io.Writer, prices *pricing.Table) *Ledger {
	if prices == nil {
		prices = pricing.Default()
	}
	return &Ledger{prices: prices, w: w, last: map[string]*list.Element{}, order: list.New()}
}

// Close closes the ledger's file.
func (l *Ledger) Close() error {
	if l == nil || l.file == nil {
		return nil
	}
	return l.file.Close()
}

// record writes the entry of a request the upstream answered with m.
func (l *Ledger) record(st *step, m metered, now time.Time) error {
	if l == nil || !st.measured {
		return nil
	}
	e := Entry{Time: now.UTC(), Session: st.session, API: st.api, Model: st.model, Replaced: st.replaced}
	if m.model != "" {
		e.Model = m.model
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	prev := l.swap(st)
	e.Client.Read, e.Client.Written = st.client.After(prev.client)
	e.Sent.Read, e.Sent.Written = st.sent.After(prev.sent)
	if m.found {
		unc := uncompacted(m.tokens, st.cache, e.Client, e.Sent)
		price, known := l.prices.For(e.Model, st.api.format())
		e.Usage, e.Uncompacted, e.Reasoning, e.Unpriced = &m.tokens, &unc, m.reasoning, !known
		e.Cost, e.UncompactedCost = price.Cost(m.tokens), price.Cost(unc)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = l.w.Write(append(line, '\n'))
	return err
}

// swap makes st the last request of its conversation, and returns the one
// before it (empty for none).
func (l *Ledger) swap(st *step) conversation {
	now := conversation{key: st.conv, client: st.client, sent: st.sent}
	el, ok := l.last[st.conv]
	if !ok {
		l.last[st.conv] = l.order.PushBack(&now)
		if l.order.Len() > maxConversations {
			oldest := l.order.Front()
			delete(l.last, oldest.Value.(*conversation).key)
			l.order.Remove(oldest)
		}
		return conversation{}
	}
	c := el.Value.(*conversation)
	prev := *c
	*c = now
	l.order.MoveToBack(el)
	return prev
}
