package tools

import (
	"reflect"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/tidwall/gjson"
)

// TestClassifyAction: SWE-agent's commands, as its trajectories write them
// (the old multi-line edit N:M, the quoted arguments of function calling),
// and shell lines through the shell classifier.
func TestClassifyAction(t *testing.T) {
	cases := []struct {
		action string
		name   string
		kind   Kind
		args   Args
	}{
		{"open tests/missing_colon.py\n", "open", Read, Args{Path: "tests/missing_colon.py", Range: Range{Start: 1, End: 100}}},
		{`open "/repo/a b.py" 120`, "open", Read, Args{Path: "/repo/a b.py", Range: Range{Start: 104, End: 203}}},
		{"goto 40", "goto", Read, Args{Range: Range{Start: 24, End: 123}}},
		{"scroll_down", "scroll_down", Read, Args{}},
		{"create reproduce.py\n", "create", Write, Args{Path: "reproduce.py", Paths: []string{"reproduce.py"}}},
		{"edit 4:4\ndef division(a: float, b: float) -> float:\nend_of_edit\n", "edit", Edit, Args{}},
		{"edit 'def f()' 'def f():' False", "edit", Edit, Args{}},
		{`find_file "missing_colon.py"` + "\n", "find_file", List, Args{Pattern: "missing_colon.py"}},
		{"search_dir TimeDelta src", "search_dir", Search, Args{Pattern: "TimeDelta", Path: "src"}},
		{`search_file "def _serialize"`, "search_file", Search, Args{Pattern: "def _serialize"}},
		{"submit\n", "submit", Other, Args{}},
		{"str_replace_editor view /testbed/x.py  --view_range 10 40", "str_replace_editor", Read, Args{Path: "/testbed/x.py", Range: Range{Start: 10, End: 40}}},
		{"str_replace_editor create /testbed/r.py --file_text 'print(1)\nprint(2)\n'", "str_replace_editor", Write, Args{Path: "/testbed/r.py", Paths: []string{"/testbed/r.py"}}},
		{"str_replace_editor str_replace /testbed/x.py   --old_str 'a' --new_str 'b'", "str_replace_editor", Edit, Args{Path: "/testbed/x.py", Paths: []string{"/testbed/x.py"}}},
		{"python tests/missing_colon.py\n", "bash", Shell, Args{Command: "python tests/missing_colon.py"}},
		{"cat src/a.py", "bash", Read, Args{Path: "src/a.py", Command: "cat src/a.py"}},
		{"grep -rn TimeDelta src", "bash", Search, Args{Pattern: "TimeDelta", Path: "src", Command: "grep -rn TimeDelta src"}},
	}
	table := NewTable(nil)
	for _, c := range cases {
		name := ActionName(c.action)
		kind, args := table.classify(name, gjson.Result{Type: gjson.String, Str: c.action})
		if name != c.name || kind != c.kind || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q: %s %s %+v; want %s %s %+v", c.action, name, kind, args, c.name, c.kind, c.args)
		}
	}
	// The user's kinds win, as for any tool.
	over := NewTable(map[string]Kind{"submit": Git})
	if kind, _ := over.classify("submit", gjson.Result{Type: gjson.String, Str: "submit"}); kind != Git {
		t.Errorf("submit with an override: %s", kind)
	}
	// A custom tool that happens to share a name is not an action.
	if kind, args := table.classify("edit", gjson.Result{Type: gjson.String, Str: "*** Begin Patch\n*** Update File: a.go\n*** End Patch"}); kind != Edit || args.Path != "a.go" {
		t.Errorf("a patch to a tool named edit: %s %+v", kind, args)
	}
}

func TestParseAction(t *testing.T) {
	cases := []struct {
		action string
		want   Action
	}{
		{"edit 2:3\n    x = 1\n\ny = 2\nend_of_edit\n", Action{Command: "edit", Lines: Range{Start: 2, End: 3}, Text: "    x = 1\n\ny = 2\n"}},
		{"edit 5:4\nend_of_edit", Action{Command: "edit", Lines: Range{Start: 5, End: 4}}},
		{"edit 'a b' 'c' True", Action{Command: "edit", Args: []string{"a b", "c", "True"}}},
		{"str_replace_editor insert /t/x.py --insert_line 3 --new_str 'it'\"'\"'s'", Action{Command: "str_replace_editor",
			Args: []string{"insert", "/t/x.py"}, Flags: map[string]string{"insert_line": "3", "new_str": "it's"}}},
		{"ls -la", Action{}},
	}
	for _, c := range cases {
		if got := ParseAction(c.action); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseAction(%q) = %+v, want %+v", c.action, got, c.want)
		}
	}
}

func TestWindowRange(t *testing.T) {
	if r := WindowRange(outcome.Window{Total: 3, First: 1, Last: 3}); !r.Whole() {
		t.Errorf("a window of every line: range %+v, want the whole file", r)
	}
	if r := WindowRange(outcome.Window{Total: 300, First: 101, Last: 200}); r != (Range{Start: 101, End: 200}) {
		t.Errorf("window range %+v", r)
	}
}
