package summarize

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

func TestParseStatus(t *testing.T) {
	cases := []struct {
		name, in string
		want     status
	}{
		{"porcelain v1", " M a.go\nM  b.go\nMM c.go\nA  d.go\n D e.go\n?? f.go\n!! g.o\nUU h.go\nR  old.go -> new.go\n",
			status{staged: []string{"M b.go", "M c.go", "A d.go", "R old.go -> new.go"}, unstaged: []string{"M a.go", "M c.go", "D e.go"},
				untracked: []string{"f.go"}, conflicts: []string{"h.go"}}},
		{"short with -b", "## main...origin/main [ahead 1]\n M a.go\n", status{branch: "main", unstaged: []string{"M a.go"}}},
		{"short on a branch without upstream", "## feature\n?? x\n", status{branch: "feature", untracked: []string{"x"}}},
		{"porcelain v2", "# branch.oid 1234\n# branch.head main\n1 .M N... 100644 100644 100644 aaa bbb a.go\n1 A. N... 000000 100644 100644 000 ccc with space.go\n2 R. N... 100644 100644 100644 ddd eee R100 new.go\told.go\nu UU N... 100644 100644 100644 100644 f g h c.go\n? n.go\n",
			status{branch: "main", staged: []string{"A with space.go", "R new.go"}, unstaged: []string{"M a.go"}, untracked: []string{"n.go"}, conflicts: []string{"c.go"}}},
		{"long format", `On branch spotter-gqc
Your branch is up to date with 'origin/spotter-gqc'.

Changes to be committed:
  (use "git restore --staged <file>..." to unstage)
	new file:   lib/a.ex
	modified:   lib/b.ex

Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
  (use "git restore <file>..." to discard changes in working directory)
	modified:   assets/js/app.js
	deleted:    old.ex

Unmerged paths:
  (use "git add <file>..." to mark resolution)
	both modified:   c.ex

Untracked files:
  (use "git add <file>..." to include in what will be committed)
	lib/spotter/new.ex
	priv/snapshots/

no changes added to commit (use "git add" and/or "git commit -a")
`, status{branch: "spotter-gqc", staged: []string{"A lib/a.ex", "M lib/b.ex"}, unstaged: []string{"M assets/js/app.js", "D old.ex"},
			untracked: []string{"lib/spotter/new.ex", "priv/snapshots/"}, conflicts: []string{"c.ex"}}},
		{"clean", "On branch main\nnothing to commit, working tree clean\n", status{branch: "main"}},
		{"not status at all", "fatal: not a git repository\n", status{}},
	}
	for _, c := range cases {
		if got := parseStatus(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestGitStatusSummary(t *testing.T) {
	out := " M a.go\nM  b.go\n?? c.go\n"
	for i := 0; i < 10; i++ {
		out += "?? new" + string(rune('0'+i)) + ".go\n"
	}
	got := summarizeWith(t, "Bash", `{"command":"git status --porcelain"}`, out)
	want := "[ctx-summarize] Bash `git status --porcelain`: ok; 1 staged, 1 modified, 11 untracked.\n" +
		"staged: M b.go\nmodified: M a.go\nuntracked: c.go, new0.go, new1.go, new2.go, new3.go, new4.go, new5.go, new6.go, new7.go, new8.go, new9.go"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// summarizeWith runs Rules on one call of a tool with the given input
// and output.
func summarizeWith(t *testing.T, tool, input, output string) string {
	t.Helper()
	tr := oneCall(t, kindCase{Name: tool, Input: json.RawMessage(input)}, output)
	s, ok := Rules{Cwd: "/repo"}.Summarize(tr.Calls[0], output)
	if !ok {
		return "(kept whole)"
	}
	return s
}

func TestParseHistory(t *testing.T) {
	patch := `commit 0123456789abcdef0123456789abcdef01234567
Author: A <a@b>
Date:   Fri Dec 31 12:40:26 2021 +0100

    Fix the thing (deadbeef1 was wrong)

diff --git a/x.go b/x.go
index 1..2 100644
--- a/x.go
+++ b/x.go
@@ -1,3 +1,4 @@
 package x
-var a = 1
+var a = 2
+var b = 3
 // a | b
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
`
	cases := []struct {
		name, in string
		want     history
	}{
		{"show with a patch", patch, history{commits: 1, files: []change{{path: "x.go", added: 2, removed: 1}, {path: "img.png", binary: true}}}},
		{"two commits", patch + strings.Replace(patch, "0123456789abcdef", "fedcba9876543210", 1), history{commits: 2,
			files: []change{{path: "x.go", added: 2, removed: 1}, {path: "img.png", binary: true}, {path: "x.go", added: 2, removed: 1}, {path: "img.png", binary: true}}}},
		{"oneline log", "0629d16 feat: a\n9dd68ea fix: b\n* 29d0b84 (HEAD) c\n| * 41616f6 d\n", history{commits: 4}},
		{"stat", " assets/js/app.js      |  80 ++++++++--\n lib/a.ex | 10 ----------\n logo.png | Bin 0 -> 120 bytes\n 3 files changed, 70 insertions(+), 20 deletions(-)\n",
			history{files: []change{{path: "assets/js/app.js", added: 64, removed: 16}, {path: "lib/a.ex", added: 0, removed: 10}, {path: "logo.png", binary: true}}}},
		{"nothing", "error: unknown revision\n", history{}},
	}
	for _, c := range cases {
		if got := parseHistory(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestParseListing(t *testing.T) {
	cases := []struct {
		name, in, cwd string
		files, dirs   int
		parents       int
		paths         []string
	}{
		{"paths", "/repo/cmd/a.go\n/repo/cmd/b.go\n/repo/internal/x/c.go\n", "/repo", 3, 0, 2, []string{"cmd/a.go", "cmd/b.go", "internal/x/c.go"}},
		{"paths under one directory", "./pkg/a/x.go\n./pkg/a/y.go\n./pkg/b/z.go\n", "", 3, 0, 2, []string{"pkg/a/x.go", "pkg/a/y.go", "pkg/b/z.go"}},
		{"ls -la", "total 240\ndrwxrwxrwx 1 root root  4096 May  6  2025 .\ndrwxr-xr-x 1 root root  4096 Apr 10 04:04 ..\n-rw-r--r-- 1 root root  1992 May  6  2025 .coveragerc\ndrwxr-xr-x@ 9 user  staff   288 Jan  8 22:06 docs\nlrwxr-xr-x 1 u g 10 Jan  8 22:06 link -> target\n",
			"", 2, 1, 1, []string{".coveragerc", "docs/", "link"}},
		{"ls of two directories", "a:\nx.go\n\nb:\ny.go\n", "", 2, 0, 2, []string{"a/x.go", "b/y.go"}},
		{"list tool tree", "- /w/\n  - a.go\n  - sub/\n    - b.go\n  - c.go\n\nNOTE: do not trust\n", "/w", 3, 2, 2, []string{"/w/", "a.go", "sub/", "sub/b.go", "c.go"}},
		{"truncated glob", "/r/a.go\n/r/b.go\n(Results are truncated. Consider using a more specific path or pattern.)\n", "/r", 2, 0, 1, []string{"a.go", "b.go"}},
	}
	for _, c := range cases {
		l := parseListing(c.in, c.cwd)
		if l.files != c.files || l.dirs != c.dirs || len(l.parents) != c.parents || !reflect.DeepEqual(l.paths, c.paths) {
			t.Errorf("%s: %d files, %d dirs in %d parents, paths %q; want %d, %d, %d, %q",
				c.name, l.files, l.dirs, len(l.parents), l.paths, c.files, c.dirs, c.parents, c.paths)
		}
	}
}

func TestTree(t *testing.T) {
	out := ".\n├── cmd\n│   └── ctx-count\n│       └── main.go\n├── docs\n│   └── markers.md\n├── go.mod\n├── internal\n│   ├── cli\n│   │   ├── app.go\n│   │   └── io.go\n│   └── count\n│       └── count.go\n└── Makefile\n\n7 directories, 7 files\n"
	got := summarizeWith(t, "Bash", `{"command":"tree"}`, out)
	want := "[ctx-summarize] Bash `tree`: ok; 7 directories, 7 files; 16 lines; top level: cmd, docs, go.mod, internal, Makefile; the tree is not shown here."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCodeMap(t *testing.T) {
	var b strings.Builder
	for _, f := range []string{"src/app.py", "src/db.py", "src/web/views.py"} {
		b.WriteString(f + ":\n⋮...\n│class App:\n│    def run(self):\n⋮...\n")
	}
	out := b.String()
	got := summarizeWith(t, "repo_map", `{}`, out)
	if !strings.HasPrefix(got, "[ctx-summarize] repo_map: 15 lines ("+textfmt.Int(utf8.RuneCountInString(out))+" chars); 3 files; the first 500 chars shown.\nsrc/app.py:") {
		t.Errorf("got\n%s", got)
	}
}

func TestExcerpt(t *testing.T) {
	body := "l1\nl2\nl3\nl4\nl5\nl6\nl7\n"
	total := countLines(body)
	cases := []struct {
		name  string
		lists [][]piece
		want  string
	}{
		{"ends", [][]piece{head(body, 2), tail(body, 2, total)}, "\nl1\nl2\n[3 lines omitted]\nl6\nl7"},
		{"one line omitted", [][]piece{head(body, 3), tail(body, 3, total)}, "\nl1\nl2\nl3\n[1 line omitted]\nl5\nl6\nl7"},
		{"overlapping", [][]piece{head(body, 5), tail(body, 5, total)}, "\nl1\nl2\nl3\nl4\nl5\nl6\nl7"},
		{"head only", [][]piece{head(body, 1)}, "\nl1\n[6 lines omitted]"},
		{"middle", [][]piece{{{3, "l4"}}}, "\n[3 lines omitted]\nl4\n[3 lines omitted]"},
		{"nothing", nil, "\n[7 lines omitted]"},
	}
	for _, c := range cases {
		if got := excerpt(body, total, c.lists...); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := tail("a\r\nb\r\n", 5, 2); !reflect.DeepEqual(got, []piece{{0, "a"}, {1, "b"}}) {
		t.Errorf("tail with CRLF: %+v", got)
	}
}

func TestClipLine(t *testing.T) {
	short := strings.Repeat("é", maxLine)
	if clipLine(short) != short {
		t.Error("a line of maxLine characters was clipped")
	}
	long := strings.Repeat("é", maxLine+5)
	if got, want := clipLine(long), strings.Repeat("é", maxLine)+"…(+5 chars)"; got != want {
		t.Errorf("clipLine = %q, want %q", got, want)
	}
	if got := oneLine("cat > a.py << 'EOF'\nprint(1)\nEOF", 100); got != "cat > a.py << 'EOF' …" {
		t.Errorf("oneLine = %q", got)
	}
}

// TestMarkerLineIsNoPointer: a command that reads "call ID" would make the
// marker line a pointer (docs/markers.md); it moves to the next line.
func TestMarkerLineIsNoPointer(t *testing.T) {
	out := strings.Repeat("log line\n", 40)
	got := summarizeWith(t, "Bash", `{"command":"./notify --call toolu_01 && echo call toolu_01 done"}`, out)
	if refs := marker.Refs(got); len(refs) > 0 {
		t.Errorf("marker line points at %q: %q", refs, got)
	}
	if !strings.HasPrefix(got, "[ctx-summarize] Bash:\nBash `./notify --call toolu_01 && echo call toolu_01 done`: ok; 40 lines") {
		t.Errorf("got %q", got)
	}
}

// TestShortKeptWhole: outputs of up to 10 lines (20 for a read) of short
// lines are kept whole; one line more, or long lines, and they are
// summarized.
func TestShortKeptWhole(t *testing.T) {
	cases := []struct {
		tool, input  string
		lines, width int
		whole        bool
	}{
		{"Bash", `{"command":"make"}`, 10, 20, true},
		{"Bash", `{"command":"make"}`, 11, 20, false},
		{"Bash", `{"command":"make"}`, 1, 2000, false},
		{"Read", `{"file_path":"a.go"}`, 20, 20, true},
		{"Read", `{"file_path":"a.go"}`, 21, 20, false},
		{"Glob", `{"pattern":"**"}`, 10, 20, true},
	}
	for _, c := range cases {
		out := strings.Repeat(strings.Repeat("x", c.width-1)+"\n", c.lines)
		got := summarizeWith(t, c.tool, c.input, out)
		if (got == "(kept whole)") != c.whole {
			t.Errorf("%s, %d lines of %d chars: %q", c.tool, c.lines, c.width, got)
		}
	}
}

// TestEditsAndWritesDecline: the summarizers leave edits and writes alone,
// whatever calls them.
func TestEditsAndWritesDecline(t *testing.T) {
	long := strings.Repeat("changed line\n", 50)
	for _, c := range []*transcript.Call{
		{Name: "Edit", Kind: tools.Edit},
		{Name: "Write", Kind: tools.Write},
	} {
		for _, s := range []Summarizer{Rules{}, Clear{Counter: nil}} {
			if got, ok := s.Summarize(c, long); ok {
				t.Errorf("%T summarized a %s: %q", s, c.Kind, got)
			}
		}
	}
}
