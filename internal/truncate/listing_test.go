package truncate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// A listing of testdata/listings and the command that printed it (see
// testdata/listings/README.md).
var listingRuns = []logRun{
	{"find.log", "find net crypto/tls -name '*.go'", 0},
	{"find-failed.log", "find net /nonexistent crypto encoding -name '*_test.go'", 1},
	{"rg-files.log", "rg --files crypto/tls crypto/x509", 0},
	{"ls-R.log", "ls -R net crypto/tls", 0},
	{"ls-la.log", "ls -la ../test", 0},
	{"rg-l.log", `rg -l 'sync\.'`, 0},
	{"grep-rn.log", "grep -rn 'context.Context' net/http --include='*.go'", 0},
	{"rg-heading.log", "rg --heading -n 'ErrUnexpectedEOF' .", 0},
	{"rg-one-file.log", "rg -n 'return|err|if ' go/types/call.go", 0},
	{"git-diff-names.log", "git diff --name-only HEAD~40", 0},
}

func readListing(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "listings", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestGoldenListings cuts real listings and searches (testdata/listings)
// with the default rules, as the output of the commands that printed them,
// and compares the cut with testdata/golden/listings/NAME.golden (go test
// -update rewrites them). Each cut is within --max-chars, has fewer
// tokens, names or counts every path after its head, keeps a failed
// call's errors, and a second cut changes nothing.
func TestGoldenListings(t *testing.T) {
	ctr := counter(t, tokens.Default)
	for _, run := range listingRuns {
		t.Run(run.file, func(t *testing.T) {
			text := readListing(t, run.file)
			r := DefaultRules()
			r.Counter, r.Failed, r.Kind = ctr, run.exit != 0, tools.ClassifyCommand(run.command).Kind
			out, ok := Cut(text, r)
			if !ok || !strings.Contains(out, ") grouped here: ") {
				t.Fatalf("not grouped (%s):\n%.600s", r.Kind, out)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "listings", strings.TrimSuffix(run.file, ".log")+".golden"), []byte(out))
			if again, ok := Cut(out, r); ok || again != out {
				t.Error("a second cut changed it")
			}
			if n := utf8.RuneCountInString(out); n > r.Max {
				t.Errorf("%d chars, over --max-chars", n)
			}
			if ctr.Count(out) >= ctr.Count(text) {
				t.Error("not fewer tokens")
			}
			for _, line := range errorLines(text) {
				if r.Failed && !strings.Contains(out, line) {
					t.Errorf("error line lost: %q", line)
				}
			}
			checkCovered(t, r.Kind, text, out)
		})
	}
}

// checkCovered: every path or file of text (a listing's entries, a
// search's files) is in out: in its head, named by a grouped line, or
// counted with its directory; when the marker says every one is named,
// each is.
func checkCovered(t *testing.T, kind tools.Kind, text, out string) {
	t.Helper()
	sh, _ := parse(kind, text)
	var paths []string
	if sh.hits != nil {
		paths = sh.hits.Files
	} else {
		paths = sh.listing.Paths()
	}
	line, _ := marker.CutLine(out)
	i := strings.Index(out, line)
	head, below := out[:i], strings.Split(out[i+len(line):], "\n")
	under := ""
	if _, after, ok := strings.Cut(line, " under "); ok {
		under, _, _ = strings.Cut(after, ", ")
	}
	named, counted := map[string]bool{}, map[string]bool{}
	for _, l := range below {
		if dir, ok := pathlist.Counts(l); ok {
			counted[under+dir] = true
		}
		for _, p := range pathlist.Expand(l) {
			named[under+p] = true
		}
		if f, _, ok := strings.Cut(l, ": "); ok && sh.hits != nil { // a search's "file: 12, 40"
			named[under+f] = true
		}
		if f, _, ok := strings.Cut(l, " ("); ok && sh.hits != nil { // "file (3 matches)"
			named[under+f] = true
		}
		named[under+strings.TrimSuffix(l, ":")] = true
	}
	every := strings.Contains(line, "every one named") || strings.Contains(line, "every file named")
	for _, p := range paths {
		p = strings.TrimSuffix(p, "/")
		base := p[strings.LastIndexByte(p, '/')+1:] // ls -R names it under its directory's header
		inHead := strings.Contains(head, p+"\n") || strings.Contains(head, p+":") || strings.Contains(head, "\n"+base+"\n")
		switch {
		case inHead || named[p] || named[p+"/"]:
		case every:
			t.Errorf("%s: not named, though the marker says every one is", p)
		case !countedIn(counted, p):
			t.Errorf("%s: neither named nor counted", p)
		}
	}
}

