package tools

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Range is a range of lines a read covers. The zero Range is the whole file.
type Range struct {
	Start int // first line, 1-based; 0 when the read starts at the top
	End   int // last line, inclusive; 0 when the read goes to the end
	Last  int // for tail: the last Last lines; Start and End are then 0
}

// Whole reports whether the range is the whole file.
func (r Range) Whole() bool { return r == Range{} }

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
}

// Target is what a call is about, for markers and reports: the path (as File
// gives it for the session's cwd) with its range, else the command, pattern
// or URL.
func (a Args) Target(cwd string) string {
	switch {
	case a.Path != "" && !a.Range.Whole():
		return a.File(cwd) + " (" + a.Range.String() + ")"
	case a.Path != "":
		return a.File(cwd)
	case a.Command != "":
		return a.Command
	case a.Pattern != "":
		return a.Pattern
	}
	return a.URL
}

var (
	pathKeys    = []string{"file_path", "path", "filePath", "file", "filename", "target_file", "absolute_path", "notebook_path", "directory", "dir", "target_directory"}
	intentKeys  = []string{"intent", "description", "explanation"}
	patternKeys = []string{"pattern", "query", "regex", "glob", "search"}
	urlKeys     = []string{"url", "query"}
)

// Classify returns the kind and arguments of a call to the tool name with the
// given input: a JSON object (tool arguments) or a JSON string (a custom
// tool's free-form input such as an apply_patch patch).
func (t *Table) Classify(name string, input gjson.Result) (Kind, Args) {
	var a Args
	a.Intent = firstString(input, intentKeys)
	kind := t.nameKind(name)
	lower := lastPart(strings.ToLower(name))

	if input.Type == gjson.String {
		// A custom tool's free-form input: a patch or a command line.
		text := input.String()
		switch {
		case isPatch(text):
			a.Paths = patchPaths(text)
		case kind == Shell:
			a.Command = text
		}
		if len(a.Paths) > 0 {
			a.Path = a.Paths[0]
		}
		if kind == "" {
			kind = Other
		}
		if kind == Shell && a.Command != "" {
			return t.classifyShell(a)
		}
		return kind, a
	}

	a.Path = firstString(input, pathKeys)
	a.Dir = firstString(input, []string{"workdir", "cwd"})
	switch kind {
	case Shell:
		a.Command = commandOf(input)
		if a.Command != "" {
			return t.classifyShell(a)
		}
		return Shell, a
	case "":
		kind = Other
	}

	if lower == "str_replace_editor" || lower == "str_replace_based_edit_tool" {
		kind = editorKind(input.Get("command").String(), kind)
	}
	switch kind {
	case Read:
		a.Range = rangeOf(input)
	case Edit, Write:
		if patch := firstString(input, []string{"input", "patch", "diff"}); isPatch(patch) {
			a.Paths = patchPaths(patch)
			if a.Path == "" && len(a.Paths) > 0 {
				a.Path = a.Paths[0]
			}
		}
	case List, Search:
		a.Pattern = firstString(input, patternKeys)
	case Web:
		a.URL = firstString(input, urlKeys)
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
// Codex's ["bash","-lc","..."].
func commandOf(input gjson.Result) string {
	for _, key := range []string{"command", "cmd", "action.command", "script"} {
		v := input.Get(key)
		switch {
		case v.Type == gjson.String:
			return v.String()
		case v.IsArray():
			var argv []string
			for _, w := range v.Array() {
				argv = append(argv, w.String())
			}
			return JoinArgv(argv)
		}
	}
	return ""
}

// rangeOf reads the line range of a read tool's arguments: Claude Code's
// offset/limit, str_replace_editor's view_range, or start/end lines.
func rangeOf(input gjson.Result) Range {
	if vr := input.Get("view_range"); vr.IsArray() {
		parts := vr.Array()
		if len(parts) == 2 {
			r := Range{Start: int(parts[0].Int()), End: int(parts[1].Int())}
			if r.End < 0 {
				r.End = 0
			}
			return normalize(r)
		}
	}
	if s, e := firstInt(input, []string{"start_line", "line_start", "startLine", "start"}), firstInt(input, []string{"end_line", "line_end", "endLine", "end"}); s > 0 || e > 0 {
		return normalize(Range{Start: s, End: e})
	}
	offset, limit := firstInt(input, []string{"offset"}), firstInt(input, []string{"limit"})
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

func firstString(input gjson.Result, keys []string) string {
	for _, k := range keys {
		if v := input.Get(k); v.Type == gjson.String && v.Str != "" {
			return v.String()
		}
	}
	return ""
}

func firstInt(input gjson.Result, keys []string) int {
	for _, k := range keys {
		if v := input.Get(k); v.Type == gjson.Number || v.Type == gjson.String {
			if n, err := strconv.Atoi(strings.TrimSpace(v.String())); err == nil {
				return n
			}
		}
	}
	return 0
}
