package pathlist

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseHits(t *testing.T) {
	cases := []struct {
		name, in, searched string
		matches, files     int
		hits               []Hit
		onlyFiles          bool
	}{
		{"path:line:text", "a/b.go:12:func A()\na/b.go:40:A()\nc.go:3:A()\n", "", 3, 2,
			[]Hit{{"a/b.go", 12, "func A()", 0}, {"a/b.go", 40, "A()", 1}, {"c.go", 3, "A()", 2}}, false},
		{"with context", "a.go-11-// A does\na.go:12:func A()\na.go-13-{\n--\nb.go-1-x\nb.go:2:A()\n", "", 2, 2,
			[]Hit{{"a.go", 12, "func A()", 1}, {"b.go", 2, "A()", 5}}, false},
		{"one file, numbered, with context", "147:    def url(self, name):\n148-        \"\"\"\n149-        Return\n", "s.py", 1, 1,
			[]Hit{{"s.py", 147, "    def url(self, name):", 0}}, false},
		{"one file, bare lines", "    def url(self, name):\n        return url\n", "", 2, 0,
			[]Hit{{"", 0, "    def url(self, name):", 0}, {"", 0, "        return url", 1}}, false},
		{"path:text", "django/conf/global_settings.py:FORCE_SCRIPT_NAME = None\ndjango/__init__.py:    x\n", "", 2, 2,
			[]Hit{{"django/conf/global_settings.py", 0, "FORCE_SCRIPT_NAME = None", 0}, {"django/__init__.py", 0, "    x", 1}}, false},
		{"files with matches", "Found 3 files\nsrc/a.ts\nsrc/b.ts\nREADME.md\n", "", 0, 3, nil, true},
		{"counts", "a.go:3\nb.go:0\nc.go:12\n", "", 15, 3, nil, false},
		{"rg headings", "src/a.rs\n12:fn a()\n40:a()\n\nsrc/b.rs\n3:a()\n", "", 3, 2,
			[]Hit{{"src/a.rs", 12, "fn a()", 1}, {"src/a.rs", 40, "a()", 2}, {"src/b.rs", 3, "a()", 5}}, false},
		{"no matches", "No matches found\n", "", 1, 0, []Hit{{"", 0, "No matches found", 0}}, false},
	}
	for _, c := range cases {
		h := ParseHits(c.in, c.searched, nil)
		if h.Matches != c.matches || len(h.Files) != c.files || !reflect.DeepEqual(h.List, c.hits) || h.OnlyFiles != c.onlyFiles {
			t.Errorf("%s: %d matches in %d files, hits %+v, only files %v; want %d, %d, %+v, %v",
				c.name, h.Matches, len(h.Files), h.List, h.OnlyFiles, c.matches, c.files, c.hits, c.onlyFiles)
		}
	}
}

func TestParseListing(t *testing.T) {
	cases := []struct {
		name, in string
		paths    []string
		lines    []int
		notes    []Note
	}{
		{"paths", "/repo/cmd/a.go\n/repo/cmd/b.go\n", []string{"/repo/cmd/a.go", "/repo/cmd/b.go"}, []int{0, 1}, nil},
		{"ls -la", "total 240\ndrwxrwxrwx 1 root root  4096 May  6  2025 .\n-rw-r--r-- 1 root root  1992 May  6  2025 .coveragerc\ndrwxr-xr-x@ 9 user  staff   288 Jan  8 22:06 docs\nlrwxr-xr-x 1 u g 10 Jan  8 22:06 link -> target\n",
			[]string{".coveragerc", "docs/", "link"}, []int{2, 3, 4}, nil},
		{"ls -R: each name in its directory", ".:\na.go\nsub\n\n./sub:\nb.go\nc d.txt\n", []string{"./a.go", "./sub", "./sub/b.go", "./sub/c d.txt"}, []int{1, 2, 5, 6}, nil},
		{"list tool tree", "- /w/\n  - a.go\n  - sub/\n    - b.go\n  - c.go\n\nNOTE: do not trust\n",
			[]string{"/w/", "/w/a.go", "/w/sub/", "/w/sub/b.go", "/w/c.go"}, []int{0, 1, 2, 3, 4}, []Note{{6, "NOTE: do not trust"}}},
		{"notes and messages", "Found 2 files\n/r/a.go\nfind: ‘/r/x’: Permission denied\n/r/b.go\n(Results are truncated. Consider using a more specific path or pattern.)\n",
			[]string{"/r/a.go", "/r/b.go"}, []int{1, 3}, []Note{{0, "Found 2 files"}, {2, "find: ‘/r/x’: Permission denied"},
				{4, "(Results are truncated. Consider using a more specific path or pattern.)"}}},
		{"a name with a colon is a name", "notes: draft.txt\nREADME.md\n", []string{"notes: draft.txt", "README.md"}, []int{0, 1}, nil},
	}
	for _, c := range cases {
		l := ParseListing(c.in, nil)
		var lines []int
		for _, e := range l.Entries {
			lines = append(lines, e.N)
		}
		if !reflect.DeepEqual(l.Paths(), c.paths) || !reflect.DeepEqual(lines, c.lines) || !reflect.DeepEqual(l.Notes, c.notes) {
			t.Errorf("%s: paths %q on lines %v, notes %+v; want %q, %v, %+v", c.name, l.Paths(), lines, l.Notes, c.paths, c.lines, c.notes)
		}
	}
	if got := ParseListing("./a.go\n./b/\n", func(p string) string { return strings.TrimPrefix(strings.TrimSuffix(p, "/"), "./") }).Paths(); !reflect.DeepEqual(got, []string{"a.go", "b/"}) {
		t.Errorf("norm: %q", got)
	}
}

