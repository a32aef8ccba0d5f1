package proxy

import (
	"sync"

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

// read is what the proxy read of one body: its parse, and the tally of its
// messages, calls and results as the client sent them, with where each
// message came from (its element of the history).
type read struct {
	api    API
	size   int64
	prefix *transcript.Prefix
	tally  stats.Tally
	elems  []int // by message, its element of the history (-1 for none: a system prompt)
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

// known is what t, a body parsed after r's, need not count again: the
// blocks of its messages from the elements of the history it took from
// r's (transcript.Carried), and the calls and results of those.
func (r *read) known(t *transcript.Transcript) stats.Tally {
	carried := t.Carried()
	if r == nil || carried == 0 {
		return stats.Tally{}
	}
	type at struct{ elem, nth int } // the nth message an element made
	was := map[at]int{}
	nth := map[int]int{}
	for i, e := range r.elems {
		if e >= 0 && e < carried {
			was[at{e, nth[e]}] = i
			nth[e]++
		}
	}
	clear(nth)
	known := stats.Tally{Blocks: make([][]int, len(t.Messages))}
	calls, results := 0, 0
	for i, m := range t.Messages {
		e := m.Pos.Element
		if e < 0 || e >= carried {
			continue
		}
		if j, ok := was[at{e, nth[e]}]; ok {
			known.Blocks[i] = r.tally.Blocks[j]
		}
		nth[e]++
		calls, results = calls+len(m.Calls), results+len(m.Results)
	}
	known.Calls, known.Results = r.tally.Calls[:min(calls, len(r.tally.Calls))], r.tally.Results[:min(results, len(r.tally.Results))]
	return known
}

// readOf is what the proxy keeps of t, read with tally.
func readOf(api API, t *transcript.Transcript, tally stats.Tally) *read {
	p := t.Prefix()
	if p == nil || p.Size() > maxPrefixedBody {
		return nil
	}
	r := &read{api: api, size: 2 * int64(p.Size()), prefix: p, tally: tally, elems: make([]int, len(t.Messages))}
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
