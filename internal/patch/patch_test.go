package patch

import (
	"errors"
	"reflect"
	"testing"
)

func TestReplace(t *testing.T) {
	cases := []struct {
		content, old, new string
		all               bool
		want              string
		n                 int
		err               error
	}{
		{"a b a", "a", "x", false, "x b a", 1, nil},
		{"a b a", "a", "x", true, "x b x", 2, nil},
		{"a b a", "c", "x", false, "", 0, ErrNotFound},
		{"", "", "new file\n", false, "new file\n", 1, nil},
		{"x", "", "y", false, "", 0, errors.New("")},
		{"line1\nline2\n", "line2\n", "", false, "line1\n", 1, nil},
		{"héllo wörld", "ö", "o", false, "héllo world", 1, nil},
	}
	for _, c := range cases {
		got, n, err := Replace(c.content, c.old, c.new, c.all)
		if (err != nil) != (c.err != nil) || c.err == ErrNotFound && !errors.Is(err, ErrNotFound) {
			t.Errorf("Replace(%q, %q, %q, %v): error %v, want %v", c.content, c.old, c.new, c.all, err, c.err)
			continue
		}
		if got != c.want || n != c.n {
			t.Errorf("Replace(%q, %q, %q, %v) = %q, %d; want %q, %d", c.content, c.old, c.new, c.all, got, n, c.want, c.n)
		}
	}
}

func TestInsert(t *testing.T) {
	cases := []struct {
		content string
		line    int
		text    string
		want    string
		err     bool
	}{
		{"a\nb\n", 0, "x", "x\na\nb\n", false},
		{"a\nb\n", 1, "x\n", "a\nx\nb\n", false},
		{"a\nb\n", 2, "x\ny", "a\nb\nx\ny\n", false},
		{"a\nb", 2, "x", "a\nb\nx\n", false},
		{"", 0, "x", "x\n", false},
		{"a\n", 2, "x", "", true},
		{"a\n", -1, "x", "", true},
	}
	for _, c := range cases {
		got, err := Insert(c.content, c.line, c.text)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("Insert(%q, %d, %q) = %q, %v; want %q, error %v", c.content, c.line, c.text, got, err, c.want, c.err)
		}
	}
}

func TestReplaceLines(t *testing.T) {
	cases := []struct {
		content  string
		from, to int
		text     string
		want     string
		err      bool
	}{
		{"a\nb\nc\n", 2, 2, "B\n", "a\nB\nc\n", false},
		{"a\nb\nc\n", 1, 3, "x", "x\n", false},
		{"a\nb\nc\n", 2, 3, "", "a\n", false},             // a deletion
		{"a\nb\nc\n", 3, 2, "i\n", "a\nb\ni\nc\n", false}, // an empty range inserts
		{"a\nb\nc\n", 4, 4, "d\n", "a\nb\nc\nd\n", false}, // just past the end appends
		{"a\nb", 3, 3, "c", "a\nb\nc\n", false},           // after a last line without its newline
		{"a\nb\n", 2, 9, "B\n", "a\nB\n", false},          // a range past the end stops there
		{"a\n", 3, 3, "x", "", true},
		{"a\n", 0, 1, "x", "", true},
	}
	for _, c := range cases {
		got, err := ReplaceLines(c.content, c.from, c.to, c.text)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ReplaceLines(%q, %d, %d, %q) = %q, %v; want %q, error %v", c.content, c.from, c.to, c.text, got, err, c.want, c.err)
		}
	}
}

func TestCountLines(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2} {
		if got := CountLines(s); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", s, got, want)
		}
		if got := len(SplitLines(s)); got != want {
			t.Errorf("len(SplitLines(%q)) = %d, want %d", s, got, want)
		}
	}
}

func TestParseEnvelope(t *testing.T) {
	text := `*** Begin Patch
*** Add File: docs/new.md
+# New
+
+text
*** Delete File: old.txt
*** Update File: src/app.py
*** Move to: src/main.py
@@ class App:
@@     def run(self):
-        return 1
+        return 2

 tail
*** Update File: b.txt
-x
+y
*** End of File
*** End Patch
`
	files, err := ParseEnvelope(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Op: Add, Path: "docs/new.md", Content: "# New\n\ntext\n"},
		{Op: Delete, Path: "old.txt"},
		{Op: Update, Path: "src/app.py", MoveTo: "src/main.py", Hunks: []Hunk{{
			Context: []string{"class App:", "def run(self):"}, Pos: -1,
			Lines: []Line{{'-', "        return 1"}, {'+', "        return 2"}, {' ', ""}, {' ', "tail"}},
		}}},
		{Op: Update, Path: "b.txt", Hunks: []Hunk{{Pos: -1, EndOfFile: true, Lines: []Line{{'-', "x"}, {'+', "y"}}}}},
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("ParseEnvelope:\n got %+v\nwant %+v", files, want)
	}
	if a, r := files[2].Counts(); a != 1 || r != 1 {
		t.Errorf("Counts = +%d -%d, want +1 -1", a, r)
	}
	if a, r := files[0].Counts(); a != 3 || r != 0 {
		t.Errorf("Counts of an Add = +%d -%d, want +3 -0", a, r)
	}
}