func TestLineRanges(t *testing.T) {
	for in, want := range map[string]string{"": "", "3": "3", "3 4 5 9 11 12": "3-5, 9, 11-12"} {
		var nums []int
		for _, f := range strings.Fields(in) {
			n := 0
			for _, c := range f {
				n = n*10 + int(c-'0')
			}
			nums = append(nums, n)
		}
		if got := LineRanges(nums); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// FuzzParse: any output parses as a listing and as a search without a
// panic; every entry and match is on a line of the output, and a match's
// file is one of the files.
func FuzzParse(f *testing.F) {
	f.Add("a/b.go:12:func A()\nc.go-3-x\n--\nsrc/a.rs\n12:fn a()\n")
	f.Add(".:\na\n\n./b:\n- x/\n  - y\ntotal 3\n-rw-r--r-- 1 u g 1 Jan  8 22:06 z\n")
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Count(s, "\n") + 1
		l := ParseListing(s, nil)
		for _, e := range l.Entries {
			if e.N < 0 || e.N >= lines || e.Path == "" {
				t.Errorf("entry %+v of %d lines", e, lines)
			}
		}
		h := ParseHits(s, "a.go", nil)
		files := map[string]bool{}
		for _, f := range h.Files {
			files[f] = true
		}
		for _, x := range h.List {
			if !files[x.File] || x.Line < 0 || x.N < 0 || x.N >= lines {
				t.Errorf("hit %+v: a file not listed, or a line out of range", x)
			}
		}
	})
}

// FuzzFileHitsSize: FileHitsSize is the length of what WriteFileHits
// writes, for any matches, any of them shown, with numbers or counts.
func FuzzFileHitsSize(f *testing.F) {
	f.Add("a/b.go:12:x\na/b.go:13:y\na/b.go:15:z\nc.go:3:w\n3:bare\n", uint64(5), 2, false)
	f.Add("1:a\n2:b\n3:c\n10:d\n", uint64(2), 0, true)
	f.Fuzz(func(t *testing.T, body string, mask uint64, under int, counts bool) {
		h := ParseHits(body, "", nil)
		shown := make([]bool, len(h.List))
		matchLen := make([]int, len(h.List))
		for i, x := range h.List {
			shown[i] = mask>>(i%64)&1 == 1
			matchLen[i] = len(MatchLine(x))
			if n := MatchLineLen(x); n != matchLen[i] {
				t.Fatalf("MatchLineLen(%+v) = %d, want %d", x, n, matchLen[i])
			}
		}
		groups, _ := h.ByFile()
		for _, fh := range groups {
			var b strings.Builder
			WriteFileHits(&b, fh, h.List, shown, max(under, 0), counts)
			if got := FileHitsSize(fh, h.List, shown, max(under, 0), counts, matchLen); got != b.Len() {
				t.Fatalf("FileHitsSize %d, WriteFileHits wrote %d: %q", got, b.Len(), b.String())
			}
		}
	})
}

func TestMatchLine(t *testing.T) {
	long := strings.Repeat("é", 200)
	for _, c := range []struct {
		x    Hit
		want string
	}{
		{Hit{Line: 12, Text: "  return err "}, "12: return err"},
		{Hit{Text: "\treturn err"}, "return err"},
		{Hit{Line: 12345, Text: long}, "12345: " + strings.Repeat("é", HitText-8) + "…"},
		{Hit{Text: long}, strings.Repeat("é", HitText-1) + "…"},
	} {
		if got := MatchLine(c.x); got != c.want || utf8.RuneCountInString(got) > HitText || MatchLineLen(c.x) != len(got) {
			t.Errorf("MatchLine(%+v) = %q (MatchLineLen %d), want %q", c.x, got, MatchLineLen(c.x), c.want)
		}
	}
}
