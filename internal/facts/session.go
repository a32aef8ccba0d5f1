package facts

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Use is a fact the model used in a turn, which it could only have had
// from a tool result: it wrote the fact in the turn (in its text, its
// thinking or a tool call's arguments), the fact was in a tool result of
// the turn's request before anything else there showed it (what the
// user, the system or the model itself said first is not counted), and
// no user or system message of the request says it.
type Use struct {
	Fact ID
	// Tail is a path's last directory and name (a/b/c.go: b/c.go), which
	// show it too, as a list grouped by directory names it; Fact itself
	// for another fact.
	Tail ID
	// Source is the latest result of the request that shows it: the one
	// an agent that lost the fact would fetch back.
	Source *transcript.Result
}

// ID is a fact's number in its Session.
type ID int32

// Session is what the messages of a transcript show, and the facts its
// model used in each turn. Analyze makes it in one pass over the texts.
type Session struct {
	ids   map[string]ID
	names []string
	// The facts, with their forms, that each message's own text (blocks),
	// each call's arguments and each result show as written.
	blocks, calls, results [][]ID
	// The facts themselves (not their forms) that each message's own text
	// and each call's arguments say, as often as they say them.
	said, args [][]ID
	wrote      [][]ID  // by message: the facts the model wrote in it
	uses       [][]Use // by turn
	stamp      []int32 // by fact: the last set it went into
	sets       int32
	forms      [][]ID // by fact, once asked: Forms of it
}

// New is a Session that holds no transcript: for a caller that asks what
// texts say and show as it goes (Names, Shows, ArgNames, ArgShows).
func New() *Session { return &Session{ids: map[string]ID{}} }

// Analyze reads what t's messages show, and the facts its model used in
// each of turns (t.Turns()).
func Analyze(t *transcript.Transcript, turns []transcript.Turn) *Session {
	s := &Session{ids: map[string]ID{}, blocks: make([][]ID, len(t.Messages)), calls: make([][]ID, len(t.Calls)),
		results: make([][]ID, len(t.Results)), said: make([][]ID, len(t.Messages)), args: make([][]ID, len(t.Calls)),
		wrote: make([][]ID, len(t.Messages)), uses: make([][]Use, len(turns))}
	for _, m := range t.Messages {
		s.blocks[m.Index] = s.set(func(add func(string)) {
			for _, b := range m.Blocks {
				if b.Type != transcript.Image {
					Each(b.Text, add)
				}
			}
		}, &s.said[m.Index])
		for _, c := range m.Calls {
			s.calls[c.Index] = s.set(func(add func(string)) { eachInput(c.Input, c.InputIsText, add) }, &s.args[c.Index])
		}
		if m.Role == "assistant" {
			w := s.said[m.Index]
			for _, c := range m.Calls {
				w = append(w, s.args[c.Index]...)
			}
			s.wrote[m.Index] = w
		}
		for _, r := range m.Results {
			s.results[r.Index] = s.set(func(add func(string)) { Each(r.Text(), add) }, nil)
		}
	}
	s.findUses(t, turns)
	return s
}

// set is the distinct facts, with their forms, that the texts given to
// add show; the facts themselves (not their forms) go to own too, when
// not nil.
func (s *Session) set(texts func(add func(string)), own *[]ID) []ID {
	s.sets++
	var out []ID
	texts(func(f string) {
		id := s.id(f)
		if own != nil {
			*own = append(*own, id)
		}
		for _, id := range s.formsOf(id) {
			if s.stamp[id] != s.sets {
				s.stamp[id] = s.sets
				out = append(out, id)
			}
		}
	})
	return out
}

// formsOf is the IDs of a fact's forms (Forms), found once for each fact
// of a session: names recur.
func (s *Session) formsOf(id ID) []ID {
	if ids := s.forms[id]; ids != nil {
		return ids
	}
	ids := []ID{}
	Forms(s.names[id], func(p string) { ids = append(ids, s.id(p)) })
	s.forms[id] = ids
	return ids
}

