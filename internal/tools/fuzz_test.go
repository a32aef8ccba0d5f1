package tools

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/tidwall/gjson"
)

// FuzzClassifyCommand: any command line classifies without panicking, and
// a read or a write always names its file.
func FuzzClassifyCommand(f *testing.F) {
	for _, s := range []string{
		"cat a.go", "sed -n '1,20p' x | head -3", "cd /r && git -C . diff", "cat > f <<'EOF'\nx\nEOF",
		"bash -lc \"echo $(date) `x` 'q'\" 2>&1 | tee -a log", "for i in 1 2; do ls; done", "a\\\nb",
		"rm -rf -- a 'b c' *.o", "cd x && git rm -q y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		c := ClassifyCommand(cmd)
		if (c.Kind == Read || c.Kind == Write) && c.Args.Path == "" {
			t.Fatalf("ClassifyCommand(%q) = %s without a path", cmd, c.Kind)
		}
		for _, p := range Removed(cmd) {
			if p == "" || strings.ContainsAny(p, "*?[$`") {
				t.Fatalf("Removed(%q) names %q", cmd, p)
			}
		}
	})
}

// FuzzJoinArgv: an argv joined into a command line parses back to itself.
func FuzzJoinArgv(f *testing.F) {
	f.Add("bash", "-lc", "sed -n '1,20p' 'a b.go'")
	f.Add("echo", "", "it's")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		argv := []string{a, b, c}
		for _, w := range argv {
			for _, r := range w {
				if r == 0 || r == '\n' || r == '\r' {
					return // not something an argv from a transcript holds
				}
			}
		}
		got := parseScript(JoinArgv(argv))
		if len(got) != 1 || len(got[0]) != 1 || !reflect.DeepEqual(got[0][0].words, argv) {
			t.Fatalf("JoinArgv(%q) = %q parses back as %+v", argv, JoinArgv(argv), got)
		}
	})
}

// FuzzAction: any action parses and classifies without panicking; an
// action of one of SWE-agent's commands goes by its name, and a window
// read from any text counts up.
func FuzzAction(f *testing.F) {
	for _, s := range []string{
		"edit 3:4\n  x\nend_of_edit\n", "open \"a b.py\" 20", "str_replace_editor view /t/x.py --view_range 1 -1",
		"edit 'a' 'b' True", "search_file x", "insert 'y' 3", "ls -la", "[File: /a (2 lines total)]\n1:x\n2:y\n",
	} {
		f.Add(s)
	}
	table := NewTable(nil)
	f.Fuzz(func(t *testing.T, action string) {
		name := ActionName(action)
		kind, args := table.classify(name, gjson.Result{Type: gjson.String, Str: action})
		if (kind == Write || kind == Edit) && len(args.Paths) > 0 && args.Paths[0] != args.Path {
			t.Fatalf("%q: %s of %q but paths %q", action, kind, args.Path, args.Paths)
		}
		if w, ok := outcome.ParseWindow(action); ok && w.Last > 0 && (w.First < 1 || w.Last-w.First+1 != len(w.Lines)) {
			t.Fatalf("outcome.ParseWindow(%q) = %+v", action, w)
		}
	})
}

// FuzzChangeOf: any edit or write call decodes without panicking; a change
// it cannot show says why, and a patch or a text comes from the input.
func FuzzChangeOf(f *testing.F) {
	table := NewTable(nil)
	for _, c := range [][2]string{
		{"Edit", `{"file_path":"a","old_string":"x","new_string":"y"}`},
		{"MultiEdit", `{"file_path":"a","edits":[{"old_string":"x","new_string":"y","replace_all":true}]}`},
		{"str_replace_editor", `{"command":"insert","path":"a","insert_line":2,"new_str":"z"}`},
		{"Write", `{"file_path":"a","content":"c"}`},
		{"apply_patch", "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"},
		{"Bash", `{"command":"cat >> a <<EOF\nx\nEOF"}`},
		{"Bash", `{"command":"sed -i 's/a/b/' f"}`},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, name, input string) {
		var in gjson.Result
		if gjson.Valid(input) {
			in = gjson.Parse(input)
		} else {
			in = gjson.Result{Type: gjson.String, Str: input}
		}
		kind, args := table.classify(name, in)
		c := ChangeOf(kind, args, input)
		switch c.Op {
		case EditUnknown:
			if c.Why == "" {
				t.Fatalf("ChangeOf(%s, %q): unknown without a reason", name, input)
			}
		case EditPatch:
			if !isPatch(c.Text) {
				t.Fatalf("ChangeOf(%s, %q): a patch that is not one: %q", name, input, c.Text)
			}
		case EditReplace:
			if len(c.Replacements) == 0 && !strings.Contains(input, "edits") {
				t.Fatalf("ChangeOf(%s, %q): a replacement of nothing", name, input)
			}
		}
	})
}

// FuzzStub: a stub of any edit's arguments is JSON that names the same
// file, is a stub, and is not made a second time.
func FuzzStub(f *testing.F) {
	f.Add(`{"file_path":"/p/a.go","old_string":"x","new_string":"y"}`, "note")
	f.Add(`{"command":"str_replace","path":"a.py","old_str":"\"q\"","new_str":"é"}`, "[ctx-summarize] \"n\"")
	f.Add(`{"path":"a","path":"b","content":1}`, "")
	f.Fuzz(func(t *testing.T, input, note string) {
		if !utf8.ValidString(note) {
			return // a filter's notes are text
		}
		stub, ok := Stub(input, note)
		if !ok {
			return
		}
		if !gjson.Valid(stub) || !IsStub(stub) || gjson.Get(stub, StubKey).String() != note {
			t.Fatalf("Stub(%s) = %s", input, stub)
		}
		table := NewTable(nil)
		_, before := table.classify("Edit", gjson.Parse(input))
		_, after := table.classify("Edit", gjson.Parse(stub))
		if before.Path != after.Path || before.Intent != after.Intent {
			t.Fatalf("Stub(%s) = %s: the path or intent changed", input, stub)
		}
		if _, again := Stub(stub, note); again {
			t.Fatalf("a stub of a stub: %s", stub)
		}
	})
}
