package changelog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/patch"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Options control what Analyze records.
type Options struct {
	Diff    bool // each change's unified diff
	Context bool // the assistant's words before each call
}

// History is one transcript's reads, edits and writes, in order.
type History struct {
	Session Session
	// Changes are every read, edit and write of a file, failed ones too,
	// in the order of the calls; a call that changes several files gives
	// a Change for each, in the order it names them.
	Changes []Change
}

// Analyze replays a transcript's reads, edits and writes. source names the
// input it came from.
func Analyze(t *transcript.Transcript, source string, opts Options) *History {
	h := &History{Session: Session{ID: t.SessionID, Source: source, Format: string(t.Format), Cwd: t.Cwd}}
	r := newReplayer(t, opts)
	r.run(func(_ *transcript.Call, changes []Change) bool {
		h.Changes = append(h.Changes, changes...)
		return true
	})
	return h
}

// At returns the content of the file p (as the session names it) after the
// call callID, replayed from the last full content before it (a write, a
// create, a whole read) through every later successful change. The error
// says plainly why when it cannot: the call is not there or does not touch
// the file, no full content comes before it, or a change cannot be
// replayed.
func At(t *transcript.Transcript, p, callID string) (string, error) {
	r := newReplayer(t, Options{})
	found, touched := false, false
	r.run(func(c *transcript.Call, changes []Change) bool {
		if c.ID != callID {
			return true
		}
		found = true
		for _, ch := range changes {
			touched = touched || ch.Path == p || ch.To == p
		}
		return false
	})
	switch {
	case !found:
		return "", fmt.Errorf("no call %s reads, edits or writes a file in the transcript", callID)
	case !touched:
		return "", fmt.Errorf("call %s does not read, edit or write %s", callID, p)
	}
	st := r.files[p]
	switch {
	case st == nil || st.gone != "":
		if st != nil {
			return "", fmt.Errorf("%s does not exist after call %s: %s", p, callID, st.gone)
		}
		return "", fmt.Errorf("%s does not exist after call %s: it was moved away", p, callID)
	case !st.known && st.why == "":
		return "", fmt.Errorf("cannot show %s after call %s: no write, create or whole read of it comes first", p, callID)
	case !st.known:
		return "", fmt.Errorf("cannot show %s after call %s: %s", p, callID, st.why)
	}
	return st.content, nil
}

// fileState is what the replay knows of a file.
type fileState struct {
	content string
	known   bool
	why     string // when not known after having been: why
	gone    string // when deleted: by which call
	last    string // the call that last read it whole or changed it
	// undo holds the content before each edit, for undo_edit.
	undo []undoEntry
	// shown is the last window of it that SWE-agent's viewer showed
	// (open, goto, scroll, an edit's output), nil when a change since may
	// have moved its lines: the lines an edit of lines N:M replaces, when
	// the content is not known.
	shown *outcome.Window
}

type undoEntry struct {
	content string
	known   bool
}

type replayer struct {
	t     *transcript.Transcript
	opts  Options
	turns []int // by message index
	files map[string]*fileState
}

func newReplayer(t *transcript.Transcript, opts Options) *replayer {
	r := &replayer{t: t, opts: opts, turns: make([]int, len(t.Messages)), files: map[string]*fileState{}}
	turn := 0
	for i, m := range t.Messages {
		if m.IsUserTurn() {
			turn++
		}
		r.turns[i] = turn
	}
	return r
}

func (r *replayer) file(p string) *fileState {
	st := r.files[p]
	if st == nil {
		st = &fileState{}
		r.files[p] = st
	}
	return st
}

// run replays every call in order and gives visit each call's Changes once
// the files' states include them; it stops when visit returns false.
func (r *replayer) run(visit func(*transcript.Call, []Change) bool) {
	for _, c := range r.t.Calls {
		if c.Continues != nil {
			continue // more output of a call above, not an action of its own
		}
		var changes []Change
		switch c.Kind {
		case tools.Read:
			if p := c.Args.File(r.t.Cwd); p != "" {
				changes = []Change{r.read(c, p)}
			}
		case tools.Edit, tools.Write:
			for _, fc := range changesOf(c, r.t.Cwd) {
				changes = append(changes, r.change(c, fc))
			}
		default:
			for _, fc := range removalsOf(c, r.t.Cwd) {
				changes = append(changes, r.change(c, fc))
			}
		}
		if len(changes) > 0 && !visit(c, changes) {
			return
		}
	}
}

