package changelog

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"

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
		return []fileChange{{path: norm(c.Args.Path), action: action, op: o}}
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
			return unknownChanges(c, norm, "sed: "+err.Error())
		}
		out := make([]fileChange, len(s.Files))
		for i, f := range s.Files {
			out[i] = fileChange{path: norm(f), action: Edit, op: sedOp{s}}
		}
		return out
	}
	return unknownChanges(c, norm, ch.Why)
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
		return unknownChanges(c, norm, "a patch that does not parse: "+err.Error())
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
// Read and str_replace_editor's view put in front of each line. A read
// that may be cut (Claude Code stops at 2,000 lines and cuts lines longer
// than 2,000 characters), a shell read (whose output its tool may frame or
// trim), or a stub ("File unchanged since last read") is not the full
// content.
func fullRead(t *transcript.Transcript, c *transcript.Call) (string, bool) {
	r := c.Result
	if r == nil || r.Failed() || c.Kind != tools.Read || c.Args.Command != "" || !c.Args.Range.Whole() {
		return "", false
	}
	text, empty := stripReminders(r.Text())
	if text == "" {
		return "", empty
	}
	text = catHeader.ReplaceAllString(text, "")
	numbered, ok := stripLineNumbers(text)
	switch {
	case ok:
		if n := strings.Count(numbered, "\n") + 1; n >= claudeReadLimit {
			return "", false
		}
		for _, l := range strings.Split(numbered, "\n") {
			if len(l) >= claudeReadLimit {
				return "", false
			}
		}
		return numbered, true
	case t.Format == transcript.ClaudeCode:
		return "", false // Claude Code's Read always numbers its lines
	}
	return text, true
}

// claudeReadLimit is where Claude Code's Read cuts a file's lines and a
// line's characters by default.
const claudeReadLimit = 2000

// stripReminders removes the <system-reminder> notes Claude Code appends to
// a read; empty reports a note that the file is empty.
func stripReminders(text string) (string, bool) {
	empty := false
	for {
		trimmed := strings.TrimRight(text, " \t\r\n")
		body, ok := strings.CutSuffix(trimmed, "</system-reminder>")
		start := strings.LastIndex(body, "<system-reminder>")
		if !ok || start < 0 {
			return text, empty
		}
		empty = empty || strings.Contains(body[start:], "contents are empty")
		text = strings.TrimRight(body[:start], " \t\r\n")
	}
}

// catHeader is the line str_replace_editor's view puts before the file.
var catHeader = regexp.MustCompile("\\AHere's the result of running `cat -n` on [^\n]*:\n")

// stripLineNumbers removes the line numbers of cat -n (a tab after the
// number) or of Claude Code's Read (an arrow) when they count up from 1 on
// every line; false when the lines are not so numbered.
func stripLineNumbers(text string) (string, bool) {
	// cat -n ends with the newline of the last line; Claude Code's Read
	// shows it as an empty last line instead.
	body, nl := strings.CutSuffix(text, "\n")
	var b strings.Builder
	b.Grow(len(body))
	n := 0
	for len(body) > 0 || n == 0 {
		line, rest, more := strings.Cut(body, "\n")
		n++
		i := len(line) - len(strings.TrimLeft(line, " "))
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j == i || line[i:j] != strconv.Itoa(n) {
			return "", false
		}
		switch {
		case strings.HasPrefix(line[j:], "→"):
			j += len("→")
		case strings.HasPrefix(line[j:], "\t"):
			j++
		default:
			return "", false
		}
		if n > 1 {
			b.WriteByte('\n')
		}
		b.WriteString(line[j:])
		body = rest
		if !more {
			break
		}
	}
	if nl {
		b.WriteByte('\n')
	}
	return b.String(), true
}
