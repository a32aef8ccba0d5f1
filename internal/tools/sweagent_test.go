package tools

import (
	"reflect"
	"testing"

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
		kind, args := table.Classify(name, gjson.Result{Type: gjson.String, Str: c.action})
		if name != c.name || kind != c.kind || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q: %s %s %+v; want %s %s %+v", c.action, name, kind, args, c.name, c.kind, c.args)
		}
	}
	// The user's kinds win, as for any tool.
	over := NewTable(map[string]Kind{"submit": Git})
	if kind, _ := over.Classify("submit", gjson.Result{Type: gjson.String, Str: "submit"}); kind != Git {
		t.Errorf("submit with an override: %s", kind)
	}
	// A custom tool that happens to share a name is not an action.
	if kind, args := table.Classify("edit", gjson.Result{Type: gjson.String, Str: "*** Begin Patch\n*** Update File: a.go\n*** End Patch"}); kind != Edit || args.Path != "a.go" {
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

func TestParseWindow(t *testing.T) {
	cases := []struct {
		name, text string
		want       Window
		ok         bool
	}{
		{"whole", "[File: /r/a.py (3 lines total)]\n1:import os\n2:\n3:print(os.sep)\n\n(Open file: /r/a.py)\n(Current directory: /r)\nbash-$",
			Window{Path: "/r/a.py", Total: 3, First: 1, Last: 3, Lines: []string{"import os", "", "print(os.sep)"}}, true},
		{"a window, after an edit's note, with a terminal's line ends", "Replaced 1 occurrences.\r\n[File: /r/b.py (300 lines total)]\r\n(100 more lines above)\r\n101:a\r\n102:b: c\r\n(198 more lines below)\n",
			Window{Path: "/r/b.py", Total: 300, First: 101, Last: 102, Lines: []string{"a", "b: c"}}, true},
		{"empty file", "[File: /r/e.py (0 lines total)]\n", Window{Path: "/r/e.py"}, true},
		{"no window", "Found 1 matches for \"x\" in /r:\n/r/x.py\n", Window{}, false},
		{"numbers that do not count up", "[File: /r/a.py (9 lines total)]\n1:a\n3:c\n", Window{Path: "/r/a.py", Total: 9, First: 1, Last: 1, Lines: []string{"a"}}, true},
	}
	for _, c := range cases {
		got, ok := ParseWindow(c.text)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ParseWindow = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if w := (Window{Total: 3, First: 1, Last: 3}); !w.Whole() || !w.Range().Whole() {
		t.Error("a window of every line is not the whole file")
	}
	if r := (Window{Total: 300, First: 101, Last: 200}).Range(); r != (Range{Start: 101, End: 200}) {
		t.Errorf("window range %+v", r)
	}
}

func TestObservationState(t *testing.T) {
	cases := []struct {
		text, open string
		printed    bool
		dir        string
	}{
		{"8.2\n\n(Open file: /r/tests/a.py)\n(Current directory: /r)\nbash-$", "/r/tests/a.py", true, "/r"},
		{"Found 1 matches\r\n(Open file: n/a)\n(Current directory: /r)\nbash-$", "", true, "/r"},
		{"8.2", "", false, ""},
	}
	for _, c := range cases {
		open, printed, dir := ObservationState(c.text)
		if open != c.open || printed != c.printed || dir != c.dir {
			t.Errorf("ObservationState(%q) = %q, %v, %q; want %q, %v, %q", c.text, open, printed, dir, c.open, c.printed, c.dir)
		}
	}
}