// base is a Change's fields that come from its call.
func (r *replayer) base(c *transcript.Call, p string, action Action) Change {
	ch := Change{CallID: c.ID, Tool: c.Name, Action: action, Path: p, Intent: c.Args.Intent}
	if c.Message != nil {
		ch.Turn = r.turns[c.Message.Index]
	}
	if r.opts.Context {
		ch.Context = contextOf(r.t, c)
	}
	o := c.Outcome()
	ch.End, ch.Failed = o.End, o.Failed()
	switch {
	case o.End == outcome.NoResult:
		ch.Error = "no result in the transcript"
	case o.End != outcome.OK:
		ch.Error = o.Message(c.Last().Text())
	}
	return ch
}

func (r *replayer) read(c *transcript.Call, p string) Change {
	ch := r.base(c, p, Read)
	ch.Range = c.Args.Range.String()
	ch.Counted = true
	st := r.file(p)
	switch content, ok := fullRead(r.t, c); {
	case !ch.Applied():
		ch.Description = ch.End.String()
	case ok:
		ch.FullContent = true
		ch.Description = "the whole file, " + lines(patch.CountLines(content))
		if st.known && content != st.content {
			// A formatter, a hook or a command changed it: the read wins.
			ch.ChangedOutside = true
			ch.Description += "; changed since call " + st.last + " by something other than the edits in the transcript"
		}
		*st = fileState{content: content, known: true, last: c.ID, undo: st.undo}
	case ch.Range != "":
		ch.Description = ch.Range
	default:
		ch.Description = "the whole file, but not its full content"
	}
	if ch.Applied() {
		r.see(st, c, p)
	}
	return ch
}

// see keeps the window of the file p that a call's output shows, if any.
func (r *replayer) see(st *fileState, c *transcript.Call, p string) {
	st.shown = nil
	if r.t.Format != transcript.SWEAgent || c.Result == nil {
		return
	}
	if w, ok := outcome.ParseWindow(c.Result.Text()); ok && tools.NormPath(w.Path, "", r.t.Cwd) == p {
		st.shown = &w
	}
}

// shownPieces is what an edit of lines N:M replaced, when the window the
// viewer last showed of the file holds those lines.
func shownPieces(st *fileState, fc fileChange) []piece {
	o, ok := fc.op.(linesOp)
	w := st.shown
	if !ok || w == nil || o.from < w.First || o.to > w.Last || o.to < o.from {
		return nil
	}
	old := strings.Join(w.Lines[o.from-w.First:o.to-w.First+1], "\n") + "\n"
	return []piece{{old: old, new: o.text}}
}

