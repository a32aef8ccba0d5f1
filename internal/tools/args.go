package tools

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
)

// Range is a range of lines a read covers. The zero Range is the whole file.
type Range struct {
	Start int // first line, 1-based; 0 when the read starts at the top
	End   int // last line, inclusive; 0 when the read goes to the end
	Last  int // for tail: the last Last lines; Start and End are then 0
}

// Whole reports whether the range is the whole file.
func (r Range) Whole() bool { return r == Range{} }

// Contains reports whether every line of range o is in r, by the ranges
// alone: the whole file contains every range, lines a-b the lines between
// them, the last n lines the last m lines when m <= n.
func (r Range) Contains(o Range) bool {
	switch {
	case r.Whole():
		return true
	case o.Last > 0:
		return r.Last >= o.Last
	case r.Last > 0 || o.Whole():
		return false
	}
	return max(o.Start, 1) >= max(r.Start, 1) && (r.End == 0 || o.End != 0 && o.End <= r.End)
}

// String is how markers and reports name the range: "lines 1-200",
// "lines 40-end", "last 20 lines", or "" for the whole file.
func (r Range) String() string {
	switch {
	case r.Whole():
		return ""
	case r.Last > 0:
		return "last " + strconv.Itoa(r.Last) + " lines"
	case r.End == 0:
		return "lines " + strconv.Itoa(r.Start) + "-end"
	}
	start := r.Start
	if start == 0 {
		start = 1
	}
	return "lines " + strconv.Itoa(start) + "-" + strconv.Itoa(r.End)
}

// Args are the arguments of a call that the filters use. Fields a call does
// not have are empty.
type Args struct {
	Path    string   // the file or directory the call is about, as the call wrote it
	Paths   []string // every file a multi-file edit (a patch) touches; Path is the first
	Range   Range    // for reads
	Command string   // for shell tools: the command line
	Dir     string   // the working directory the call names (workdir, cd DIR)
	Pattern string   // for search and list: the pattern or glob
	URL     string   // for web: the URL or the query
	Intent  string   // the call's stated intent or description
	// Subcommand is what a git call runs: status, diff, log, show, blame…
	Subcommand string
	// Session is the running command a call writes to or polls (Codex's
	// write_stdin: session_id); 0 for others.
	Session int
}

// Label names a call of kind kind for the reports' lists of calls: a
// shell command that reads or changes one file by the file (and the lines
// it reads), any other shell command by its command line, any other call
// by its Target.
func (a Args) Label(kind Kind, cwd string) string {
	if a.Command != "" && (a.Path == "" || kind != Read && kind != Edit && kind != Write) {
		return a.Command
	}
	return a.Target(cwd)
}

// Target is what a call is about, for markers and reports: what a search or
// listing tool looked for and where ("**/*.go in src"), else the path (as
// File gives it for the session's cwd) with its range, the command, the
// pattern, the URL, or the session it writes to.
func (a Args) Target(cwd string) string {
	switch {
	case a.Pattern != "" && a.Command == "" && a.Path != "":
		return a.Pattern + " in " + a.File(cwd)
	case a.Pattern != "" && a.Command == "":
		return a.Pattern
	case a.Path != "" && !a.Range.Whole():
		return a.File(cwd) + " (" + a.Range.String() + ")"
	case a.Path != "":
		return a.File(cwd)
	case a.Command != "":
		return a.Command
	case a.Pattern != "":
		return a.Pattern
	case a.URL != "":
		return a.URL
	case a.Session != 0:
		return "session " + strconv.Itoa(a.Session)
	}
	return ""
}

var (
	pathKeys    = []string{"file_path", "path", "filePath", "file", "filename", "target_file", "absolute_path", "notebook_path", "directory", "dir", "target_directory"}
	intentKeys  = []string{"intent", "description", "explanation", "instructions"} // instructions: Cursor's edit_file
	patternKeys = []string{"pattern", "query", "regex", "glob", "search"}
	urlKeys     = []string{"url", "query"}
	dirKeys     = []string{"workdir", "cwd"}
	commandKeys = []string{"command", "cmd", "script"}
	patchKeys   = []string{"input", "patch", "diff"}
	startKeys   = []string{"start_line", "line_start", "startLine", "start"}
	endKeys     = []string{"end_line", "line_end", "endLine", "end"}
	sessionKeys = []string{"session_id"}

	// argKeys are all the arguments classify reads, found in one pass over
	// the input: a Write's input holds a whole file, which a lookup per key
	// would scan again and again.
	argKeys = unique(pathKeys, intentKeys, patternKeys, urlKeys, dirKeys, commandKeys, patchKeys,
		startKeys, endKeys, sessionKeys, []string{"action", "view_range", "offset", "limit"})
)

