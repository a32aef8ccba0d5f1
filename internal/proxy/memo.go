package proxy

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// memo remembers the summaries the policy made: every request of a
// conversation sends the results of the requests before it, and the
// policy, which keeps no state, summarizes them again on each. A summary
// is a function of the call (its name, input, kind and arguments), how it
// ended, its output, the working directory and the handle it cites: the
// memo keys it by all of them, so that what it gives back is what the
// summarizer would make.
type memo struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[memoKey]memoized
}

// memoKey is a 64-bit hash of what a summary depends on, and the text's
// length: two texts of one length that hash alike among the thousands a
// memo holds are a chance of about one in 10^11.
type memoKey struct {
	sum  uint64
	size int
}

type memoized struct {
	summary string
	ok      bool
}

// maxMemo bounds the summaries remembered; past it, the memo starts again.
const maxMemo = 1 << 14

func newMemo() *memo {
	return &memo{seed: maphash.MakeSeed(), m: map[memoKey]memoized{}}
}

// wrap is s, remembered.
func (m *memo) wrap(s compact.Summarizer) compact.Summarizer {
	return func(cwd string, handle func(*transcript.Result) string) summarize.Summarizer {
		return memoSummarizer{m: m, cwd: cwd, handle: handle, inner: s(cwd, handle)}
	}
}

type memoSummarizer struct {
	m      *memo
	cwd    string
	handle func(*transcript.Result) string
	inner  summarize.Summarizer
}

// Summarize implements summarize.Summarizer.
func (s memoSummarizer) Summarize(c *transcript.Call, text string) (string, bool) {
	key := s.key(c, text)
	s.m.mu.Lock()
	v, ok := s.m.m[key]
	s.m.mu.Unlock()
	if ok {
		return v.summary, v.ok
	}
	v.summary, v.ok = s.inner.Summarize(c, text)
	v.summary = strings.Clone(v.summary) // it may be a view of the request's body
	s.m.mu.Lock()
	if len(s.m.m) >= maxMemo {
		clear(s.m.m)
	}
	s.m.m[key] = v
	s.m.mu.Unlock()
	return v.summary, v.ok
}

func (s memoSummarizer) key(c *transcript.Call, text string) memoKey {
	var b []byte // what the summary may depend on but the text, written out
	str := func(v string) { b = append(append(b, v...), 0) }
	num := func(n int) { b = append(strconv.AppendInt(b, int64(n), 10), 0) }
	flag := func(v bool) { b = strconv.AppendBool(b, v) }
	str(s.cwd)
	str(c.Name)
	str(c.Input)
	str(string(c.Kind))
	flag(c.InputIsText)
	a := c.Args
	for _, v := range append([]string{a.Path, a.Command, a.Dir, a.Pattern, a.URL, a.Intent, a.Subcommand}, a.Paths...) {
		str(v)
	}
	for _, n := range []int{len(a.Paths), a.Range.Start, a.Range.End, a.Range.Last, a.Session} {
		num(n)
	}
	if r := c.Result; r != nil {
		if s.handle != nil {
			str(s.handle(r))
		}
		o := r.Outcome()
		code, known := r.ExitCode.Get()
		flag(r.IsError)
		num(int(o.End))
		str(o.Reason)
		flag(known)
		num(code)
		num(o.Session)
	}
	var h maphash.Hash
	h.SetSeed(s.m.seed)
	h.Write(b)
	h.WriteString(text)
	return memoKey{h.Sum64(), len(text)}
}
