package outline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// render writes an outline as its golden file holds it: a definition a
// line, its number, kind and name, indented by its depth.
func render(defs []Def) string {
	var b strings.Builder
	for _, d := range defs {
		fmt.Fprintf(&b, "%4d %s%s %s\n", d.Line, strings.Repeat("  ", d.Depth), d.Kind, d.Name)
	}
	return b.String()
}

// TestSamples pins the outline of a sample file of every language
// (testdata/sample.* → *.golden; go test -update rewrites them): its
// comments, strings and heredocs that hold lines like definitions, its
// nested definitions, and checks that every definition is on its line.
func TestSamples(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".golden") || strings.HasSuffix(p, ".actual") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
		lang := Lang(p, lines[0])
		if lang == "" {
			t.Errorf("%s: no language", p)
			continue
		}
		langs[lang] = true
		defs := Find(lang, lines, 1)
		checkDefs(t, p, lines, 1, defs)
		testutil.Golden(t, p+".golden", []byte(render(defs)))
	}
	for _, l := range languages {
		if !langs[l.name] {
			t.Errorf("no sample of %s in testdata", l.name)
		}
	}
}

// checkDefs checks what every outline keeps: each definition is on a line
// of the window, in order, and its line holds its name.
func checkDefs(t *testing.T, where string, lines []string, first int, defs []Def) {
	t.Helper()
	last := 0
	for _, d := range defs {
		i := d.Line - first
		switch {
		case i < 0 || i >= len(lines):
			t.Errorf("%s: %+v is outside lines %d-%d", where, d, first, first+len(lines)-1)
		case d.Line <= last:
			t.Errorf("%s: %+v is not after line %d", where, d, last)
		case d.Name == "" || !strings.Contains(lines[i], d.Name):
			t.Errorf("%s:%d: %q does not hold the name %q", where, d.Line, lines[i], d.Name)
		}
		last = d.Line
	}
}

// TestWindow: a window of a file gives the file's line numbers, and the
// definitions a window starts inside of are still found.
func TestWindow(t *testing.T) {
	window := []string{"        return x", "", "    def get(self, k):", "        return k", "", "class Other:", "    pass"}
	got := render(Find("Python", window, 120))
	want := " 122 func get\n 125 class Other\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLang(t *testing.T) {
	cases := []struct{ file, first, want string }{
		{"internal/store/store.go", "", "Go"},
		{"App.TSX", "", "TypeScript"},
		{"lib/x.exs", "", "Elixir"},
		{"include/a.hpp", "", "C/C++"},
		{"README.md", "", "Markdown"},
		{"bin/deploy", "#!/usr/bin/env bash", "Shell"},
		{"manage", "#!/usr/bin/python3", "Python"},
		{"data.json", "{", ""},
		{"Makefile", "all:", ""},
	}
	for _, c := range cases {
		if got := Lang(c.file, c.first); got != c.want {
			t.Errorf("Lang(%q, %q) = %q, want %q", c.file, c.first, got, c.want)
		}
	}
}

// TestCorpusDefsAreReal: on every read of every corpus and fixture file,
// every definition the outline finds is on a line the read shows, and the
// line holds its name.
func TestCorpusDefsAreReal(t *testing.T) {
	found := 0
	for _, s := range readsOf(t, testutil.FixturesAndCorpus(t)) {
		first := max(s.first, 1)
		defs := Find(Lang(s.file, s.lines[0]), s.lines, first)
		found += len(defs)
		checkDefs(t, s.file, s.lines, first, defs)
	}
	if testutil.CorpusIfPresent(t) != nil && found == 0 {
		t.Error("no definition found in any read of the corpus")
	}
}

// FuzzFind: any text, in any language, outlines without a panic, each
// definition once on a line of the text that holds its name.
func FuzzFind(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "sample.*"))
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, ".golden") {
			f.Add(string(src), filepath.Ext(p))
		}
	}
	f.Add("class A:\n  '''\n  def x():\n", ".py")
	f.Add("x = <<~A\ndef y\nA\n", ".rb")
	f.Fuzz(func(t *testing.T, text, ext string) {
		lines := strings.Split(text, "\n")
		lang := Lang("f"+ext, lines[0])
		defs := Find(lang, lines, 7)
		if len(defs) > len(lines) {
			t.Fatalf("%d definitions in %d lines", len(defs), len(lines))
		}
		checkDefs(t, "fuzz", lines, 7, defs)
	})
}