func unique(lists ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, k := range l {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// args are the arguments of a call that classify reads, by name.
type args map[string]jsonscan.Value

func readArgs(input gjson.Result) args {
	obj := jsonscan.Parse(input.Raw, 0)
	if !input.IsObject() || !obj.IsObject() {
		return nil
	}
	m := args{}
	for i, v := range obj.Fields(argKeys...) {
		if v.Exists() {
			m[argKeys[i]] = v
		}
	}
	return m
}

// str is the first of keys whose value is a non-empty string.
func (m args) str(keys []string) string {
	for _, k := range keys {
		if v := m[k]; v.IsString() && v.Raw != `""` {
			return v.Str()
		}
	}
	return ""
}

// int is the first of keys whose value is an integer, or a string of one.
func (m args) int(keys []string) int {
	for _, k := range keys {
		v := m[k]
		s := v.Raw
		if v.IsString() {
			s = v.Str()
		}
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return n
		}
	}
	return 0
}

// Decode returns the kind and arguments of a call to the tool name with its
// input as written: JSON text (a call's arguments), or with isText a custom
// tool's free-form input (an apply_patch patch, a SWE-agent action).
// Arguments that are not valid JSON, which a model can write, classify by
// the tool's name alone. Every reader of a call's input decodes it here:
// the transcript's parser, and the hooks, which get the input from the
// agent's payload.
func (t *Table) Decode(name, input string, isText bool) (Kind, Args) {
	var in gjson.Result
	switch {
	case isText:
		in = gjson.Result{Type: gjson.String, Str: input}
	case jsonscan.Valid(input):
		in = gjson.Parse(input)
	}
	return t.classify(name, in)
}

// classify returns the kind and arguments of a call to the tool name with the
// given input: a JSON object (tool arguments) or a JSON string (a custom
// tool's free-form input such as an apply_patch patch). The input must be
// valid JSON (gjson.Valid), or the zero Result.
func (t *Table) classify(name string, input gjson.Result) (Kind, Args) {
	kind := t.nameKind(name)
	lower := lastPart(strings.ToLower(name))

	if input.Type == gjson.String {
		// A custom tool's free-form input: a SWE-agent action, a patch or a
		// command line.
		text := input.String()
		if k, a, ok := t.classifyAction(lower, text); ok {
			return k, a
		}
		var a Args
		switch {
		case isPatch(text):
			a = withPaths(a, patchPaths(text))
		case kind == Shell:
			a.Command = strings.TrimRight(text, "\r\n") // a line's end is not part of the command
		}
		if kind == "" {
			kind = Other
		}
		if kind == Shell && a.Command != "" {
			return t.classifyShell(a)
		}
		return kind, a
	}

	in := readArgs(input)
	a := Args{Intent: in.str(intentKeys), Path: in.str(pathKeys), Dir: in.str(dirKeys)}
	switch kind {
	case Shell:
		a.Command = commandOf(in)
		if a.Command != "" {
			return t.classifyShell(a)
		}
		a.Session = in.int(sessionKeys)
		return Shell, a
	case "":
		kind = Other
	}

	if lower == "str_replace_editor" || lower == "str_replace_based_edit_tool" {
		kind = editorKind(in["command"].Str(), kind)
	}
	switch kind {
	case Read:
		a.Range = rangeOf(in)
	case Edit, Write:
		if patch := in.str(patchKeys); isPatch(patch) {
			a.Paths = patchPaths(patch)
			if a.Path == "" && len(a.Paths) > 0 {
				a.Path = a.Paths[0]
			}
		}
	case List, Search:
		a.Pattern = in.str(patternKeys)
	case Web:
		a.URL = in.str(urlKeys)
	case Git:
		// git_status, git_diff…: the subcommand is the name's last part.
		if _, sub, ok := strings.Cut(lower, "_"); ok {
			a.Subcommand = sub
		}
	}
	if a.Path != "" && len(a.Paths) == 0 && (kind == Edit || kind == Write) {
		a.Paths = []string{a.Path}
	}
	return kind, a
}

// classifyShell refines a shell call by what its command does. A user's
// override of the tool name has already been applied by the caller; shell
// commands themselves are not overridable.
func (t *Table) classifyShell(a Args) (Kind, Args) {
	c := ClassifyCommand(a.Command)
	c.Args.Command = a.Command
	c.Args.Intent = a.Intent
	if c.Args.Dir == "" {
		c.Args.Dir = a.Dir
	}
	return c.Kind, c.Args
}

// editorKind maps the command of str_replace_editor-style tools.
func editorKind(command string, fallback Kind) Kind {
	switch command {
	case "view":
		return Read
	case "create":
		return Write
	case "str_replace", "insert", "undo_edit":
		return Edit
	}
	return fallback
}

// commandOf finds a shell tool's command: a string, or an argv array such as
// Codex's ["bash","-lc","..."]; local_shell_call keeps it under action.
func commandOf(in args) string {
	for _, v := range []jsonscan.Value{in["command"], in["cmd"], in["action"].Get("command"), in["script"]} {
		switch {
		case v.IsString():
			return v.Str()
		case v.IsArray():
			var argv []string
			v.Each(func(w jsonscan.Value) bool {
				argv = append(argv, w.Str())
				return true
			})
			return JoinArgv(argv)
		}
	}
	return ""
}

// rangeOf reads the line range of a read tool's arguments: Claude Code's
// offset/limit, str_replace_editor's view_range, or start/end lines.
func rangeOf(in args) Range {
	if vr := in["view_range"]; vr.IsArray() {
		var parts []int
		vr.Each(func(v jsonscan.Value) bool {
			parts = append(parts, v.Int())
			return true
		})
		if len(parts) == 2 {
			r := Range{Start: parts[0], End: parts[1]}
			if r.End < 0 {
				r.End = 0
			}
			return normalize(r)
		}
	}
	if s, e := in.int(startKeys), in.int(endKeys); s > 0 || e > 0 {
		return normalize(Range{Start: s, End: e})
	}
	offset, limit := in.int([]string{"offset"}), in.int([]string{"limit"})
	if offset <= 0 && limit <= 0 {
		return Range{}
	}
	if offset <= 0 {
		offset = 1
	}
	r := Range{Start: offset}
	if limit > 0 {
		r.End = offset + limit - 1
	}
	return normalize(r)
}

// normalize makes equal ranges compare equal: a range from line 1 to the end
// is the whole file.
func normalize(r Range) Range {
	if r.Start <= 1 && r.End == 0 && r.Last == 0 {
		return Range{}
	}
	if r.Start < 1 {
		r.Start = 1
	}
	return r
}
