package changelog

import (
	"cmp"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/patch"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// fileChange is what one edit or write call does to one file.
type fileChange struct {
	path   string // normalised as tools.Args.File does
	to     string // a move's new path
	action Action
	op     op
	all    bool // a replacement of every occurrence
}

// changesOf reads what an edit or write call changes, file by file: the
// change internal/tools decodes from its arguments, made an op that replays.
func changesOf(c *transcript.Call, cwd string) []fileChange {
	norm := func(p string) string { return tools.NormPath(p, c.Args.Dir, cwd) }
	one := func(action Action, o op) []fileChange {
		return []fileChange{{path: cmp.Or(norm(c.Args.Path), noPath), action: action, op: o}}
	}
	ch := tools.ChangeOf(c.Kind, c.Args, c.Input)
	switch ch.Op {
	case tools.EditPatch:
		return patchChanges(c, ch.Text, norm)
	case tools.EditContent:
		return one(Write, setOp{content: ch.Text})
	case tools.EditCreate:
		return one(Create, setOp{content: ch.Text})
	case tools.EditAppend:
		return one(Edit, appendOp{text: ch.Text})
	case tools.EditInsert:
		return one(Edit, insertOp{line: ch.Line, text: ch.Text})
	case tools.EditLines:
		return one(Edit, linesOp{from: ch.Lines.Start, to: ch.Lines.End, text: ch.Text})
	case tools.EditUndo:
		return one(Edit, undoOp{})
	case tools.EditReplace:
		rs := make(replaceOp, len(ch.Replacements))
		all := false
		for i, r := range ch.Replacements {
			rs[i] = replacement{old: r.Old, new: r.New, all: r.All}
			all = all || r.All
		}
		out := one(Edit, rs)
		out[0].all = all
		return out
	case tools.EditSed:
		s, err := patch.ParseSed(ch.Sed)
		if err != nil {
			return unknownChanges(c, norm, "ctx-changelog cannot follow this sed script: "+err.Error())
		}
		out := make([]fileChange, len(s.Files))
		for i, f := range s.Files {
			out[i] = fileChange{path: norm(f), action: Edit, op: sedOp{s}}
		}
		return out
	}
	return unknownChanges(c, norm, ch.Why)
}

// removalsOf reads the files a shell command removes (rm, git rm).
func removalsOf(c *transcript.Call, cwd string) []fileChange {
	if c.Args.Command == "" {
		return nil
	}
	var out []fileChange
	for _, p := range tools.Removed(c.Args.Command) {
		out = append(out, fileChange{path: tools.NormPath(p, c.Args.Dir, cwd), action: Delete, op: deleteOp{}})
	}
	return out
}

func unknownChanges(c *transcript.Call, norm func(string) string, why string) []fileChange {
	action := Edit
	if c.Kind == tools.Write {
		action = Write
	}
	paths := c.Args.Paths
	if len(paths) == 0 {
		paths = []string{c.Args.Path}
	}
	out := make([]fileChange, len(paths))
	for i, p := range paths {
		out[i] = fileChange{path: cmp.Or(norm(p), noPath), action: action, op: unknownOp{why: why}}
	}
	return out
}

// noPath stands for the file of a change whose call names none.
const noPath = "(no path)"

// patchChanges reads the apply_patch envelope or unified diff of a call.
func patchChanges(c *transcript.Call, text string, norm func(string) string) []fileChange {
	parse := patch.ParseUnified
	if patch.IsEnvelope(text) {
		parse = patch.ParseEnvelope
	}
	files, err := parse(text)
	if err != nil {
		return unknownChanges(c, norm, "ctx-changelog cannot read this patch: "+err.Error())
	}
	out := make([]fileChange, len(files))
	for i, f := range files {
		ch := fileChange{path: norm(f.Path), action: Edit, op: patchOp{f}}
		switch {
		case f.Op == patch.Add:
			ch.action = Create
		case f.Op == patch.Delete:
			ch.action, ch.op = Delete, deleteOp{}
		case f.MoveTo != "":
			ch.action, ch.to = Move, norm(f.MoveTo)
		}
		out[i] = ch
	}
	return out
}

// fullRead returns the content of the file that a successful whole read
// shows: the result's text, without the line numbers that Claude Code's
// Read and str_replace_editor's view put in front of each line, or the
// lines of a SWE-agent window that shows the whole file. A read
// that may be cut (Claude Code stops at 2,000 lines and cuts lines longer
// than 2,000 characters), a shell read (whose output its tool may frame or
// trim), or a stub ("File unchanged since last read") is not the full
// content.
func fullRead(t *transcript.Transcript, c *transcript.Call) (string, bool) {
	r := c.Result
	if r == nil || !r.OK() || c.Kind != tools.Read || c.Args.Command != "" || !c.Args.Range.Whole() {
		return "", false
	}
	if t.Format == transcript.SWEAgent {
		// SWE-agent's viewer shows a numbered window of the file.
		if w, ok := outcome.ParseWindow(r.Text()); ok {
			return w.Content(), w.Whole()
		}
	}
	text, numbered, empty := outcome.ReadContent(r.Text())
	switch {
	case text == "":
		return "", empty
	case numbered:
		if n := strings.Count(text, "\n") + 1; n >= claudeReadLimit {
			return "", false
		}
		for _, l := range strings.Split(text, "\n") {
			if len(l) >= claudeReadLimit {
				return "", false
			}
		}
		return text, true
	case t.Format == transcript.ClaudeCode:
		return "", false // Claude Code's Read always numbers its lines
	}
	return text, true
}

// claudeReadLimit is where Claude Code's Read cuts a file's lines and a
// line's characters by default.
const claudeReadLimit = 2000
