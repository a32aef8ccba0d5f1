package tools

import (
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name, input string
		kind        Kind
		args        Args
	}{
		{"Read", `{"file_path":"/p/a.go","offset":1,"limit":200}`, Read, Args{Path: "/p/a.go", Range: Range{Start: 1, End: 200}}},
		{"Read", `{"file_path":"/p/a.go","offset":41}`, Read, Args{Path: "/p/a.go", Range: Range{Start: 41}}},
		{"Read", `{"file_path":"/p/a.go"}`, Read, Args{Path: "/p/a.go"}},
		{"read_file", `{"path":"a.go","start_line":3,"end_line":9}`, Read, Args{Path: "a.go", Range: Range{Start: 3, End: 9}}},
		{"str_replace_editor", `{"command":"view","path":"/r/x.py","view_range":[10,-1]}`, Read, Args{Path: "/r/x.py", Range: Range{Start: 10}}},
		{"str_replace_based_edit_tool", `{"command":"create","path":"/r/n.py","file_text":"x"}`, Write, Args{Path: "/r/n.py", Paths: []string{"/r/n.py"}}},
		{"str_replace_editor", `{"command":"str_replace","path":"/r/x.py","old_str":"a","new_str":"b"}`, Edit, Args{Path: "/r/x.py", Paths: []string{"/r/x.py"}}},
		{"Edit", `{"file_path":"/p/a.go","old_string":"a","new_string":"b","intent":"fix the off-by-one"}`, Edit, Args{Path: "/p/a.go", Paths: []string{"/p/a.go"}, Intent: "fix the off-by-one"}},
		{"MultiEdit", `{"file_path":"/p/a.go","edits":[]}`, Edit, Args{Path: "/p/a.go", Paths: []string{"/p/a.go"}}},
		{"Write", `{"file_path":"/p/b.go","content":"package b"}`, Write, Args{Path: "/p/b.go", Paths: []string{"/p/b.go"}}},
		{"apply_patch", `"*** Begin Patch\n*** Update File: a.js\n@@\n-a\n+b\n*** End Patch\n"`, Edit, Args{Path: "a.js", Paths: []string{"a.js"}}},
		{"Bash", `{"command":"sed -n '1,50p' a.go","description":"Show the top of a.go"}`, Read, Args{Path: "a.go", Range: Range{Start: 1, End: 50}, Command: "sed -n '1,50p' a.go", Intent: "Show the top of a.go"}},
		{"Bash", `{"command":"go test ./..."}`, Shell, Args{Command: "go test ./..."}},
		{"shell", `{"command":["bash","-lc","cat README.md"],"workdir":"/p"}`, Read, Args{Path: "README.md", Command: "bash -lc 'cat README.md'", Dir: "/p"}},
		{"exec_command", `{"cmd":"rg -n foo src","workdir":"/p"}`, Search, Args{Pattern: "foo", Path: "src", Command: "rg -n foo src", Dir: "/p"}},
		{"local_shell_call", `{"action":{"type":"exec","command":["ls","-la"]}}`, List, Args{Path: ".", Command: "ls -la"}},
		{"Glob", `{"pattern":"**/*.go","path":"/p"}`, List, Args{Path: "/p", Pattern: "**/*.go"}},
		{"Grep", `{"pattern":"func main","path":"/p","output_mode":"content"}`, Search, Args{Path: "/p", Pattern: "func main"}},
		{"LS", `{"path":"/p"}`, List, Args{Path: "/p"}},
		{"WebFetch", `{"url":"https://go.dev","prompt":"x"}`, Web, Args{URL: "https://go.dev"}},
		{"WebSearch", `{"query":"gjson index"}`, Web, Args{URL: "gjson index"}},
		{"git_status", `{}`, Git, Args{Subcommand: "status"}},
		{"mcp__filesystem__read_file", `{"path":"a.txt"}`, Read, Args{Path: "a.txt"}},
		{"TodoWrite", `{"todos":[]}`, Other, Args{}},
		{"Task", `{"description":"explore","prompt":"p"}`, Other, Args{Intent: "explore"}},
		// Cursor's edit_file states its intent as instructions, after the
		// other names of an intent.
		{"edit_file", `{"target_file":"x.go","instructions":"I add a check","code_edit":"// ... existing code ...\nB"}`, Edit, Args{Path: "x.go", Paths: []string{"x.go"}, Intent: "I add a check"}},
		{"edit_file", `{"target_file":"x.go","instructions":"i","explanation":"e","code_edit":"B"}`, Edit, Args{Path: "x.go", Paths: []string{"x.go"}, Intent: "e"}},
		{"Bash", `not json at all`, Shell, Args{}},
	}
	table := NewTable(nil)
	for _, c := range cases {
		kind, args := table.classify(c.name, gjson.Parse(c.input))
		if kind != c.kind || !reflect.DeepEqual(args, c.args) {
			t.Errorf("Classify(%s, %s)\n got %s %+v\nwant %s %+v", c.name, c.input, kind, args, c.kind, c.args)
		}
	}
}

func TestOverrides(t *testing.T) {
	o, err := ParseOverrides("my_reader=read, TodoWrite=Other", "fetch_docs=web")
	if err != nil {
		t.Fatal(err)
	}
	table := NewTable(o)
	if k, a := table.classify("My_Reader", gjson.Parse(`{"path":"x.go"}`)); k != Read || a.Path != "x.go" {
		t.Errorf("override my_reader=read: got %s %+v", k, a)
	}
	if k, _ := table.classify("fetch_docs", gjson.Parse(`{}`)); k != Web {
		t.Errorf("override fetch_docs=web: got %s", k)
	}
	// An override wins over the built-in kind.
	table = NewTable(map[string]Kind{"Read": Other})
	if k, _ := table.classify("Read", gjson.Parse(`{"file_path":"a"}`)); k != Other {
		t.Errorf("override Read=other: got %s", k)
	}
	for _, bad := range []string{"noequals", "=read", "x=banana"} {
		if _, err := ParseOverrides(bad); err == nil {
			t.Errorf("ParseOverrides(%q) accepted bad input", bad)
		}
	}
}

func TestOverridesListed(t *testing.T) {
	o, err := ParseOverrides("b=list", "a=read", "b=search")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := NewTable(o).Overrides(), []string{"a=read", "b=search"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Overrides() = %q, want %q (later pairs win)", got, want)
	}
}

func TestHasUndo(t *testing.T) {
	for name, want := range map[string]bool{
		"str_replace_editor":                true,
		"str_replace_based_edit_tool":       true,
		"mcp__editor__str_replace_editor":   true,
		"Str_Replace_Editor":                true,
		"Edit":                              false,
		"edit_file":                         false,
		"apply_patch":                       false,
		"str_replace_editor_of_another_kit": false,
	} {
		if got := HasUndo(name); got != want {
			t.Errorf("HasUndo(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsTree(t *testing.T) {
	cases := []struct {
		name, command string
		want          bool
	}{
		{"tree", "", true},
		{"mcp__fs__Tree", "", true},
		{"bash", "tree -L 2 src", true},
		{"bash", "cd /repo && /usr/bin/tree -a", true},
		{"shell", "bash -lc 'tree src'", true},
		{"bash", "treefmt --check", false},
		{"bash", "ls -R", false},
		{"list_files", "", false},
	}
	for _, c := range cases {
		if got := IsTree(c.name, c.command); got != c.want {
			t.Errorf("IsTree(%q, %q) = %v, want %v", c.name, c.command, got, c.want)
		}
	}
}
