package tools

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/patch"
)

// EditOp is how an edit or write call spells its change.
type EditOp string

// The ways a call spells a change.
const (
	EditReplace EditOp = "replace" // old text replaced by new text, in order (Edit, MultiEdit, str_replace)
	EditInsert  EditOp = "insert"  // text inserted after a line (str_replace_editor's insert)
	EditLines   EditOp = "lines"   // lines replaced by a text (SWE-agent's edit N:M)
	EditContent EditOp = "content" // the whole file (Write, cat > F <<EOF, echo … > F)
	EditCreate  EditOp = "create"  // the whole file, which the call creates (str_replace_editor's create)
	EditAppend  EditOp = "append"  // text added at the end (>>, tee -a)
	EditPatch   EditOp = "patch"   // a patch, which names its own files: apply_patch's envelope or a unified diff
	EditSed     EditOp = "sed"     // a sed -i script
	EditUndo    EditOp = "undo"    // str_replace_editor's undo_edit: the file as it was before its last edit
	EditUnknown EditOp = "unknown" // the call does not show the change
)

// Replacement is one old → new replacement of an edit.
type Replacement struct {
	Old, New string
	All      bool // every occurrence, not only the one
}

// Change is the change an edit or write call makes, as its arguments
// spell it. The file it changes is the call's Args.Path (a patch names its own).
type Change struct {
	Op           EditOp
	Replacements []Replacement // EditReplace
	Line         int           // EditInsert: after this line; 0 for the top
	Lines        Range         // EditLines: the lines replaced
	Text         string        // EditInsert, EditLines, EditContent, EditCreate, EditAppend: the text; EditPatch: the patch
	Sed          []string      // EditSed: sed's arguments, the script and the files
	Why          string        // EditUnknown: what the call was, and why its change is not known
}

// Argument names the edit tools of various agents use for the same thing.
var (
	oldKeys     = []string{"old_string", "old_str", "oldText", "old_text", "oldString", "search", "find"}
	newKeys     = []string{"new_string", "new_str", "newText", "new_text", "newString", "replace", "replacement"}
	allKeys     = []string{"replace_all", "replaceAll", "all"}
	contentKeys = []string{"content", "file_text", "contents", "text", "code"}
	insertKeys  = []string{"new_str", "insert_text", "text"}
)

// HasUndo reports whether a tool undoes its own last edit of a file
// (str_replace_editor's undo_edit, whatever prefix names its server):
// whoever replays its edits must remember each file's content before them.
func HasUndo(name string) bool {
	name = strings.ToLower(name)
	return strings.HasSuffix(name, "str_replace_editor") || strings.HasSuffix(name, "str_replace_based_edit_tool")
}

// isPatch reports whether text is a patch: the apply_patch envelope or a
// unified diff.
func isPatch(text string) bool {
	return patch.IsEnvelope(text) || strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "diff ") ||
		strings.Contains(text, "\n+++ ")
}

// ChangeOf reads the change an edit or write call makes: kind and a are
// what Decode made of the call, input its arguments as written (JSON, or
// a custom tool's free-form input such as Codex's apply_patch).
func ChangeOf(kind Kind, a Args, input string) Change {
	if a.Command != "" {
		return shellChange(kind, a.Command)
	}
	if IsStub(input) {
		return unknownChange("its text was left out of the transcript: " + gjson.Get(input, StubKey).String())
	}
	if !jsonscan.Valid(input) {
		if act := ParseAction(input); act.Command != "" {
			return actionChange(act)
		}
		if isPatch(input) {
			return Change{Op: EditPatch, Text: input}
		}
		return unknownChange("the call's input is not JSON or a patch")
	}
	args := gjson.Parse(jsonscan.LastWins(input)) // of repeated keys, the last, as the tool saw
	for _, key := range patchKeys {
		if v := args.Get(key); v.Type == gjson.String && isPatch(v.Str) {
			return Change{Op: EditPatch, Text: v.Str}
		}
	}
	if cmd := args.Get("command"); cmd.Type == gjson.String {
		// str_replace_editor and str_replace_based_edit_tool.
		switch cmd.Str {
		case "create":
			return Change{Op: EditCreate, Text: args.Get("file_text").Str}
		case "str_replace":
			return Change{Op: EditReplace, Replacements: []Replacement{{Old: args.Get("old_str").Str, New: args.Get("new_str").Str}}}
		case "insert":
			return Change{Op: EditInsert, Line: int(args.Get("insert_line").Int()), Text: firstString(args, insertKeys)}
		case "undo_edit":
			return Change{Op: EditUndo}
		}
	}
	if edits := args.Get("edits"); edits.IsArray() {
		// MultiEdit, and the edit_file of MCP's filesystem server.
		c := Change{Op: EditReplace}
		for _, x := range edits.Array() {
			c.Replacements = append(c.Replacements, Replacement{Old: firstString(x, oldKeys), New: firstString(x, newKeys), All: firstBool(x, allKeys)})
		}
		return c
	}
	if hasAny(args, oldKeys) && hasAny(args, newKeys) {
		return Change{Op: EditReplace, Replacements: []Replacement{{Old: firstString(args, oldKeys), New: firstString(args, newKeys), All: firstBool(args, allKeys)}}}
	}
	if kind == Write {
		for _, key := range contentKeys {
			if v := args.Get(key); v.Type == gjson.String {
				return Change{Op: EditContent, Text: v.Str}
			}
		}
	}
	if args.Get("code_edit").Exists() {
		return unknownChange("an edit sketch (code_edit) that the tool merged into the file")
	}
	return unknownChange("the call's arguments do not show the change")
}

