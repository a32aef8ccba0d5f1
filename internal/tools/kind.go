// Package tools knows what a tool call does: its kind (read, edit, shell,
// list, ...) from the tool's name and, for shell tools, from the command, and
// the arguments that matter to the filters (path, line range, command,
// pattern, intent).
package tools

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Kind is what a tool call does.
type Kind string

// The kinds, as docs/tool-kinds.md names them.
const (
	Read   Kind = "read"
	Edit   Kind = "edit"
	Write  Kind = "write"
	Shell  Kind = "shell"
	List   Kind = "list"
	Search Kind = "search"
	Git    Kind = "git"
	Web    Kind = "web"
	Other  Kind = "other"
)

// Kinds lists every kind in a stable order.
var Kinds = []Kind{Read, Edit, Write, Shell, List, Search, Git, Web, Other}

// ParseKind accepts a kind's name in any case.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Kinds {
		if k == known {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown tool kind %q (want one of %s)", s, strings.Join(names, ", "))
}

// builtin maps lower-cased tool names to their kind. Tools whose kind depends
// on their arguments (str_replace_editor's command, shell tools' command) are
// resolved in classify.
var builtin = map[string]Kind{}

func init() {
	for kind, names := range map[Kind][]string{
		Read:   {"read_file", "read", "file_read", "view", "open_file", "view_file", "readfile", "notebookread"},
		Edit:   {"edit_file", "edit", "multiedit", "file_edit", "str_replace_based_edit_tool", "str_replace_editor", "apply_patch", "splice_patch", "replace", "notebookedit", "search_replace"},
		Write:  {"write", "write_file", "create_file", "writefile"},
		Shell:  {"bash", "run_shell", "run_command", "shell", "shell_command", "exec_command", "local_shell_call", "execute_command", "terminal", "run_terminal_cmd", "write_stdin"},
		List:   {"list_files", "ls", "glob", "file_glob", "list_dir", "list_directory", "tree", "find_files"},
		Search: {"grep", "grep_code", "search", "code_search", "semantic_search", "file_search", "codebase_search", "grep_search", "search_files"},
		Git:    {"git_status", "git_diff", "git_log", "git_show"},
		Web:    {"webfetch", "websearch", "web_search", "fetch_url", "web_fetch", "fetch", "web_search_call"},
	} {
		for _, n := range names {
			builtin[n] = kind
		}
	}
}

// Table classifies calls: the built-in kinds plus the user's overrides.
// The zero value is not usable; call NewTable.
type Table struct {
	overrides map[string]Kind
}

// NewTable returns a table with overrides (tool name → kind) on top of the
// built-in kinds. Names match case-insensitively.
func NewTable(overrides map[string]Kind) *Table {
	t := &Table{overrides: map[string]Kind{}}
	for name, k := range overrides {
		t.overrides[strings.ToLower(name)] = k
	}
	return t
}

// ParseOverrides reads NAME=KIND pairs; each spec may hold several separated
// by commas. Later pairs win.
func ParseOverrides(specs ...string) (map[string]Kind, error) {
	out := map[string]Kind{}
	for _, spec := range specs {
		for _, pair := range strings.Split(spec, ",") {
			pair = strings.TrimSpace(pair)
			if pair == "" {
				continue
			}
			name, kind, ok := strings.Cut(pair, "=")
			name = strings.TrimSpace(name)
			if !ok || name == "" {
				return nil, fmt.Errorf("tool kind %q: want NAME=KIND", pair)
			}
			k, err := ParseKind(kind)
			if err != nil {
				return nil, fmt.Errorf("tool kind %q: %w", pair, err)
			}
			out[name] = k
		}
	}
	return out, nil
}

// Overrides returns the user's overrides, sorted by name, as NAME=KIND.
func (t *Table) Overrides() []string {
	var out []string
	for n, k := range t.overrides {
		out = append(out, n+"="+string(k))
	}
	sort.Strings(out)
	return out
}

// nameKind is the kind a tool name alone gives, or "" when unknown. MCP and
// namespaced names (mcp__fs__read_file, functions.shell) fall back to their
// last part.
func (t *Table) nameKind(name string) Kind {
	lower := strings.ToLower(name)
	for _, n := range []string{lower, lastPart(lower)} {
		if k, ok := t.overrides[n]; ok {
			return k
		}
		if k, ok := builtin[n]; ok {
			return k
		}
	}
	return ""
}

func lastPart(name string) string {
	if i := strings.LastIndex(name, "__"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// IsTree reports whether a listing call runs tree (the tool, or the command
// a shell line comes down to), whose output is a drawing that ends with a
// count of directories and files.
func IsTree(name, command string) bool {
	if lastPart(strings.ToLower(name)) == "tree" {
		return true
	}
	step, ok := MainStep(command)
	return ok && len(step.Words) > 0 && path.Base(step.Words[0]) == "tree"
}

// IsCodeMap reports whether a tool maps a repository's or a file's structure
// (Aider's repo map, Cline's list_code_definition_names, outline and symbol
// tools): its output is a map of the code, not the code.
func IsCodeMap(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"repo_map", "repomap", "repository_map", "code_map", "codemap", "structure", "outline", "definition", "symbols"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
