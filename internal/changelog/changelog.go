// Package changelog tells what an agent changed, file by file: every edit
// and write call of a transcript with what it changed (lines added and
// removed, the function or heading it touched, its diff) and why (the
// call's intent argument, the assistant's words before it), and every
// file's timeline of reads, edits and writes, replayed to show the file as
// it stood after any call. It is pure: a transcript in, a Report out; the
// Report renders as Markdown and is ctx-changelog's --json schema.
package changelog

import "github.com/ctxkit/ctxkit/internal/outcome"

// SchemaVersion is the version of the --json schema; it changes only when a
// field changes meaning or goes away. 2: a change says how its call ended
// (end), and the changes not made are listed as not_applied and counted by
// how their calls ended.
const SchemaVersion = 2

// Action is what a call did to a file.
type Action string

// The actions.
const (
	Read   Action = "read"
	Create Action = "create" // a new file
	Write  Action = "write"  // the whole content replaced
	Edit   Action = "edit"   // part of the content changed
	Delete Action = "delete"
	Move   Action = "move" // renamed, perhaps edited too
)

// Report is ctx-changelog's output: a changelog (or a file's timeline)
// per session, or one for all sessions merged.
type Report struct {
	Version int `json:"version"`
	// File is the file whose timeline this is; "" for a changelog.
	File       string      `json:"file,omitempty"`
	Changelogs []Changelog `json:"changelogs"`
	Totals     Totals      `json:"totals"`
}

// Changelog is the changes of one session (or of several, merged), by file.
type Changelog struct {
	Sessions []Session `json:"sessions"`
	Files    []File    `json:"files"`
	// NotApplied are the edits and writes whose call did not end ok
	// (failed, denied, cancelled or without a result), when asked for.
	NotApplied []Change `json:"not_applied,omitempty"`
	Totals     Totals   `json:"totals"`
}

// Session is one transcript.
type Session struct {
	ID     string `json:"id"`     // the session's id; "" when the transcript has none
	Source string `json:"source"` // the file it was read from; "<stdin>"
	Format string `json:"format"`
	Cwd    string `json:"cwd"`
}

// Name is how reports name the session: its id, else its source.
func (s Session) Name() string {
	if s.ID != "" {
		return s.ID
	}
	return s.Source
}

// File is the changes of one file, in order.
type File struct {
	Path    string   `json:"path"`
	Changes []Change `json:"changes"`
	Totals  Totals   `json:"totals"`
	// Temporary: the session created the file and removed it, so nothing
	// of it remains: it is not among the files changed.
	Temporary bool `json:"created_and_removed,omitempty"`
}

// Change is one call's read, edit or write of one file.
type Change struct {
	Session string `json:"session,omitempty"` // its session's name, in a merged report
	CallID  string `json:"call_id"`
	Tool    string `json:"tool"`
	Turn    int    `json:"turn"` // the user turn it belongs to; 0 before the first
	Action  Action `json:"action"`
	Path    string `json:"path"`
	To      string `json:"to,omitempty"` // a move's new path
	// Range is the lines a read covers ("lines 1-40"); "" for the whole file.
	Range string `json:"range,omitempty"`
	// FullContent: the call gave the file's whole content (a write, a
	// create, a whole read), from which --at replays.
	FullContent bool `json:"full_content"`
	// ChangedOutside: a whole read shows content other than the replay of
	// the calls before it: something else (a formatter, a hook, a command)
	// changed the file.
	ChangedOutside bool `json:"changed_outside,omitempty"`
	Added          int  `json:"added"`
	Removed        int  `json:"removed"`
	// Counted: Added and Removed are known. A change the call does not
	// show (an unparsed sed script, a patch read from a file) is not.
	Counted bool `json:"counted"`
	// In are the functions, types or headings the change is in; Adds and
	// Removes the ones it adds or removes whole.
	In      []string `json:"in,omitempty"`
	Adds    []string `json:"adds,omitempty"`
	Removes []string `json:"removes,omitempty"`
	// Description says what changed, derived from the change itself.
	Description string `json:"description"`
	// Intent is the call's stated intent: its intent argument, or for a
	// tool without one its description or explanation.
	Intent string `json:"intent,omitempty"`
	// Context is the assistant's words just before the call (--context).
	Context string `json:"context,omitempty"`
	// Diff is the change as a unified diff (--diff). Its line numbers are
	// the file's when the content before is known, else they count from
	// the start of the change's own text.
	Diff string `json:"diff,omitempty"`
	// End is how the call ended (outcome.End): only a call that ended ok
	// changed the file. Failed is End == failed; Error says how a call
	// that did not end ok ended.
	End    outcome.End `json:"end"`
	Failed bool        `json:"failed"`
	Error  string      `json:"error,omitempty"`
}

// Applied reports whether the call ended ok: the change was made.
func (c Change) Applied() bool { return c.End == outcome.OK }

// Totals count changes: those made, and the calls that made none by how
// they ended.
type Totals struct {
	Files     int `json:"files"` // changed: not counting those created and removed
	Changes   int `json:"changes"`
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Uncounted int `json:"uncounted"` // changes whose lines are not known
	Failed    int `json:"failed"`
	Denied    int `json:"denied,omitempty"`
	Cancelled int `json:"cancelled,omitempty"`
	NoResult  int `json:"no_result,omitempty"`
	// Temporary counts the files created and removed.
	Temporary int `json:"created_and_removed,omitempty"`
	Reads     int `json:"reads,omitempty"` // in a timeline
}

// NotApplied counts the calls that made no change.
func (t Totals) NotApplied() int { return t.Failed + t.Denied + t.Cancelled + t.NoResult }

func (t *Totals) add(c Change) {
	switch {
	case c.End == outcome.Failed:
		t.Failed++
	case c.End == outcome.Denied:
		t.Denied++
	case c.End == outcome.Cancelled:
		t.Cancelled++
	case c.End == outcome.NoResult:
		t.NoResult++
	case c.Action == Read:
		t.Reads++
	default:
		t.Changes++
		t.Added += c.Added
		t.Removed += c.Removed
		if !c.Counted {
			t.Uncounted++
		}
	}
}

func (t *Totals) merge(o Totals) {
	t.Files += o.Files
	t.Changes += o.Changes
	t.Added += o.Added
	t.Removed += o.Removed
	t.Uncounted += o.Uncounted
	t.Failed += o.Failed
	t.Denied += o.Denied
	t.Cancelled += o.Cancelled
	t.NoResult += o.NoResult
	t.Temporary += o.Temporary
	t.Reads += o.Reads
}