// countedIn reports whether a counted directory holds p.
func countedIn(counted map[string]bool, p string) bool {
	for dir := range counted {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}

// TestListingShapes: what counts as a listing or a search, by the call's
// kind (internal/tools) and the output's shape, and what does not: a
// log whose lines look like paths, a file's text, tree's drawing, ls's
// columns, a search of one file without line numbers, grep -c.
func TestListingShapes(t *testing.T) {
	lines := func(n int, format string) string { return numbered(n, format) }
	cases := []struct {
		name  string
		kind  tools.Kind
		body  string
		paths int // of a listing
		hits  int // of a search
		notes int
	}{
		{"find", tools.List, lines(40, "./src/pkg%d/a.go"), 40, 0, 0},
		{"find with a complaint", tools.List, lines(20, "./a/f%d.go") + "find: ‘./b’: Permission denied\n" + lines(20, "./c/f%d.go"), 40, 0, 1},
		{"ls -R", tools.List, "net:\nhttp\nmail\n\nnet/http:\n" + lines(30, "f%d.go"), 32, 0, 0},
		{"ls -la", tools.List, "total 8\n" + lines(30, "-rw-r--r-- 1 u g 120 Jan  8 22:06 f%d.go"), 30, 0, 0},
		{"LS tool tree", tools.List, "- /w/\n" + lines(30, "  - f%d.go") + "\nNOTE: do any of the files above seem malicious?\n", 31, 0, 1},
		{"Glob, truncated", tools.List, lines(100, "/r/src/f%d.ts") + "(Results are truncated. Consider using a more specific path or pattern.)\n", 100, 0, 1},
		{"a name with a space, kept as it is", tools.List, lines(30, "docs/f%d.md") + "docs/Demo Prep.vtt\n", 30, 0, 1},
		{"grep -rn", tools.Search, lines(30, "src/a.go:%d:\treturn err"), 0, 30, 0},
		{"rg on one file", tools.Search, lines(30, "%d:\treturn err"), 0, 30, 0},
		{"rg headings", tools.Search, "src/a.rs\n" + lines(20, "%d:fn a()") + "\nsrc/b.rs\n" + lines(20, "%d:b()"), 0, 40, 0},
		{"grep -l", tools.Search, lines(30, "src/f%d.go"), 30, 0, 0},
		{"Grep's files", tools.Search, "Found 30 files\n" + lines(30, "src/f%d.go"), 30, 0, 1},
		{"git diff --name-only", tools.Git, lines(30, "internal/x/f%d.go"), 30, 0, 0},
		{"a script's find", tools.Shell, lines(30, "./build/out/f%d.o"), 30, 0, 0},

		{"a read of a file of paths", tools.Read, lines(30, "src/f%d.go"), 0, 0, 0},
		{"a fetch", tools.Web, lines(30, "https://example.com/p/%d"), 0, 0, 0},
		{"no call", "", lines(30, "src/f%d.go"), 0, 0, 0},
		{"tree", tools.List, ".\n" + lines(30, "├── f%d.go") + "\n1 directory, 30 files\n", 0, 0, 0},
		{"ls's columns", tools.List, lines(30, "a%d.go  b.go  c.go"), 0, 0, 0},
		{"find -exec cat", tools.List, lines(30, "func F%d() { return nil }"), 0, 0, 0},
		{"grep -A on one file, bare lines", tools.Search, lines(30, "    if x == %d {"), 0, 0, 0},
		{"grep -c", tools.Search, lines(30, "src/f%d.go:3"), 0, 0, 0},
		{"a compiler's errors", tools.Shell, lines(30, "src/module_%03d.c:5:26: error: ‘struct config’ has no member named ‘retries’"), 0, 0, 0},
		{"gcc steps", tools.Shell, lines(30, "cc -Wall -c src/module_%03d.c -o build/module.o"), 0, 0, 0},
		{"URLs", tools.Shell, lines(30, "https://proxy.golang.org/x/%d.zip"), 0, 0, 0},
		{"version numbers", tools.Shell, lines(30, "1.2.%d"), 0, 0, 0},
		{"a watcher's log repeats its paths", tools.Shell, strings.Repeat("src/app.go\nsrc/db.go\n", 15), 0, 0, 0},
		{"module names, most without a slash", tools.Shell, "archive/tar\nbufio\nbytes\ncmp\ncontainer/heap\ncontext\ncrypto\nerrors\nembed\nflag\nfmt\nhash\nio\n", 0, 0, 0},
		{"too few paths", tools.Shell, lines(5, "src/f%d.go"), 0, 0, 0},
		{"mostly complaints", tools.List, lines(5, "./a/f%d.go") + lines(5, "find: ‘./b%d’: Permission denied"), 0, 0, 0},
	}
	for _, c := range cases {
		var g region
		sh, ok := parse(c.kind, c.body)
		if ok {
			g, ok = sh.from(0)
		}
		want := c.paths+c.hits > 0
		if ok != want || ok && (len(g.paths) != c.paths || len(g.hits) != c.hits || len(g.notes) != c.notes) {
			t.Errorf("%s: %v, %d paths, %d matches, %d notes; want %v, %d, %d, %d", c.name, ok, len(g.paths), len(g.hits), len(g.notes), want, c.paths, c.hits, c.notes)
		}
	}
	// The real logs of testdata/logs are logs, whatever the command.
	for _, l := range logRuns {
		for _, kind := range []tools.Kind{tools.Shell, tools.List, tools.Search} {
			sh, ok := parse(kind, readLog(t, l.file))
			if ok {
				_, ok = sh.from(0)
			}
			if ok {
				t.Errorf("%s as the output of a %s: a listing", l.file, kind)
			}
		}
	}
}

// TestGroupedReadsBack: the paths a listing's or a search's cut names
// read back (Grouped), with those of its head, are the paths or files of
// the output it cut, every one of them when the marker says every one is
// named; any other text is not a grouped cut.
func TestGroupedReadsBack(t *testing.T) {
	ctr := counter(t, tokens.Default)
	for _, run := range listingRuns {
		text := readListing(t, run.file)
		r := DefaultRules()
		r.Counter, r.Failed, r.Kind = ctr, run.exit != 0, tools.ClassifyCommand(run.command).Kind
		out, _ := Cut(text, r)
		head, paths, ok := Grouped(out)
		if !ok || !strings.HasPrefix(text, head) {
			t.Fatalf("%s: not read back (%v), or a head that is not the output's: %.200q", run.file, ok, head)
		}
		sh, _ := parse(r.Kind, text)
		var want []string
		if sh.hits != nil {
			want = sh.hits.Files
		} else {
			want = sh.listing.Paths()
		}
		got := map[string]bool{}
		for _, p := range paths {
			got[strings.TrimSuffix(p, "/")] = true
		}
		if hs, ok := parse(r.Kind, head); ok && hs.hits != nil {
			for _, f := range hs.hits.Files {
				got[f] = true
			}
		} else if ok {
			for _, p := range hs.listing.Paths() {
				got[strings.TrimSuffix(p, "/")] = true
			}
		}
		line, _ := marker.CutLine(out)
		every := strings.Contains(line, "every one named") || strings.Contains(line, "every file named")
		missing := 0
		for _, p := range want {
			if !got[strings.TrimSuffix(p, "/")] && !strings.Contains(head, p) {
				missing++
			}
		}
		if every && missing > 0 || len(want) > 0 && missing == len(want) {
			t.Errorf("%s: %d of %d paths not read back (%s)", run.file, missing, len(want), line)
		}
	}
	for _, text := range []string{"a\nb\n", readLog(t, "go-test.log"), numbered(40, "line %d")} {
		cut, _ := Cut(text, small())
		if _, _, ok := Grouped(cut); ok {
			t.Errorf("a log's cut read as a listing's: %.100q", cut)
		}
	}
}
