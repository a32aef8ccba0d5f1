package compact

import (
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/facts"
	"github.com/ctxkit/ctxkit/internal/fenwick"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// form is how a result, or a call's arguments, is sent.
type form uint8

const (
	formWhole   form = iota // as written
	formFixed               // as it came, with another filter's marker
	formCut                 // cut on arrival
	formPointer             // a pointer up at a whole read, on arrival
	formSummary             // its summary (a result) or a stub (an edit's arguments), once used
)

// unit is a result, or an edit's arguments, as the loop sends it.
type unit struct {
	r   *transcript.Result // a result, or
	c   *transcript.Call   // the arguments of an edit or a write
	msg int                // its message's index
	// turn is the model turns before it arrived: it leaves the window
	// Window turns later.
	turn int
	// tokens is the tokens of the form it is sent in; for one that came
	// with ctx-compact's own summary or stub, what that says it replaced,
	// until the loop replaces it again (see own).
	tokens int
	text   *string // its text when it is not the transcript's
	form   form
	// own says it came with ctx-compact's summary or stub: the loop sends
	// it as the whole it replaced until it decides, as it did then, to
	// replace it; its text stays.
	own bool
	// summary and sumTokens are its replacement, made once it leaves the
	// window (tried).
	summary   string
	sumTokens int
	tried     bool
	pinned    bool // a pointer points at it: it stays as it is
	// referred says the model wrote a fact the result shows, as it
	// arrived, while it was in the window (KeepReferred); left, that it
	// left the window.
	referred, left bool
}

// Loop is the compaction of one session, advanced message by message: its
// state after a history is the same whether the history was given at once
// or request by request.
type Loop struct {
	f      *Filter
	t      *transcript.Transcript
	sum    summarize.Summarizer
	handle func(*transcript.Result) string
	tally  stats.Tally
	msgs   fenwick.Tree // the tokens each message is sent in
	units  []*unit      // in the order they arrived
	byRes  []*unit      // by result index, once arrived
	byCall []*unit      // by call index: the arguments that may be stubbed
	reads  *dedupe.Arrivals
	starts []bool // by message index: a model turn starts there
	byID   map[string]*unit
	rates  map[string]pricing.Rates

	next     int // the next message to take
	turns    int // the model turns taken
	requests int // the requests decided
	decided  int // the message the last request ended before; -1 before any
	prevEnd  int // where the last request's history ended
	young    []*unit
	pending  []*unit // out of the window, not yet replaced, in the order of the history
	emit     func(replay.Change)

	// With KeepReferred: the facts the results that may be kept show and
	// the model wrote, and the results still in the window that show each.
	facts *facts.Session
	shows map[facts.ID][]*unit
}

// Start begins the compaction of t, a session as a live loop sees it.
func (f *Filter) Start(t *transcript.Transcript) *Loop {
	return f.start(t, stats.Count(t, f.opts.Counter))
}

// start is Start with t's tally, counted with the filter's counter.
func (f *Filter) start(t *transcript.Transcript, tally stats.Tally) *Loop {
	l := &Loop{f: f, t: t, tally: tally, decided: -1,
		starts: make([]bool, len(t.Messages)), byID: map[string]*unit{}, rates: map[string]pricing.Rates{}}
	if f.opts.Handle != nil {
		l.handle = func(r *transcript.Result) string { return f.opts.Handle(t, r) }
	}
	l.sum = f.sum(t.Cwd, l.handle)
	l.byRes = make([]*unit, len(t.Results))
	l.byCall = make([]*unit, len(t.Calls))
	if f.dedupe != nil {
		l.reads = f.dedupe.Arrivals(t)
	}
	tokens := make([]int, len(t.Messages))
	for i, m := range t.Messages {
		tokens[i] = l.tally.Message(m)
	}
	l.msgs = fenwick.New(tokens)
	for _, tn := range t.Turns() {
		l.starts[tn.Messages[0]] = true
	}
	if f.opts.KeepReferred > 0 {
		l.facts, l.shows = facts.New(), map[facts.ID][]*unit{}
	}
	return l
}

// Advance takes the history up to message n (exclusive): it takes each
// message once, decides at the start of each model turn what the request
// for it sends, and decides at n the request that n ends. changed, when
// not nil, is called for every message whose tokens the loop changes, with
// the tokens it is sent in from then on. n must be the start of a model
// turn or the end of the transcript for the state to be that of the
// history before n (a request's history ends there); it may not go back.
func (l *Loop) Advance(n int, changed func(replay.Change)) {
	l.emit = changed
	defer func() { l.emit = nil }()
	for ; l.next < n; l.next++ {
		i := l.next
		if l.starts[i] && l.decided < i {
			l.decide(i)
		}
		l.take(l.t.Messages[i])
	}
	if l.decided < n {
		l.decide(n)
	}
}

// take takes one message: its results, and its edits' arguments, arrive
// in the form they are sent in from now on.
func (l *Loop) take(m *transcript.Message) {
	if m.Restart {
		// What came before is not sent again: not replaced, and no base
		// of a pointer.
		l.young, l.pending = nil, nil
		clear(l.shows)
		if l.reads != nil {
			l.reads = l.f.dedupe.Arrivals(l.t)
		}
	}
	if l.starts[m.Index] {
		l.turns++
	}
	for _, c := range m.Calls {
		if u := l.arriveCall(c); u != nil {
			l.byCall[c.Index] = u
			l.add(u)
		}
	}
	for _, r := range m.Results {
		u := l.arriveResult(r)
		l.byRes[r.Index] = u
		if r.CallID != "" {
			l.byID[r.CallID] = u
		}
		l.add(u)
		l.index(u)
	}
	if l.facts != nil && m.Role == "assistant" {
		l.refer(m)
	}
}

// index files a result that may be kept when referred to under the facts
// it shows as it arrived (whole or cut), and a read's also under its
// file's path.
func (l *Loop) index(u *unit) {
	if l.facts == nil || u.own || u.form != formWhole && u.form != formCut || u.tokens > l.f.opts.KeepReferred {
		return
	}
	ids := l.facts.Shows(l.current(u))
	if c := u.r.Call; c != nil && c.Kind == tools.Read {
		ids = append(ids, l.facts.ArgShows(c)...)
	}
	for _, id := range ids {
		l.shows[id] = append(l.shows[id], u)
	}
}

// refer marks the results in the window that show a fact the model wrote
// in m as referred to. What counts is what a second run over the output
// reads the same: the message's text and thinking, the arguments of
// calls, but of an edit's or a write's (which may be sent as a stub) only
// its file.
func (l *Loop) refer(m *transcript.Message) {
	mark := func(ids []facts.ID) {
		for _, id := range ids {
			us := l.shows[id]
			if len(us) == 0 {
				continue
			}
			keep := us[:0] // those out of the window need no mark: forgotten
			for _, u := range us {
				if !u.left {
					u.referred = true
					keep = append(keep, u)
				}
			}
			if len(keep) == 0 {
				delete(l.shows, id)
			} else {
				l.shows[id] = keep
			}
		}
	}
	for _, b := range m.Blocks {
		if b.Type != transcript.Image {
			mark(l.facts.Names(b.Text))
		}
	}
	for _, c := range m.Calls {
		if l.byCall[c.Index] == nil {
			mark(l.facts.ArgNames(c))
		} else if f := c.Args.File(l.t.Cwd); f != "" {
			mark(l.facts.Names(f))
		}
	}
}

func (l *Loop) add(u *unit) {
	u.msg, u.turn = l.msgOf(u), l.turns
	l.units = append(l.units, u)
	l.young = append(l.young, u)
}

func (l *Loop) msgOf(u *unit) int {
	if u.r != nil {
		return u.r.Message.Index
	}
	return u.c.Message.Index
}

// arriveCall takes the arguments of an edit or a write, or of a command
// that writes a file through a heredoc, which may later be sent without
// the text they changed; nil for any other call.
func (l *Loop) arriveCall(c *transcript.Call) *unit {
	writes := c.Kind == tools.Edit || c.Kind == tools.Write || strings.Contains(c.Args.Command, "<<")
	if !writes || !c.CanSetInput() || l.f.opts.KeepEdits {
		return nil
	}
	u := &unit{c: c, tokens: l.tally.Calls[c.Index]}
	if tokens, ok := ownStubTokens(c.Input); ok {
		u.own, u.tried = true, true
		u.summary, u.sumTokens = c.Input, u.tokens
		l.resize(u, tokens)
	} else if tools.IsStub(c.Input) {
		u.form = formFixed
	}
	return u
}

// arriveResult decides the form a new result is sent in.
func (l *Loop) arriveResult(r *transcript.Result) *unit {
	u := &unit{r: r, tokens: l.tally.Results[r.Index]}
	text := r.Text()
	if tokens, ok := ownTokens(text); ok {
		u.own, u.tried = true, true
		u.summary, u.sumTokens = text, u.tokens
		l.resize(u, tokens)
		if l.reads != nil {
			l.reads.Replaced(r)
		}
		return u
	}
	if l.reads != nil {
		if c, ok := l.reads.Next(r, l.whole); ok {
			l.set(u, formPointer, c.Text, l.f.opts.Counter.Count(c.Text)+stats.ImageTokens(r))
			l.byRes[c.Base.Index].pinned = true
			return u
		}
	}
	if marker.OnResult(r) {
		u.form = formFixed
		for _, id := range marker.Refs(text) {
			if b := l.byID[id]; b != nil {
				b.pinned = true
			}
		}
		return u
	}
	if marker.IsCut(text) {
		u.form = formCut // cut before (by this filter, or ctx-truncate): no base for a pointer
		return u
	}
	if c := r.Call; l.f.cut != nil && c != nil && l.f.cut.Cuts(c.Name, c.Kind, c.Args) {
		rules := l.f.cutRules
		rules.Failed, rules.Kind = r.Failed(), c.Kind
		if len(text) > rules.Max {
			rules.Handle = l.f.opts.Handle.Of(l.t, r)
		}
		if cut, ok := truncate.Cut(text, rules); ok {
			l.set(u, formCut, cut, l.f.opts.Counter.Count(cut)+stats.ImageTokens(r))
		}
	}
	return u
}

// whole reports whether a result that arrived is sent as the tool wrote
// it: a pointer may point at it.
func (l *Loop) whole(r *transcript.Result) bool {
	u := l.byRes[r.Index]
	return u != nil && u.form == formWhole && !u.own
}

// decide decides what the request whose history ends before message n
// sends: of what left the window, what is replaced when the cost model
// says it pays.
func (l *Loop) decide(n int) {
	l.decided = n
	l.requests++
	for len(l.young) > 0 && l.turns-l.young[0].turn >= l.f.opts.Window {
		u := l.young[0]
		l.young = l.young[1:]
		u.left = true
		if !l.kept(u) && l.candidate(u, n) {
			l.pending = append(l.pending, u)
		}
	}
	// A pointer that arrived since may pin a pending unit: it stays.
	l.pending = slices.DeleteFunc(l.pending, func(u *unit) bool { return u.pinned })
	if best := l.best(n); best >= 0 {
		for _, u := range l.pending[best:] {
			l.replace(u)
		}
		l.pending = l.pending[:best]
	}
	l.prevEnd = n
}

// kept reports whether a result out of the window stays whole for good
// for what it is still worth to the agent: a read (KeepReads), or a short
// one the model referred to (KeepReferred). One that came replaced was
// not kept by the run that replaced it.
func (l *Loop) kept(u *unit) bool {
	if u.r == nil || u.own {
		return false
	}
	if c := u.r.Call; l.f.opts.KeepReads && c != nil && c.Kind == tools.Read {
		return true
	}
	return u.referred && u.tokens <= l.f.opts.KeepReferred
}

// candidate reports whether a unit out of the window may be replaced at
// all, and makes its replacement: a result or an edit's arguments sent as
// written (or cut), of a call that did not fail, not pointed at, whose
// replacement has fewer tokens.
func (l *Loop) candidate(u *unit, n int) bool {
	if u.pinned || (u.form != formWhole && u.form != formCut) {
		return false
	}
	c := u.c
	if u.r != nil {
		c = u.r.Call
	}
	switch {
	case u.own:
		return true
	case c == nil || c.Result == nil || c.Result.Message.Index >= n || !c.Result.OK():
		return false // no call, no result yet, or it failed: its text is what the agent must see
	}
	if !u.tried {
		u.tried = true
		var s string
		var ok bool
		switch {
		case u.c != nil:
			s, ok = l.stub(u)
		case c.Kind == tools.Edit || c.Kind == tools.Write:
			if !l.f.opts.KeepEdits {
				s, ok = editSummary(u.r, l.current(u), l.handle)
			}
		default:
			s, ok = l.sum.Summarize(c, l.current(u))
		}
		if !ok {
			return false
		}
		if u.r != nil {
			u.summary = summaryText(s, u.tokens)
			u.sumTokens = l.f.opts.Counter.Count(u.summary) + stats.ImageTokens(u.r)
		} else {
			u.summary, u.sumTokens = s, l.f.opts.Counter.Count(s)
		}
	}
	return u.sumTokens < u.tokens
}

// current is the text a result is sent in now.
func (l *Loop) current(u *unit) string {
	if u.text != nil {
		return *u.text
	}
	return u.r.Text()
}

// best is where the units to replace start among the pending ones, or -1
// for none. Replacing the pending units from one on makes every token
// after the first of them a cache write on this request instead of a
// read; what they save is read on every later request. The point with the
// greatest net worth wins, if it is worth anything.
func (l *Loop) best(n int) int {
	if len(l.pending) == 0 {
		return -1
	}
	r := l.ratesAt(n)
	write := r.CacheWrite
	if l.f.opts.HourCache {
		write = r.CacheWrite1h
	}
	read := r.CacheRead
	later := l.f.opts.Horizon * float64(l.requests) // requests expected after this one
	best, at := 0.0, -1
	saved := 0
	for i := len(l.pending) - 1; i >= 0; i-- {
		u := l.pending[i]
		saved += u.tokens - u.sumTokens
		rewritten := l.msgs.Sum(u.msg, l.prevEnd)
		worth := (read*later+write)*float64(saved) - (write-read)*float64(rewritten)
		if worth > best {
			best, at = worth, i
		}
	}
	return at
}

// ratesAt is the rates of the model at work before message n.
func (l *Loop) ratesAt(n int) pricing.Rates {
	model := l.f.opts.Model
	if model == "" && n > 0 {
		model = l.t.Messages[n-1].Model
	}
	r, ok := l.rates[model]
	if !ok {
		p, _ := l.f.prices.For(model, l.t.Format)
		r = p.Rates
		l.rates[model] = r
	}
	return r
}

// replace sends a unit as its summary, or stub, from now on.
func (l *Loop) replace(u *unit) {
	if u.own {
		u.form = formSummary
		l.resize(u, u.sumTokens)
		return
	}
	l.set(u, formSummary, u.summary, u.sumTokens)
}

// set gives a unit a new form.
func (l *Loop) set(u *unit, f form, text string, tokens int) {
	u.form, u.text = f, &text
	l.resize(u, tokens)
}

// resize records the tokens a unit is sent in.
func (l *Loop) resize(u *unit, tokens int) {
	m := l.msgOf(u)
	l.msgs.Add(m, tokens-u.tokens)
	u.tokens = tokens
	if l.emit != nil && !u.own { // an own unit's tokens are what it replaced, not what is sent
		l.emit(replay.Change{Message: l.t.Messages[m], Tokens: l.msgs.Sum(m, m+1), Input: l.input, Output: l.output})
	}
}

// input is the text a call's arguments are sent in now.
func (l *Loop) input(c *transcript.Call) string {
	if u := l.byCall[c.Index]; u != nil {
		return u.sent()
	}
	return c.Input
}

// output is the text a result is sent in now.
func (l *Loop) output(r *transcript.Result) string {
	if u := l.byRes[r.Index]; u != nil {
		return u.sent()
	}
	return r.Text()
}

// sent is the text a unit is sent in now.
func (u *unit) sent() string {
	switch {
	case u.text != nil:
		return *u.text
	case u.c != nil:
		return u.c.Input
	}
	return u.r.Text()
}
