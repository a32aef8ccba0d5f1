package transcript

import (
	"strings"
	"time"
	"unsafe"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Prefix is what the parse of one document keeps for the parse of the next
// in a series where each starts with the bytes of the one before: an
// agent's requests, each of which sends the history of the last again and
// adds to its end. It holds the document and, for each element of its
// history, the messages the element made; the next parse takes those as
// they are for the elements the two documents share (Options.After), and
// so does not check, read or judge them again. The transcript is the same
// either way.
//
// A Prefix is kept for a request body: a JSON object whose history is one
// of its fields, in a format given (not detected). It is read, never
// changed, by the parses that take from it, so several may at once.
type Prefix struct {
	src    string
	format Format
	tools  *tools.Table
	key    string // the history's field
	msgs   int    // where the history's array starts
	recs   []record
	made   []made
}

// made is what one element of the history made: its messages, each with
// its calls and results, as the element alone made them (before the passes
// over the whole transcript: pairing, judging, stamping), and the parser's
// state after it. ok is false for an element the next parse must read
// again (one that left state for those passes, which the Prefix does not
// keep).
type made struct {
	msgs  []*Message
	after carriedState
	ok    bool
}

// carriedState is the parser's state that one element leaves to the next.
type carriedState struct {
	at        time.Time
	model     string
	restart   bool
	itemUsers bool
}

// keeper gathers a Prefix as a parse goes (Options.Keep).
type keeper struct {
	tools   *tools.Table
	key     string
	msgs    int
	recs    []record
	made    []made
	results []*Result // the templates of the transcript's results, in order
}

// usable returns a when the parse of a document with opts may take from
// it, else nil.
func (a *Prefix) usable(opts Options) *Prefix {
	if a == nil || opts.Format == "" || opts.Format != a.format || opts.Tools != a.tools {
		return nil
	}
	return a
}

// split is split for a document that may start with a's bytes: the
// elements of the history that a's parse read from the bytes the two share
// are a's (carried of them), and only the rest of the document is checked
// and walked. carried is 0 when it can take none: the caller splits the
// document anew, which also says what is wrong with a bad one.
func (a *Prefix) split(src string) (root, msgs jsonscan.Value, recs []record, carried int, rb rebaser) {
	shared := commonPrefix(a.src, src)
	for carried < len(a.recs) && a.made[carried].ok && end(a.recs[carried].v) <= shared {
		carried++
	}
	if carried == 0 {
		return
	}
	last := end(a.recs[carried-1].v)
	// The bytes before last are a's, which were valid, and leave the
	// document's object and its history's array open: what follows is
	// checked from there.
	if jsonscan.CheckAfter(src, last, "{[") != nil {
		return jsonscan.Value{}, jsonscan.Value{}, nil, 0, rebaser{}
	}
	start := len(src) - len(strings.TrimLeft(src, " \t\r\n\ufeff"))
	root = jsonscan.Value{Raw: strings.TrimRight(src[start:], " \t\r\n"), Off: start}
	rb = rebaser{from: a.src, to: src[:shared]}
	recs = make([]record, carried, len(a.recs)+8)
	for i, r := range a.recs[:carried] {
		recs[i] = record{v: jsonscan.Value{Raw: rb.s(r.v.Raw), Off: r.v.Off}, pos: r.pos}
	}
	whole := jsonscan.Value{Raw: src[a.msgs : start+len(root.Raw)], Off: a.msgs} // the array, and what follows it
	lines := &lineCounter{src: src, off: a.recs[carried-1].v.Off, lines: a.recs[carried-1].pos.Line}
	arrayEnd := last
	whole.EachAfter(last, func(v jsonscan.Value) bool {
		recs = append(recs, record{v: v, pos: Pos{Line: lines.at(v.Off), Element: len(recs)}})
		arrayEnd = end(v)
		return true
	})
	for arrayEnd < len(src) && strings.IndexByte(" \t\r\n", src[arrayEnd]) >= 0 {
		arrayEnd++
	}
	msgs = jsonscan.Value{Raw: src[a.msgs : arrayEnd+1], Off: a.msgs} // through its ']', which the check saw
	if root.FieldsSkipping(msgs, a.key)[0].Off != a.msgs {
		// The history's field is given again further on, and the last
		// one counts: read the document anew.
		return jsonscan.Value{}, jsonscan.Value{}, nil, 0, rebaser{}
	}
	return root, msgs, recs, carried, rb
}

func end(v jsonscan.Value) int { return v.Off + len(v.Raw) }

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for step := 4096; i+step <= n && a[i:i+step] == b[i:i+step]; i += step { // strings compare a block at a time
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// rebaser makes a string that is a view of one document's shared bytes a
// view of the same bytes of the next (to): what the next transcript keeps
// must not keep the last document alive. Other strings (decoded copies)
// are left as they are.
type rebaser struct{ from, to string }

func (rb rebaser) s(x string) string {
	if len(x) == 0 || len(rb.to) == 0 {
		return x
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(rb.from)))
	p := uintptr(unsafe.Pointer(unsafe.StringData(x)))
	if p < lo || p-lo+uintptr(len(x)) > uintptr(len(rb.to)) {
		return x
	}
	off := int(p - lo)
	return rb.to[off : off+len(x)]
}

func (rb rebaser) value(v jsonscan.Value) jsonscan.Value {
	v.Raw = rb.s(v.Raw)
	return v
}

func (rb rebaser) strs(xs []string) []string {
	if len(xs) == 0 {
		return xs
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = rb.s(x)
	}
	return out
}

func (rb rebaser) blocks(bs []Block) []Block {
	if len(bs) == 0 {
		return bs
	}
	out := make([]Block, len(bs))
	for i, b := range bs {
		b.Text, b.MediaType, b.Data, b.URL = rb.s(b.Text), rb.s(b.MediaType), rb.s(b.Data), rb.s(b.URL)
		out[i] = b
	}
	return out
}

// carry makes the messages an element of a's history made, as the parse of
// that element would, and leaves the parser as that element left it. Its
// results keep how they ended (judged), and their text where a's parse
// decoded it.
func (p *parser) carry(m made) {
	rb := p.rebase
	for _, tm := range m.msgs {
		msg := p.message(tm.Role, tm.Pos)
		msg.Role, msg.Time, msg.Model, msg.Response, msg.Restart = rb.s(tm.Role), tm.Time, rb.s(tm.Model), rb.s(tm.Response), tm.Restart
		msg.Blocks = rb.blocks(tm.Blocks)
		for _, tc := range tm.Calls {
			c := &Call{Index: len(p.t.Calls), ID: rb.s(tc.ID), Name: rb.s(tc.Name), Kind: tc.Kind, Args: rebaseArgs(rb, tc.Args),
				Input: rb.s(tc.Input), InputIsText: tc.InputIsText, Message: msg, raw: rb.value(tc.raw)}
			p.t.Calls = append(p.t.Calls, c)
			msg.Calls = append(msg.Calls, c)
		}
		for _, tr := range tm.Results {
			r := p.result(msg, rb.s(tr.CallID), rebaseContent(rb, tr.content), rb.blocks(tr.Images))
			r.IsError, r.ExitCode, r.outcome = tr.IsError, tr.outcome.ExitCode, tr.outcome
			r.outcome.Reason = rb.s(tr.outcome.Reason)
			r.text, r.decoded = rb.s(tr.text), tr.decoded
			if len(tr.mirrors) > 0 {
				r.mirrors = make([]mirror, len(tr.mirrors))
				for i, mr := range tr.mirrors {
					r.mirrors[i] = mirror{field: rb.s(mr.field), value: rb.value(mr.value), start: mr.start, end: mr.end}
				}
			}
		}
	}
	p.at, p.model, p.restart, p.itemUsers = m.after.at, rb.s(m.after.model), m.after.restart, m.after.itemUsers
	p.judged = len(p.t.Results)
}

func rebaseArgs(rb rebaser, a tools.Args) tools.Args {
	a.Path, a.Paths, a.Command, a.Dir = rb.s(a.Path), rb.strs(a.Paths), rb.s(a.Command), rb.s(a.Dir)
	a.Pattern, a.URL, a.Intent, a.Subcommand = rb.s(a.Pattern), rb.s(a.URL), rb.s(a.Intent), rb.s(a.Subcommand)
	return a
}

func rebaseContent(rb rebaser, c contentRef) contentRef {
	c.value, c.key, c.textType, c.embedded = rb.value(c.value), rb.s(c.key), rb.s(c.textType), rb.s(c.embedded)
	c.keep = rb.strs(c.keep)
	return c
}

// keep takes down what the element just read made: the messages from
// index first on, copied before the passes over the whole transcript
// change them. ok is false when the element left state for those passes.
func (k *keeper) keep(p *parser, first int, ok bool) {
	m := made{ok: ok, after: carriedState{at: p.at, model: p.model, restart: p.restart, itemUsers: p.itemUsers}}
	for _, msg := range p.t.Messages[first:] {
		tm := *msg
		tm.Calls, tm.Results = nil, nil
		for _, c := range msg.Calls {
			tc := *c
			tc.Message, tc.Result, tc.Continues = nil, nil, nil
			tm.Calls = append(tm.Calls, &tc)
		}
		for _, r := range msg.Results {
			tr := *r
			tr.Message, tr.Call = nil, nil
			tr.mirrors = append([]mirror(nil), r.mirrors...) // SetMirror changes the live ones
			tm.Results = append(tm.Results, &tr)
			k.results = append(k.results, &tr)
		}
		m.msgs = append(m.msgs, &tm)
	}
	k.made = append(k.made, m)
}

// Prefix is what the parse of a document that starts with this one's
// bytes takes from this one (Options.After); nil when the parse kept
// nothing (no Options.Keep, or not a request body in a given format). It
// takes too the texts of the results that were decoded since the parse,
// as the document has them: call it once, when the work on the transcript
// is done.
func (t *Transcript) Prefix() *Prefix {
	k := t.kept
	if k == nil {
		return nil
	}
	t.kept = nil
	for j, r := range t.Results {
		tr := k.results[j]
		tr.outcome = r.outcome
		switch {
		case r.replaced:
			tr.text, tr.decoded = r.original, true
		case r.decoded:
			tr.text, tr.decoded = r.text, true
		}
	}
	return &Prefix{src: t.src, format: t.Format, tools: k.tools, key: k.key, msgs: k.msgs, recs: k.recs, made: k.made}
}

// Shared is how many bytes data shares with the start of the document
// the Prefix was kept from, up to n.
func (a *Prefix) Shared(data []byte, n int) int {
	src := unsafe.String(unsafe.SliceData(data), len(data))
	return commonPrefix(a.src[:min(n, len(a.src))], src[:min(n, len(src))])
}

// Size is the size of the document the Prefix was kept from.
func (a *Prefix) Size() int { return len(a.src) }
