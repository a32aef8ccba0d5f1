package tools

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestChangeOf: how each edit and write tool spells its change, decoded once
// for every caller.
func TestChangeOf(t *testing.T) {
	table := NewTable(nil)
	cases := []struct {
		name, tool, input string
		want              Change
	}{
		{"Edit", "Edit", `{"file_path":"x.go","old_string":"a","new_string":"b","replace_all":true}`,
			Change{Op: EditReplace, Replacements: []Replacement{{Old: "a", New: "b", All: true}}}},
		{"MultiEdit", "MultiEdit", `{"file_path":"x.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
			Change{Op: EditReplace, Replacements: []Replacement{{Old: "a", New: "b"}, {Old: "c", New: "d"}}}},
		{"mcp edit_file", "edit_file", `{"path":"x.go","edits":[{"oldText":"a","newText":"z"}]}`,
			Change{Op: EditReplace, Replacements: []Replacement{{Old: "a", New: "z"}}}},
		{"Write", "Write", `{"file_path":"x.go","content":"package x\n"}`, Change{Op: EditContent, Text: "package x\n"}},
		{"editor create", "str_replace_editor", `{"command":"create","path":"x.go","file_text":"c"}`, Change{Op: EditCreate, Text: "c"}},
		{"editor insert", "str_replace_based_edit_tool", `{"command":"insert","path":"x.go","insert_line":3,"new_str":"i"}`, Change{Op: EditInsert, Line: 3, Text: "i"}},
		{"editor undo", "str_replace_editor", `{"command":"undo_edit","path":"x.go"}`, Change{Op: EditUndo}},
		{"apply_patch argument", "apply_patch", `{"input":"*** Begin Patch\n*** End Patch"}`, Change{Op: EditPatch, Text: "*** Begin Patch\n*** End Patch"}},
		{"diff argument", "apply_diff", `{"diff":"diff -u a b\n--- a\n+++ b\n"}`, Change{Op: EditPatch, Text: "diff -u a b\n--- a\n+++ b\n"}},
		{"code_edit", "edit_file", `{"target_file":"x.go","code_edit":"// ..."}`, Change{Op: EditUnknown, Why: "an edit sketch (code_edit) that the tool merged into the file"}},
		{"no change shown", "Edit", `{"file_path":"x.go"}`, Change{Op: EditUnknown, Why: "the call's arguments do not show the change"}},
		{"cat heredoc", "Bash", `{"command":"cat > x.go <<'EOF'\nhi\nEOF"}`, Change{Op: EditContent, Text: "hi\n"}},
		{"cat append", "Bash", `{"command":"cat >> x.go <<EOF\nc\nEOF"}`, Change{Op: EditAppend, Text: "c\n"}},
		{"echo -n", "Bash", `{"command":"echo -n x > f"}`, Change{Op: EditContent, Text: "x"}},
		{"echo -e", "Bash", `{"command":"echo -e 'a\\tb' > f"}`, Change{Op: EditUnknown, Why: "a shell command whose output the call does not show"}},
		{"printf", "Bash", `{"command":"printf 'a\\nb\\n' > f"}`, Change{Op: EditContent, Text: "a\nb\n"}},
		{"printf with a conversion", "Bash", `{"command":"printf '%s\\n' x > f"}`, Change{Op: EditUnknown, Why: "a shell command whose output the call does not show"}},
		{"tee -a", "Bash", `{"command":"echo t | tee -a f"}`, Change{Op: EditAppend, Text: "t\n"}},
		{"sed -i", "Bash", `{"command":"sed -i 's/a/b/' x.go"}`, Change{Op: EditSed, Sed: []string{"-i", "s/a/b/", "x.go"}}},
		{"patch heredoc", "Bash", `{"command":"patch -p1 <<'EOF'\n--- a/x\n+++ b/x\nEOF"}`, Change{Op: EditPatch, Text: "--- a/x\n+++ b/x\n"}},
		{"patch from a file", "Bash", `{"command":"patch -p1 x.go fix.diff"}`, Change{Op: EditUnknown, Why: "patch with a patch the command does not show"}},
		{"apply_patch argv", "shell", `{"command":["apply_patch","*** Begin Patch\n*** End Patch"]}`, Change{Op: EditPatch, Text: "*** Begin Patch\n*** End Patch"}},
	}
	for _, c := range cases {
		kind, args := table.classify(c.tool, gjson.Parse(c.input))
		if got := ChangeOf(kind, args, c.input); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	// Codex's apply_patch is a custom tool: its input is the patch itself.
	patch := "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"
	kind, args := table.classify("apply_patch", gjson.Result{Type: gjson.String, Str: patch})
	if got := ChangeOf(kind, args, patch); got.Op != EditPatch || got.Text != patch {
		t.Errorf("custom apply_patch: %+v", got)
	}
	if got := ChangeOf(Edit, Args{}, "not json"); got.Op != EditUnknown {
		t.Errorf("free-form input that is not a patch: %+v", got)
	}
}

func TestStub(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{`{"file_path":"/p/a.go","old_string":"x","new_string":"y","replace_all":false}`, `{"file_path":"/p/a.go","ctx-summarize":"n \"q\""}`, true},
		{`{"command":"str_replace","path":"/w/a.py","old_str":"x","new_str":"y"}`, `{"command":"str_replace","path":"/w/a.py","ctx-summarize":"n \"q\""}`, true},
		{`{"path":"a.go","intent":"fix the bug","content":"package a"}`, `{"path":"a.go","intent":"fix the bug","ctx-summarize":"n \"q\""}`, true},
		{`{"path":"a.go"}`, "", false},                                   // nothing to leave out
		{`"*** Begin Patch"`, "", false},                                 // not an object
		{`{"path":"a.go","ctx-summarize":"x","content":"y"}`, "", false}, // a stub already
	}
	for _, c := range cases {
		got, ok := Stub(c.in, `n "q"`)
		if got != c.want || ok != c.ok {
			t.Errorf("Stub(%s) = %s, %v; want %s, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok {
			if !IsStub(got) {
				t.Errorf("IsStub(%s) = false", got)
			}
			kind, args := NewTable(nil).classify("str_replace_editor", gjson.Parse(got))
			if strings.Contains(c.in, "str_replace") && (kind != Edit || args.Path != "/w/a.py") {
				t.Errorf("the stub of %s is a %s of %q", c.in, kind, args.Path)
			}
			if ch := ChangeOf(Edit, args, got); ch.Op != EditUnknown {
				t.Errorf("ChangeOf a stub: %+v", ch)
			}
		}
	}
	if IsStub(`{"path":"a.go","content":"ctx-summarize"}`) {
		t.Error("IsStub of arguments that only mention the key")
	}
}
