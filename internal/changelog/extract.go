package changelog

import (
	"cmp"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
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

// Argument names the edit tools of various agents use for the same thing.
var (
	oldKeys     = []string{"old_string", "old_str", "oldText", "old_text", "oldString", "search", "find"}
	newKeys     = []string{"new_string", "new_str", "newText", "new_text", "newString", "replace", "replacement"}
	allKeys     = []string{"replace_all", "replaceAll", "all"}
	contentKeys = []string{"content", "file_text", "contents", "text", "code"}
	patchKeys   = []string{"input", "patch", "diff"}
)

// changesOf reads what an edit or write call changes, file by file.
func changesOf(c *transcript.Call, cwd string) []fileChange {
	norm := func(p string) string { return tools.NormPath(p, c.Args.Dir, cwd) }
	if a := tools.ParseAction(c.Input); a.Command != "" && a.Command == c.Name {
		return actionChanges(c, a, norm)
	}
	if c.Args.Command != "" {
		return shellChanges(c, norm)
	}
	in := c.Input
	if !jsonscan.Valid(in) {
		// A custom tool's free-form input: Codex's apply_patch.
		return patchChanges(c, in, norm)
	}
	args := gjson.Parse(jsonscan.LastWins(in)) // of repeated keys, the last, as the tool saw
	for _, key := range patchKeys {
		if v := args.Get(key); v.Type == gjson.String && isPatch(v.Str) {
			return patchChanges(c, v.Str, norm)
		}
	}
	one := func(action Action, o op) []fileChange {
		return []fileChange{{path: norm(c.Args.Path), action: action, op: o}}
	}
	if cmd := args.Get("command"); cmd.Type == gjson.String {
		// str_replace_editor and str_replace_based_edit_tool.
		switch cmd.Str {
		case "create":
			return one(Create, setOp{content: args.Get("file_text").Str})
		case "str_replace":
			r := replacement{old: args.Get("old_str").Str, new: args.Get("new_str").Str}
			return one(Edit, replaceOp{r})
		case "insert":
			text := firstString(args, []string{"new_str", "insert_text", "text"})
			return one(Edit, insertOp{line: int(args.Get("insert_line").Int()), text: text})
		case "undo_edit":
			return one(Edit, undoOp{})
		}
	}
	if edits := args.Get("edits"); edits.IsArray() {
		// MultiEdit, and the edit_file of MCP's filesystem server.
		var rs replaceOp
		all := false
		for _, e := range edits.Array() {
			r := replacement{old: firstString(e, oldKeys), new: firstString(e, newKeys), all: firstBool(e, allKeys)}
			all = all || r.all
			rs = append(rs, r)
		}
		ch := one(Edit, rs)
		ch[0].all = all
		return ch
	}
	if hasAny(args, oldKeys) && hasAny(args, newKeys) {
		r := replacement{old: firstString(args, oldKeys), new: firstString(args, newKeys), all: firstBool(args, allKeys)}
		ch := one(Edit, replaceOp{r})
		ch[0].all = r.all
		return ch
	}
	if c.Kind == tools.Write {
		for _, key := range contentKeys {
			if v := args.Get(key); v.Type == gjson.String {
				return one(Write, setOp{content: v.Str})
			}
		}
	}
	if args.Get("code_edit").Exists() {
		return unknownChanges(c, norm, "an edit sketch (code_edit) that the tool merged into the file")
	}
	return unknownChanges(c, norm, "the call's arguments do not show the change")
}

// actionChanges reads what a SWE-agent action changes, in the file the
// call is about (for edit and insert, the viewer's open file).
func actionChanges(c *transcript.Call, a tools.Action, norm func(string) string) []fileChange {
	one := func(action Action, o op) []fileChange {
		return []fileChange{{path: cmp.Or(norm(c.Args.Path), noPath), action: action, op: o}}
	}
	arg := func(i int) string {
		if i < len(a.Args) {
			return a.Args[i]
		}
		return ""
	}
	switch a.Command {
	case "create":
		return one(Create, setOp{content: "\n"}) // SWE-agent creates a file of one empty line
	case "edit":
		switch {
		case a.Lines != tools.Range{}:
			return one(Edit, linesOp{from: a.Lines.Start, to: a.Lines.End, text: a.Text})
		case len(a.Args) >= 2:
			// Replaces in the lines shown: replayed on the whole file, it
			// is refused where the old text is not unique there.
			r := replacement{old: arg(0), new: arg(1), all: strings.EqualFold(arg(2), "true")}
			ch := one(Edit, replaceOp{r})
			ch[0].all = r.all
			return ch
		}
		return unknownChanges(c, norm, "a rewrite of the lines the viewer showed")
	case "insert":
		if n, err := strconv.Atoi(arg(1)); err == nil {
			return one(Edit, insertOp{line: n, text: arg(0)})
		}
		return one(Edit, appendOp{text: strings.TrimSuffix(arg(0), "\n") + "\n"})
	case "str_replace_editor":
		switch arg(0) {
		case "create":
			return one(Create, setOp{content: a.Flags["file_text"]})
		case "str_replace":
			return one(Edit, replaceOp{{old: a.Flags["old_str"], new: a.Flags["new_str"]}})
		case "insert":
			n, _ := strconv.Atoi(a.Flags["insert_line"])
			return one(Edit, insertOp{line: n, text: a.Flags["new_str"]})
		case "undo_edit":
			return one(Edit, undoOp{})
		}
	}
	return unknownChanges(c, norm, "the action does not show the change")
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

// isPatch reports whether text is an apply_patch envelope or a unified
// diff.
func isPatch(text string) bool {
	return patch.IsEnvelope(text) || strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "diff ") || strings.Contains(text, "\n+++ ")
}

// patchChanges reads the apply_patch envelope or unified diff of a call.
func patchChanges(c *transcript.Call, text string, norm func(string) string) []fileChange {
	var files []patch.File
	var err error
	switch {
	case patch.IsEnvelope(text):
		files, err = patch.ParseEnvelope(text)
	case isPatch(text):
		files, err = patch.ParseUnified(text)
	default:
		return unknownChanges(c, norm, "the call's input is not JSON or a patch")
	}
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

// shellChanges reads an edit or write made through a shell command: a
// patch (apply_patch, patch), a sed -i script, or the text that cat, echo
// or printf write (>, >>, tee).
func shellChanges(c *transcript.Call, norm func(string) string) []fileChange {
	step, ok := tools.MainStep(c.Args.Command)
	if !ok || len(step.Words) == 0 {
		return unknownChanges(c, norm, "a shell command")
	}
	prog, args := path.Base(step.Words[0]), step.Words[1:]
	switch prog {
	case "apply_patch", "applypatch", "patch":
		text := step.Heredoc
		if text == "" && prog != "patch" && len(args) > 0 {
			text = args[0]
		}
		if text == "" {
			return unknownChanges(c, norm, prog+" with a patch the command does not show")
		}
		return patchChanges(c, text, norm)
	case "sed":
		s, err := patch.ParseSed(args)
		if err != nil {
			return unknownChanges(c, norm, "sed: "+err.Error())
		}
		out := make([]fileChange, len(s.Files))
		for i, f := range s.Files {
			out[i] = fileChange{path: norm(f), action: Edit, op: sedOp{s}}
		}
		return out
	}
	text, ok := shellText(prog, args, step.Heredoc)
	if !ok {
		return unknownChanges(c, norm, "a shell command whose output the call does not show")
	}
	ch := fileChange{path: norm(c.Args.Path), action: Write, op: setOp{content: text}}
	if c.Kind == tools.Edit { // >> and tee -a append
		ch.action, ch.op = Edit, appendOp{text: text}
	}
	return []fileChange{ch}
}

// shellText is the text a command writes to its standard output, where
// the command line shows it: cat's heredoc, echo's words, a printf format
// without conversions.
func shellText(prog string, args []string, heredoc string) (string, bool) {
	switch prog {
	case "cat":
		return heredoc, heredoc != "" // else it copies stdin or files
	case "echo":
		newline := "\n"
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
			switch args[0] {
			case "-n":
				newline = ""
			case "-e":
				return "", false // escapes: not worth guessing
			}
			args = args[1:]
		}
		return strings.Join(args, " ") + newline, true
	case "printf":
		if len(args) != 1 || strings.Contains(args[0], "%") {
			return "", false
		}
		return printfEscapes.Replace(args[0]), !strings.Contains(printfEscapes.Replace(args[0]), `\`)
	}
	return "", false
}

var printfEscapes = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`)

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
	if r == nil || r.Failed() || c.Kind != tools.Read || c.Args.Command != "" || !c.Args.Range.Whole() {
		return "", false
	}
	if t.Format == transcript.SWEAgent {
		// SWE-agent's viewer shows a numbered window of the file.
		if w, ok := tools.ParseWindow(r.Text()); ok {
			return w.Content(), w.Whole()
		}
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

func firstString(v gjson.Result, keys []string) string {
	for _, k := range keys {
		if s := v.Get(k); s.Type == gjson.String {
			return s.Str
		}
	}
	return ""
}

func hasAny(v gjson.Result, keys []string) bool {
	for _, k := range keys {
		if v.Get(k).Type == gjson.String {
			return true
		}
	}
	return false
}

func firstBool(v gjson.Result, keys []string) bool {
	for _, k := range keys {
		if b := v.Get(k); b.Exists() {
			return b.Bool()
		}
	}
	return false
}
