package patch

import (
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// FuzzUnifiedRoundTrip: the unified diff of a to b, parsed and applied to
// a, gives b.
func FuzzUnifiedRoundTrip(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "new\n")
	f.Add("gone\n", "")
	f.Add("x\ny", "x\ny\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n")
	f.Add("dup\ndup\ndup\n", "dup\nDUP\ndup\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.Contains(a, "\r") || strings.Contains(b, "\r") {
			t.Skip() // ParseUnified reads CRLF diffs as LF
		}
		d := udiff.Unified("a/f", "b/f", a, b)
		if d == "" {
			return
		}
		files, err := ParseUnified(d)
		if err != nil {
			t.Fatalf("ParseUnified(%q): %v", d, err)
		}
		if len(files) != 1 {
			t.Fatalf("ParseUnified(%q): %d files", d, len(files))
		}
		got, err := files[0].Apply(a)
		if err != nil || got != b {
			t.Fatalf("diff %q applied to %q = %q, %v; want %q", d, a, got, err, b)
		}
		added, removed := files[0].Counts()
		if want := strings.Count(d, "\n+") - 1; added != want {
			t.Errorf("added = %d, want %d", added, want)
		}
		if want := strings.Count(d, "\n-"); removed != want { // the --- header opens the text
			t.Errorf("removed = %d, want %d", removed, want)
		}
	})
}

// FuzzEnvelope: any text parses or fails with an error, never a panic, and
// a parsed patch applies to any content or fails with an error.
func FuzzEnvelope(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ def f\n-x\n+y\n*** End of File\n*** End Patch", "def f\nx\n")
	f.Add("*** Begin Patch\n*** Add File: b\n+hi\n*** Delete File: c\n*** End Patch\n", "")
	f.Add("<<'EOF'\n*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n x\n+z\n*** End Patch\nEOF", "x\n")
	f.Fuzz(func(t *testing.T, text, content string) {
		files, err := ParseEnvelope(text)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on several lines: %q", err)
			}
			return
		}
		for _, file := range files {
			if file.Path == "" && file.Op != Update {
				t.Fatalf("file without a path in %q", text)
			}
			out, err := file.Apply(content)
			if err == nil && file.Op == Update && out != "" && !strings.HasSuffix(out, "\n") && strings.HasSuffix(content, "\n") {
				t.Fatalf("apply lost the last newline: %q -> %q", content, out)
			}
		}
	})
}

// FuzzSed: any arguments parse or fail; a parsed script runs on any
// content without a panic, and s/x/x/g changes nothing.
func FuzzSed(f *testing.F) {
	f.Add("s/a/b/g", "a\nb\n")
	f.Add(`/x/,$s/\(a\)/[\1]/2`, "xa\naa\n")
	f.Add("1d;$d", "1\n2\n3")
	f.Fuzz(func(t *testing.T, script, content string) {
		s, err := ParseSed([]string{"-i", script, "f"})
		if err == nil {
			if _, err := s.Apply(content); err != nil {
				t.Fatal(err)
			}
		}
		id, _ := ParseSed([]string{"-i", "s/x/x/g", "f"})
		if got, _ := id.Apply(content); got != content {
			t.Fatalf("s/x/x/g changed %q to %q", content, got)
		}
	})
}
