package tools

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
)

// SWE-agent's trajectories name each step by its action: the command line
// the model wrote, one of SWE-agent's own commands (its file viewer shows a
// window of a file, the "open file", which goto, scroll_*, edit and insert
// act on) or a shell command line.

// sweCommands are SWE-agent's commands and their kinds; str_replace_editor's
// kind is its subcommand's.
var sweCommands = map[string]Kind{
	"open": Read, "goto": Read, "scroll_down": Read, "scroll_up": Read,
	"create": Write, "edit": Edit, "insert": Edit,
	"find_file": List, "search_dir": Search, "search_file": Search,
	"submit": Other, "filemap": Other, "str_replace_editor": Edit,
}

// sweWindow and sweOffset are SWE-agent's default window (100 lines) and
// where a goto puts its line in it (a sixth of the way down): what a read
// shows when its observation does not say.
const (
	sweWindow = 100
	sweOffset = sweWindow / 6
)

// Action is a SWE-agent action parsed.
type Action struct {
	Command string   // the SWE-agent command; "" for a shell command line
	Args    []string // its arguments, quotes removed
	// Flags are str_replace_editor's --name value arguments.
	Flags map[string]string
	// Lines and Text are edit N:M's: the lines it replaces and the text
	// that replaces them, which runs from the next line to end_of_edit.
	Lines Range
	Text  string
}

// ParseAction reads an action.
func ParseAction(action string) Action {
	line, rest, _ := strings.Cut(strings.TrimLeft(action, " \t\r\n"), "\n")
	name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	if _, ok := sweCommands[name]; !ok {
		return Action{}
	}
	a := Action{Command: name}
	if name == "edit" {
		if lines, ok := editLines(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "edit"))); ok {
			a.Lines = lines
			a.Text = blockText(rest, "end_of_edit")
			return a
		}
	}
	// The arguments are shell words, quoted as SWE-agent quotes them; a
	// multi-line argument is one quoted word.
	var words []string
	if script := parseScript(action); len(script) > 0 && len(script[0]) > 0 {
		words = script[0][0].words
	}
	if len(words) > 0 {
		words = words[1:]
	}
	if name != "str_replace_editor" {
		a.Args = words
		return a
	}
	a.Flags = map[string]string{}
	for i := 0; i < len(words); i++ {
		flag, ok := strings.CutPrefix(words[i], "--")
		if !ok {
			a.Args = append(a.Args, words[i])
			continue
		}
		// --view_range takes two words.
		var vals []string
		for i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") {
			i++
			vals = append(vals, words[i])
			if flag != "view_range" {
				break
			}
		}
		a.Flags[flag] = strings.Join(vals, " ")
	}
	return a
}

// editLines reads edit's N:M.
func editLines(s string) (Range, bool) {
	from, to, ok := strings.Cut(s, ":")
	n, err1 := strconv.Atoi(from)
	m, err2 := strconv.Atoi(to)
	if !ok || err1 != nil || err2 != nil {
		return Range{}, false
	}
	return Range{Start: n, End: m}, true
}

// blockText is the text of a multi-line argument: the lines up to the end
// line, each with its newline, as SWE-agent passes it in a heredoc.
func blockText(s, end string) string {
	var b strings.Builder
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		if strings.TrimSpace(line) == end {
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
		s = rest
	}
	return b.String()
}

// ActionName is the name a call of an action goes by: its SWE-agent
// command, or "bash" for a shell command line.
func ActionName(action string) string {
	if a := ParseAction(action); a.Command != "" {
		return a.Command
	}
	return "bash"
}

// UsesOpenFile reports whether a SWE-agent command acts on the open file
// when it names none: what the model reads there is the file shown last.
func UsesOpenFile(name string) bool {
	switch name {
	case "goto", "scroll_down", "scroll_up", "edit", "insert", "search_file":
		return true
	}
	return false
}

// classifyAction classifies a SWE-agent action, a call whose free-form input
// starts with the command it is named for; false for any other call.
func (t *Table) classifyAction(name, input string) (Kind, Args, bool) {
	a := ParseAction(input)
	if a.Command == "" || a.Command != name {
		return "", Args{}, false
	}
	kind := sweCommands[a.Command]
	arg := func(i int) string {
		if i < len(a.Args) {
			return a.Args[i]
		}
		return ""
	}
	var args Args
	switch a.Command {
	case "open":
		args.Path = arg(0)
		args.Range = window(1)
		if n, err := strconv.Atoi(arg(1)); err == nil {
			args.Range = window(n)
		}
	case "goto":
		if n, err := strconv.Atoi(arg(0)); err == nil {
			args.Range = window(n)
		}
	case "create":
		args.Path = arg(0)
	case "find_file", "search_dir", "search_file":
		args.Pattern, args.Path = arg(0), arg(1)
	case "str_replace_editor":
		args.Path = arg(1)
		kind = editorKind(arg(0), Edit)
		if vr := strings.Fields(a.Flags["view_range"]); len(vr) == 2 {
			from, _ := strconv.Atoi(vr[0])
			to, _ := strconv.Atoi(vr[1])
			args.Range = normalize(Range{Start: from, End: max(to, 0)})
		}
	}
	if (kind == Edit || kind == Write) && args.Path != "" {
		args.Paths = []string{args.Path}
	}
	if k, ok := t.overrides[strings.ToLower(name)]; ok {
		kind = k
	}
	return kind, args, true
}

// window is the range SWE-agent's viewer shows around line n.
func window(n int) Range {
	start := max(1, n-sweOffset)
	return Range{Start: start, End: start + sweWindow - 1}
}

// WindowRange is a viewer's window as a read's range: the whole file when
// it shows every line.
func WindowRange(w outcome.Window) Range {
	if w.Whole() {
		return Range{}
	}
	return normalize(Range{Start: w.First, End: w.Last})
}

// actionChange reads the change a SWE-agent action makes to the file the
// call is about (for edit and insert, the viewer's open file).
func actionChange(a Action) Change {
	arg := func(i int) string {
		if i < len(a.Args) {
			return a.Args[i]
		}
		return ""
	}
	switch a.Command {
	case "create":
		return Change{Op: EditCreate, Text: "\n"} // SWE-agent creates a file of one empty line
	case "edit":
		switch {
		case a.Lines != Range{}:
			return Change{Op: EditLines, Lines: a.Lines, Text: a.Text}
		case len(a.Args) >= 2:
			// Replaces in the lines shown: replayed on the whole file, it is
			// refused where the old text is not unique there.
			return Change{Op: EditReplace, Replacements: []Replacement{{Old: arg(0), New: arg(1), All: strings.EqualFold(arg(2), "true")}}}
		}
		return unknownChange("a rewrite of the lines the viewer showed")
	case "insert":
		if n, err := strconv.Atoi(arg(1)); err == nil {
			return Change{Op: EditInsert, Line: n, Text: arg(0)}
		}
		return Change{Op: EditAppend, Text: strings.TrimSuffix(arg(0), "\n") + "\n"}
	case "str_replace_editor":
		switch arg(0) {
		case "create":
			return Change{Op: EditCreate, Text: a.Flags["file_text"]}
		case "str_replace":
			return Change{Op: EditReplace, Replacements: []Replacement{{Old: a.Flags["old_str"], New: a.Flags["new_str"]}}}
		case "insert":
			n, _ := strconv.Atoi(a.Flags["insert_line"])
			return Change{Op: EditInsert, Line: n, Text: a.Flags["new_str"]}
		case "undo_edit":
			return Change{Op: EditUndo}
		}
	}
	return unknownChange("the action does not show the change")
}