// id is a fact's ID, a new one the first time.
func (s *Session) id(f string) ID {
	id, ok := s.ids[f]
	if !ok {
		id = ID(len(s.names))
		s.ids[f] = id
		s.names = append(s.names, f)
		s.stamp = append(s.stamp, 0)
		s.forms = append(s.forms, nil)
	}
	return id
}

// Names is the facts a text says (not their forms), as often as it says
// them.
func (s *Session) Names(text string) []ID {
	var out []ID
	Each(text, func(f string) { out = append(out, s.id(f)) })
	return out
}

// Shows is what a text shows: its facts and their forms, each once.
func (s *Session) Shows(text string) []ID {
	return s.set(func(add func(string)) { Each(text, add) }, nil)
}

// ArgNames is the facts a call's arguments say (not their forms): of a
// JSON object's values, not its keys.
func (s *Session) ArgNames(c *transcript.Call) []ID {
	var out []ID
	eachInput(c.Input, c.InputIsText, func(f string) { out = append(out, s.id(f)) })
	return out
}

// ArgShows is what a call's arguments show.
func (s *Session) ArgShows(c *transcript.Call) []ID {
	return s.set(func(add func(string)) { eachInput(c.Input, c.InputIsText, add) }, nil)
}

// Name is the fact an ID stands for.
func (s *Session) Name(id ID) string { return s.names[id] }

// Uses are the facts the model used in turn k.
func (s *Session) Uses(k int) []Use { return s.uses[k] }

// findUses walks the messages in order, keeping where each fact was
// first shown since the last restart, and by whom, and at the start of
// each turn takes the facts its messages wrote that only a tool result
// showed before.
func (s *Session) findUses(t *transcript.Transcript, turns []transcript.Turn) {
	wrote := s.wrote
	n := len(s.names)
	first := make([]int32, n)   // the message that first showed it, from the segment's start
	fromTool := make([]bool, n) // that message showed it in a result
	said := make([]int32, n)    // the first user or system message that said it
	source := make([]*transcript.Result, n)
	for i := range first {
		first[i], said[i] = -1, -1
	}
	seg := int32(0) // where the history sent starts: the last restart
	see := func(ids []ID, m int32, tool bool) {
		for _, id := range ids {
			if first[id] < seg {
				first[id], fromTool[id] = m, tool
			}
		}
	}
	turnAt := make(map[int]int, len(turns))
	for k, tn := range turns {
		turnAt[tn.Messages[0]] = k
	}
	s.sets++
	for _, m := range t.Messages {
		i := int32(m.Index)
		if m.Restart {
			seg = i
		}
		if k, ok := turnAt[m.Index]; ok {
			s.sets++
			for _, j := range turns[k].Messages {
				for _, id := range wrote[j] {
					if first[id] >= seg && fromTool[id] && said[id] < seg && s.stamp[id] != s.sets {
						s.stamp[id] = s.sets
						s.uses[k] = append(s.uses[k], Use{Fact: id, Tail: s.tail(id), Source: source[id]})
					}
				}
			}
		}
		for _, r := range m.Results {
			see(s.results[r.Index], i, true)
			for _, id := range s.results[r.Index] {
				source[id] = r
			}
		}
		see(s.blocks[m.Index], i, false)
		if m.Role != "assistant" {
			for _, id := range s.blocks[m.Index] {
				if said[id] < seg {
					said[id] = i
				}
			}
		}
		for _, c := range m.Calls {
			see(s.calls[c.Index], i, false)
		}
	}
}

// tail is the ID of a path's last directory and name, or of the fact.
func (s *Session) tail(id ID) ID {
	f := s.names[id]
	i := strings.LastIndexByte(f, '/')
	if i <= 0 {
		return id
	}
	j := strings.LastIndexByte(f[:i], '/')
	if j < 0 {
		return id
	}
	return s.id(f[j+1:])
}

