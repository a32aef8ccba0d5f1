package proxy

import (
	"sync"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// prefixes keeps the parses of recent request bodies (transcript.Prefix),
// for the next request of each conversation: an agent sends the history of
// its last request again and adds to its end, and the parse takes the
// elements the two share instead of reading them again. Which conversation
// a body continues is not known before it is read: the kept parse it
// shares the most bytes with is the one (a body shares a few kilobytes at
// most with another conversation's, and comparing stops there).
type prefixes struct {
	mu    sync.Mutex
	kept  []kept // the most recently used last
	bytes int64
}

type kept struct {
	api    API
	size   int64
	prefix *transcript.Prefix
}

// The bounds of what is kept: a body's parse holds the body and the texts
// decoded from it, about twice its size.
const (
	maxPrefixes     = 64
	maxPrefixBytes  = 128 << 20
	maxPrefixedBody = 8 << 20 // a larger body is parsed anew each time: it would take the room of many
)

// best is the kept parse of api's bodies that shares the most bytes with
// body, or nil.
func (ps *prefixes) best(api API, body []byte) *transcript.Prefix {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var best *transcript.Prefix
	most := 0
	for _, k := range ps.kept {
		if k.api != api {
			continue
		}
		if n := k.prefix.Shared(body); n > most {
			best, most = k.prefix, n
		}
	}
	return best
}

// put keeps the parse of a body, in place of the parse it took from
// (after, nil for none): that conversation has moved on.
func (ps *prefixes) put(api API, after, p *transcript.Prefix) {
	if p == nil || p.Size() > maxPrefixedBody {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for i, k := range ps.kept {
		if k.prefix == after && after != nil {
			ps.drop(i)
			break
		}
	}
	size := 2 * int64(p.Size())
	ps.kept = append(ps.kept, kept{api: api, size: size, prefix: p})
	ps.bytes += size
	for len(ps.kept) > maxPrefixes || ps.bytes > maxPrefixBytes {
		ps.drop(0)
	}
}

func (ps *prefixes) drop(i int) {
	ps.bytes -= ps.kept[i].size
	ps.kept = append(ps.kept[:i], ps.kept[i+1:]...)
}