func TestParseEnvelopeErrors(t *testing.T) {
	for _, text := range []string{
		"",
		"*** Begin Patch\n*** Update File: a\n-x\n",                      // no end
		"*** Begin Patch\n*** Frobnicate File: a\n*** End Patch",         // unknown header
		"*** Begin Patch\n*** Update File: a\n*** End Patch",             // no hunks
		"*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch",     // bad hunk line
		"garbage\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n", // text before
	} {
		if _, err := ParseEnvelope(text); err == nil {
			t.Errorf("ParseEnvelope(%q): no error", text)
		}
	}
	// Codex accepts the heredoc wrapper when the patch is one argument.
	if _, err := ParseEnvelope("<<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n"); err != nil {
		t.Errorf("heredoc-wrapped envelope: %v", err)
	}
}

func TestApplyEnvelope(t *testing.T) {
	cases := []struct {
		name, content, patch, want string
		err                        bool
	}{
		{"simple", "a\nb\nc\n", "@@\n a\n-b\n+B\n c", "a\nB\nc\n", false},
		{"context line picks the second match", "def f():\n    x = 1\ndef g():\n    x = 1\n",
			"@@ def g():\n-    x = 1\n+    x = 2", "def f():\n    x = 1\ndef g():\n    x = 2\n", false},
		{"trailing white space ignored", "a  \nb\n", "@@\n-a\n+A", "A\nb\n", false},
		{"typographic quotes match", "say(\u201chi\u201d)\n", "@@\n-say(\"hi\")\n+say(\"bye\")", "say(\"bye\")\n", false},
		{"end of file", "x\ny\nx\n", "@@\n-x\n+z\n*** End of File", "x\ny\nz\n", false},
		{"two hunks in order", "1\n2\n3\n4\n5\n", "@@\n-2\n+two\n@@\n-4\n+four", "1\ntwo\n3\nfour\n5\n", false},
		{"pure addition goes at the end", "a\n", "@@\n+b", "a\nb\n", false},
		{"adds the last newline", "a", "@@\n-a\n+b", "b\n", false},
		{"not found", "a\nb\n", "@@\n-c\n+d", "", true},
		{"context not found", "a\n", "@@ def nope\n-a\n+b", "", true},
		{"hunks out of order", "1\n2\n", "@@\n-2\n+x\n@@\n-1\n+y", "", true},
	}
	for _, c := range cases {
		files, err := ParseEnvelope("*** Begin Patch\n*** Update File: f\n" + c.patch + "\n*** End Patch")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := files[0].Apply(c.content)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: Apply = %q, %v; want %q, error %v", c.name, got, err, c.want, c.err)
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: error %v is not ErrNotFound", c.name, err)
		}
	}
}

func TestParseUnified(t *testing.T) {
	text := `diff --git a/x.go b/x.go
index 123..456 100644
--- a/x.go
+++ b/x.go
@@ -1,3 +1,3 @@ func main() {
 a
-b
+B
 c
@@ -10 +10,2 @@
 j
+k
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+one
+two
\ No newline at end of file
--- a/gone.txt	2024-01-01 00:00:00
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old.go b/new.go
similarity index 100%
rename from old.go
rename to new.go
`
	files, err := ParseUnified(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Op: Update, Path: "x.go", Hunks: []Hunk{
			{Context: []string{"func main() {"}, Pos: 0, Lines: []Line{{' ', "a"}, {'-', "b"}, {'+', "B"}, {' ', "c"}}},
			{Pos: 9, Lines: []Line{{' ', "j"}, {'+', "k"}}},
		}},
		{Op: Add, Path: "new.txt", Content: "one\ntwo"},
		{Op: Delete, Path: "gone.txt"},
		{Op: Update, Path: "old.go", MoveTo: "new.go"},
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("ParseUnified:\n got %+v\nwant %+v", files, want)
	}
	for _, bad := range []string{"", "just text", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n"} {
		if _, err := ParseUnified(bad); err == nil {
			t.Errorf("ParseUnified(%q): no error", bad)
		}
	}
}

func TestApplyUnified(t *testing.T) {
	cases := []struct {
		name, content, diff, want string
		err                       bool
	}{
		{"at its line numbers", "x\ny\nx\ny\n", "@@ -3,2 +3,2 @@\n x\n-y\n+Y\n", "x\ny\nx\nY\n", false},
		{"moved: found by search", "new\nfirst\na\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", "new\nfirst\na\nB\n", false},
		{"insert after a line", "a\nb\n", "@@ -1,0 +2 @@\n+x\n", "a\nx\nb\n", false},
		{"insert at the top", "a\n", "@@ -0,0 +1 @@\n+x\n", "x\na\n", false},
		{"drop the last newline", "a\nb\n", "@@ -2 +2 @@\n-b\n+b\n\\ No newline at end of file\n", "a\nb", false},
		{"keep a missing newline", "a\nb", "@@ -1 +1 @@\n-a\n+A\n", "A\nb", false},
		{"not found", "a\n", "@@ -1 +1 @@\n-z\n+Z\n", "", true},
	}
	for _, c := range cases {
		files, err := ParseUnified("--- a/f\n+++ b/f\n" + c.diff)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := files[0].Apply(c.content)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: Apply = %q, %v; want %q, error %v", c.name, got, err, c.want, c.err)
		}
	}
}
