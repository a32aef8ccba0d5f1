package proxy

import (
	"sync"

	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// prefixes keeps what the proxy read of recent request bodies, for the
// next request of each conversation: an agent sends the history of its
// last request again and adds to its end, and what the two share need not
// be parsed (transcript.Prefix) nor counted (its tally) again. Which
// conversation a body continues is not known before it is read: the kept
// body it shares the most of its first 64 KiB with is the one, the most
// recent of those that share as much (a body shares a few kilobytes with
// another conversation's: the system prompt, the instructions).
type prefixes struct {
	mu    sync.Mutex
	kept  []*read // the most recently kept last
	bytes int64
}

// read is what the proxy read of one body: its parse, the tally of its
// messages, calls and results as the client sent them and their keys,
// with where each message came from (its element of the history).
type read struct {
	api    API
	size   int64
	prefix *transcript.Prefix
	tally  stats.Tally
	client replay.Prompt // the history as the client sent it, keyed (with a ledger)
	elems  []int         // by message, its element of the history (-1 for none: a system prompt)
}

// The bounds of what is kept: a body's parse holds the body and the texts
// decoded from it, about twice its size.
const (
	maxPrefixes     = 64
	maxPrefixBytes  = 128 << 20
	maxPrefixedBody = 8 << 20 // a larger body is read anew each time: it would take the room of many
)

// best is the kept read of api's bodies that body continues, or nil.
func (ps *prefixes) best(api API, body []byte) *read {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var best *read
	most := 0
	for _, r := range ps.kept {
		if r.api != api {
			continue
		}
		if n := r.prefix.Shared(body, 64<<10); n > 0 && n >= most {
			best, most = r, n
		}
	}
	return best
}

// prefix is r's parse, for a nil r too.
func (r *read) parse() *transcript.Prefix {
	if r == nil {
		return nil
	}
	return r.prefix
}

// known maps the messages of t, a body parsed after r's, to r's: was[i]
// is the index in r's of message i when it came from an element of the
// history that the parse took from r's (transcript.Carried), else -1.
// Those need not be counted nor keyed again.
func (r *read) known(t *transcript.Transcript) (was []int) {
	carried := t.Carried()
	if r == nil || carried == 0 {
		return nil
	}
	// An element's messages are consecutive, in both.
	first := make([]int, carried)
	for e := range first {
		first[e] = -1
	}
	for i, e := range r.elems {
		if e >= 0 && e < carried && first[e] < 0 {
			first[e] = i
		}
	}
	was = make([]int, len(t.Messages))
	elem, nth := -1, 0
	for i, m := range t.Messages {
		was[i] = -1
		e := m.Pos.Element
		if e < 0 || e >= carried {
			continue
		}
		if e != elem {
			elem, nth = e, 0
		}
		if j := first[e] + nth; first[e] >= 0 && j < len(r.elems) && r.elems[j] == e {
			was[i] = j
		}
		nth++
	}
	return was
}

// knownTally is what t need not count again (known's messages): their blocks,
// and their calls and results, which come first.
func (r *read) knownTally(t *transcript.Transcript, was []int) stats.Tally {
	if len(was) == 0 {
		return stats.Tally{}
	}
	known := stats.Tally{Blocks: make([][]int, len(t.Messages))}
	calls, results := 0, 0
	for i, m := range t.Messages {
		if was[i] >= 0 {
			known.Blocks[i] = r.tally.Blocks[was[i]]
			calls, results = calls+len(m.Calls), results+len(m.Results)
		}
	}
	known.Calls, known.Results = r.tally.Calls[:min(calls, len(r.tally.Calls))], r.tally.Results[:min(results, len(r.tally.Results))]
	return known
}

// prompt is the client's history as r's body sent it (replay), whose
// keys of known messages t need not compute again.
func (r *read) prompt() replay.Prompt {
	if r == nil {
		return replay.Prompt{}
	}
	return r.client
}

// readOf is what the proxy keeps of t, read with tally (and keyed as
// client, with a ledger).
func readOf(api API, t *transcript.Transcript, tally stats.Tally, client replay.Prompt) *read {
	p := t.Prefix()
	if p == nil || p.Size() > maxPrefixedBody {
		return nil
	}
	r := &read{api: api, size: 2 * int64(p.Size()), prefix: p, tally: tally, client: client, elems: make([]int, len(t.Messages))}
	for i, m := range t.Messages {
		r.elems[i] = m.Pos.Element
	}
	return r
}

// put keeps r, in place of the read it took from (after, nil for none):
// that conversation has moved on.
func (ps *prefixes) put(r, after *read) {
	if r == nil {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for i, k := range ps.kept {
		if k == after && after != nil {
			ps.drop(i)
			break
		}
	}
	ps.kept = append(ps.kept, r)
	ps.bytes += r.size
	for len(ps.kept) > maxPrefixes || ps.bytes > maxPrefixBytes {
		ps.drop(0)
	}
}

func (ps *prefixes) drop(i int) {
	ps.bytes -= ps.kept[i].size
	ps.kept = append(ps.kept[:i], ps.kept[i+1:]...)
}