// eachInput gives the facts of a call's arguments: of the values of a
// JSON object, not its keys; of a custom tool's text as it is.
func eachInput(in string, isText bool, fn func(string)) {
	if isText || !strings.HasPrefix(strings.TrimSpace(in), "{") {
		Each(in, fn)
		return
	}
	eachJSONValue(in, fn)
}

// eachJSONValue gives the facts of a JSON text's values: its strings,
// decoded, but those that are an object's keys, and its numbers.
func eachJSONValue(s string, fn func(string)) {
	last := 0 // the end of the last string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		Each(s[last:i], fn) // numbers and literals between strings
		end := i + 1
		for end < len(s) && s[end] != '"' {
			if s[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end+1, len(s))
		last = end
		k := end
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
			k++
		}
		if k < len(s) && s[k] == ':' {
			i = end - 1
			continue // a key
		}
		if v := s[i:end]; strings.IndexByte(v, '\\') >= 0 {
			Each(jsonscan.Value{Raw: v}.Str(), fn)
		} else {
			Each(v, fn)
		}
		i = end - 1
	}
	Each(s[last:], fn)
}

// Sent is what message m shows when its calls' arguments and its results
// are sent as input and output say (a policy's forms of them).
func (s *Session) Sent(m *transcript.Message, input func(*transcript.Call) string, output func(*transcript.Result) string) []ID {
	var out []ID
	out = append(out, s.blocks[m.Index]...)
	for _, c := range m.Calls {
		in := input(c)
		out = append(out, s.set(func(add func(string)) { eachInput(in, c.InputIsText, add) }, nil)...)
	}
	for _, r := range m.Results {
		text := output(r)
		out = append(out, s.set(func(add func(string)) { Each(text, add) }, nil)...)
	}
	return out
}

// Window is the facts one run of requests shows: the messages of the
// current request, each in the form it is sent in, counted by fact.
type Window struct {
	s      *Session
	t      *transcript.Transcript
	count  []int32
	sent   [][]ID // by message, once a policy changed it
	lo, hi int
}

// Window starts a run of t's requests.
func (s *Session) Window(t *transcript.Transcript) *Window {
	return &Window{s: s, t: t, count: make([]int32, len(s.names)), sent: make([][]ID, len(t.Messages))}
}

// Send says message m is sent from now on showing ids (Sent).
func (w *Window) Send(m *transcript.Message, ids []ID) {
	if m.Index >= w.lo && m.Index < w.hi {
		w.addMessage(m.Index, -1)
		w.add(ids, 1)
	}
	if ids == nil {
		ids = []ID{} // not as written
	}
	w.sent[m.Index] = ids
}

// Span makes the request the messages [lo, hi): lo and hi never go back.
func (w *Window) Span(lo, hi int) {
	for ; w.lo < lo; w.lo++ {
		if w.lo < w.hi {
			w.addMessage(w.lo, -1)
		}
	}
	w.hi = max(w.hi, w.lo)
	for ; w.hi < hi; w.hi++ {
		w.addMessage(w.hi, 1)
	}
}

// Shows reports whether the request shows a fact.
func (w *Window) Shows(id ID) bool { return int(id) < len(w.count) && w.count[id] > 0 }

// ShowsUse reports whether the request shows a fact used: the fact, or
// for a path its directory and name.
func (w *Window) ShowsUse(u Use) bool { return w.Shows(u.Fact) || w.Shows(u.Tail) }

// addMessage counts what message i shows now: as a policy sends it, or
// as written.
func (w *Window) addMessage(i int, d int32) {
	if ids := w.sent[i]; ids != nil {
		w.add(ids, d)
		return
	}
	m := w.t.Messages[i]
	w.add(w.s.blocks[i], d)
	for _, c := range m.Calls {
		w.add(w.s.calls[c.Index], d)
	}
	for _, r := range m.Results {
		w.add(w.s.results[r.Index], d)
	}
}

func (w *Window) add(ids []ID, d int32) {
	for _, id := range ids {
		for int(id) >= len(w.count) {
			w.count = append(w.count, 0)
		}
		w.count[id] += d
	}
}