func (r *replayer) change(c *transcript.Call, fc fileChange) Change {
	ch := r.base(c, fc.path, fc.action)
	ch.To = fc.to
	_, seen := r.files[fc.path]
	st := r.file(fc.path)
	if ch.Action == Write && c.Result != nil {
		// Claude Code's Write says whether the file is new.
		first, _, _ := strings.Cut(c.Result.Text(), "\n")
		if strings.HasPrefix(first, "File created") {
			ch.Action = Create
		}
		seen = seen || strings.HasPrefix(first, "The file ") && strings.Contains(first, " has been updated")
	}
	if !ch.Applied() {
		m := measurePieces(fc.path, fc.to, ch.Action, fc.op.pieces(), false)
		ch.Added, ch.Removed, ch.Counted = m.added, m.removed, m.counted && fc.op.pieces() != nil
		ch.In, ch.Adds, ch.Removes = m.loc.in, m.loc.adds, m.loc.removes
		ch.Description = describeChange(&ch, fc, false, "")
		return ch
	}

	_, sets := fc.op.(setOp)
	ch.FullContent = sets || ch.Action == Create
	before, beforeKnown := st.content, st.known || ch.Action == Create
	if ch.Action == Create {
		before = ""
	}
	after, afterKnown, why := r.apply(c, fc, st, before, beforeKnown)
	pieces := fc.op.pieces()
	if pieces == nil && !beforeKnown {
		pieces = shownPieces(st, fc)
	}
	var m measure
	switch {
	case beforeKnown && afterKnown:
		m = measureFull(fc.path, fc.to, ch.Action, before, after, r.opts.Diff)
	case pieces != nil:
		m = measurePieces(fc.path, fc.to, ch.Action, pieces, r.opts.Diff)
		m.counted = m.counted && ch.Action != Write // lines replaced unknown
	}
	ch.Added, ch.Removed, ch.Counted, ch.Diff = m.added, m.removed, m.counted, m.diff
	ch.In, ch.Adds, ch.Removes = m.loc.in, m.loc.adds, m.loc.removes
	reason := why
	switch u, ok := fc.op.(unknownOp); {
	case ok:
		reason = u.why
	case !beforeKnown && !seen && ch.Action == Write:
		reason = "the transcript does not show whether the file existed before"
	case !beforeKnown:
		reason = "the content before is not in the transcript"
	}
	ch.Description = describeChange(&ch, fc, beforeKnown, reason)

	// The file's state after the change. Only a tool that can undo its
	// edits (str_replace_editor) has them remembered.
	_, undoes := fc.op.(undoOp)
	if tools.HasUndo(c.Name) && !undoes {
		st.undo = append(st.undo, undoEntry{content: before, known: beforeKnown})
	}
	if afterKnown {
		st.content, st.known, st.why = after, true, ""
	} else {
		st.known = false
		if why != "" {
			st.why = why
		}
	}
	r.see(st, c, fc.path)
	st.gone, st.last = "", c.ID
	switch ch.Action {
	case Delete:
		st.gone = "call " + c.ID + " deleted it"
	case Move:
		moved := *st
		r.files[fc.to] = &moved
		*st = fileState{gone: "call " + c.ID + " moved it to " + fc.to}
	}
	return ch
}

// apply replays a successful change on the content before it; why says
// what stopped the replay when the content after is not known.
func (r *replayer) apply(c *transcript.Call, fc fileChange, st *fileState, before string, known bool) (string, bool, string) {
	if o, ok := fc.op.(setOp); ok {
		return o.content, true, ""
	}
	if p, ok := fc.op.(patchOp); ok && p.f.Op == patch.Add {
		return p.f.Content, true, ""
	}
	if _, ok := fc.op.(undoOp); ok {
		if n := len(st.undo); n > 0 {
			u := st.undo[n-1]
			st.undo = st.undo[:n-1]
			if u.known {
				return u.content, true, ""
			}
		}
		return "", false, fmt.Sprintf("call %s (%s) undid an edit whose content before is not known", c.ID, c.Name)
	}
	if !known {
		return "", false, ""
	}
	after, err := fc.op.apply(before)
	if err == nil {
		return after, true, ""
	}
	turn := ""
	if c.Message != nil {
		turn = fmt.Sprintf(", turn %d", r.turns[c.Message.Index])
	}
	if errors.Is(err, errUnknown) {
		return "", false, fmt.Sprintf("call %s (%s%s) cannot be replayed: %v", c.ID, c.Name, turn, err)
	}
	return "", false, fmt.Sprintf("call %s (%s%s) cannot be replayed: %v in the content replayed so far", c.ID, c.Name, turn, err)
}

// contextOf is the assistant's words just before a call: the text of its
// own message, else of the nearest assistant message before it with text,
// not looking past a tool result or a user's turn.
func contextOf(t *transcript.Transcript, c *transcript.Call) string {
	if c.Message == nil {
		return ""
	}
	for i := c.Message.Index; i >= 0; i-- {
		m := t.Messages[i]
		if m.Role != "assistant" || len(m.Results) > 0 {
			return ""
		}
		var parts []string
		for _, b := range m.Blocks {
			if b.Type == transcript.Text && strings.TrimSpace(b.Text) != "" {
				parts = append(parts, strings.TrimSpace(b.Text))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n\n")
		}
	}
	return ""
}
