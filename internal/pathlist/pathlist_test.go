package pathlist

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestGroup(t *testing.T) {
	cases := []struct {
		name  string
		paths []string
		under string
		lines []string
	}{
		{"one directory", []string{"internal/store/store.go", "internal/store/store_test.go", "internal/store/memory.go"},
			"internal/store/", []string{"store.go, store_test.go, memory.go"}},
		{"directories in their order", []string{"cmd/a/main.go", "internal/x.go", "cmd/a/flags.go", "README.md", "internal/y.go"},
			"", []string{"cmd/a/{main.go, flags.go}", "internal/{x.go, y.go}", "README.md"}},
		{"a path alone is said whole", []string{"/r/a/b.go"}, "", []string{"/r/a/b.go"}},
		{"repeated paths once", []string{"a/x.go", "a/x.go", "a/y.go"}, "a/", []string{"x.go, y.go"}},
		{"directories are entries", []string{"docs/", "src/", "src/a.go", "go.mod"}, "", []string{"docs/, src/, go.mod", "src/a.go"}},
		{"one entry each, the same name", []string{"deps/finch/mix.exs", "deps/plug/mix.exs", "mix.exs", "deps/ecto/mix.exs"},
			"", []string{"deps/{finch, plug, ecto}/mix.exs", "mix.exs"}},
		{"absolute", []string{"/a/b/c.go", "/a/d/e.go"}, "/a/", []string{"b/c.go", "d/e.go"}},
		{"nothing", nil, "", []string{}},
	}
	for _, c := range cases {
		d := Group(c.paths)
		if d.Under != c.under || !reflect.DeepEqual(d.Lines(), c.lines) {
			t.Errorf("%s: under %q, lines %q; want %q, %q", c.name, d.Under, d.Lines(), c.under, c.lines)
		}
		checkExpand(t, c.paths, d)
	}
}

// checkExpand: the lines name every path, each relative to Under.
func checkExpand(t *testing.T, paths []string, d Dirs) {
	t.Helper()
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	got := map[string]bool{}
	for _, l := range d.Lines() {
		for _, p := range Expand(l) {
			got[d.Under+p] = true
		}
	}
	if !reflect.DeepEqual(got, want) && len(paths) > 0 {
		t.Errorf("lines %q expand to %v, want %v", d.Lines(), keys(got), keys(want))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestCounted(t *testing.T) {
	d := Group([]string{"cmd/a/main.go", "cmd/a/flags.go", "cmd/b/main.go", "internal/store/store.go", "internal/store/bolt.go", "README.md"})
	cases := []struct {
		budget int
		lines  []string
		depth  int
	}{
		{1000, []string{"cmd/a/ (2 files): main.go, flags.go", "cmd/b/ (1 file): main.go", "internal/store/ (2 files): store.go, bolt.go", "./ (1 file): README.md"}, -1},
		{100, []string{"cmd/a/ (2 files): main.go, … (1 more)", "cmd/b/ (1 file)", "internal/store/ (2 files)", "./ (1 file)"}, -1},
		{75, []string{"cmd/a/ (2 files)", "cmd/b/ (1 file)", "internal/store/ (2 files)", "./ (1 file)"}, -1},
		{60, []string{"cmd/ (3 files)", "internal/ (2 files)", "./ (1 file)"}, 1},
		{10, []string{"./ (6 files)"}, 0},
	}
	for _, c := range cases {
		lines, depth := d.Counted(c.budget)
		if !reflect.DeepEqual(lines, c.lines) || depth != c.depth {
			t.Errorf("budget %d: %q, depth %d; want %q, %d", c.budget, lines, depth, c.lines, c.depth)
		}
		if Size(lines) > c.budget && depth != 0 {
			t.Errorf("budget %d: %d bytes", c.budget, Size(lines))
		}
	}
	if got := Expand("cmd/a/ (2 files): main.go, … (1 more)"); !reflect.DeepEqual(got, []string{"cmd/a/main.go"}) {
		t.Errorf("Expand of a counted line: %q", got)
	}
	if got := Expand("cmd/ (3 files, 1 directory)"); got != nil {
		t.Errorf("Expand of a count alone: %q", got)
	}
}

// FuzzGroup: any list of paths groups without a panic, into lines no
// longer than the list and a few separators a path; the lines name every
// path (when no name holds the separators of the lines), and the counted
// lines stay within their budget, or are the one line of every path
// counted at the top.
func FuzzGroup(f *testing.F) {
	f.Add("cmd/a/main.go\ncmd/b/main.go\nREADME.md\ndocs/\n", 40)
	f.Add("/x/y\n/x/z/\n\n/x/y\n", 5)
	f.Add("deps/a/mix.exs\ndeps/b/mix.exs\nmix.exs\n", 0)
	f.Fuzz(func(t *testing.T, list string, budget int) {
		paths := strings.Split(list, "\n")
		d := Group(paths)
		var kept []string
		for _, p := range paths {
			if p != "" {
				kept = append(kept, p)
			}
		}
		// Each path once, at most its name and a few separators.
		if n := Size(d.Lines()); n > len(list)+4*len(kept)+1 {
			t.Errorf("%d bytes of lines for %d bytes of %d paths", n, len(list), len(kept))
		}
		if !strings.ContainsAny(list, "{}, (") {
			checkExpand(t, kept, d)
		}
		lines, depth := d.Counted(budget)
		if Size(lines) > budget && depth != 0 {
			t.Errorf("budget %d: %d bytes at depth %d: %q", budget, Size(lines), depth, lines)
		}
		if len(kept) > 0 && len(lines) == 0 {
			t.Error("no line counts the paths")
		}
	})
}