func unknownChange(why string) Change { return Change{Op: EditUnknown, Why: why} }

// shellChange reads an edit or write made through a shell command: a patch
// (apply_patch, patch), a sed -i script, or the text that cat, echo or
// printf write (>, >>, tee); kind Edit is an append.
func shellChange(kind Kind, command string) Change {
	step, ok := MainStep(command)
	if !ok || len(step.Words) == 0 {
		return unknownChange("a shell command")
	}
	prog, args := path.Base(step.Words[0]), step.Words[1:]
	switch prog {
	case "apply_patch", "applypatch", "patch":
		text := step.Heredoc
		if text == "" && prog != "patch" && len(args) > 0 {
			text = args[0]
		}
		if text == "" {
			return unknownChange(prog + " with a patch the command does not show")
		}
		return Change{Op: EditPatch, Text: text}
	case "sed":
		return Change{Op: EditSed, Sed: args}
	}
	text, ok := shellText(prog, args, step.Heredoc)
	switch {
	case !ok:
		return unknownChange("a shell command whose output the call does not show")
	case kind == Edit: // >> and tee -a append
		return Change{Op: EditAppend, Text: text}
	}
	return Change{Op: EditContent, Text: text}
}

// shellText is the text a command writes to its standard output, where the
// command line shows it: cat's heredoc, echo's words, a printf format
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
		s := printfEscapes.Replace(args[0])
		return s, !strings.Contains(s, `\`)
	}
	return "", false
}

var printfEscapes = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`)

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

// StubKey is the argument under which a Stub holds its note.
const StubKey = "ctx-summarize"

// Stub returns an edit's or a write's arguments without the text they
// change: the JSON object input with only the arguments that name the file
// and say why (its path and intent, and str_replace_editor's command, which
// makes the call an edit), as written, and note under StubKey. false when
// input is not a JSON object, is a stub already, or holds nothing else.
func Stub(input, note string) (string, bool) {
	in := gjson.Parse(input)
	if !in.IsObject() || !jsonscan.Valid(input) || IsStub(input) {
		return "", false
	}
	keep := map[string]bool{"command": true}
	for _, k := range append(append([]string{}, pathKeys...), intentKeys...) {
		keep[k] = true
	}
	var b strings.Builder
	b.WriteByte('{')
	dropped := false
	in.ForEach(func(k, v gjson.Result) bool {
		if !keep[k.String()] {
			dropped = true
			return true
		}
		b.WriteString(k.Raw + ":" + v.Raw + ",")
		return true
	})
	if !dropped {
		return "", false
	}
	quoted, _ := json.Marshal(note) // a string always encodes
	b.WriteString(`"` + StubKey + `":` + string(quoted) + "}")
	return b.String(), true
}

// IsStub reports whether a call's arguments are a Stub.
func IsStub(input string) bool {
	return strings.Contains(input, `"`+StubKey+`"`) && gjson.Get(input, StubKey).Type == gjson.String
}
