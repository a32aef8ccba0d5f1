package tools

import (
	"reflect"
	"strings"
	"testing"
)

func TestClassifyCommand(t *testing.T) {
	cases := []struct {
		cmd  string
		kind Kind
		args Args
	}{
		// Reads, with their ranges.
		{"cat src/app.go", Read, Args{Path: "src/app.go"}},
		{"cat -n src/app.go", Read, Args{Path: "src/app.go"}},
		{"cat 'my file.txt'", Read, Args{Path: "my file.txt"}},
		{`cat "dir with space/a.go" 2>/dev/null`, Read, Args{Path: "dir with space/a.go"}},
		{"sed -n '1,200p' internal/x.go", Read, Args{Path: "internal/x.go", Range: Range{Start: 1, End: 200}}},
		{"sed -n 5p a.txt", Read, Args{Path: "a.txt", Range: Range{Start: 5, End: 5}}},
		{"sed -n '40,$p' a.txt", Read, Args{Path: "a.txt", Range: Range{Start: 40}}},
		{"sed -n '1,$p' a.txt", Read, Args{Path: "a.txt"}},
		{"head -n 50 main.go", Read, Args{Path: "main.go", Range: Range{Start: 1, End: 50}}},
		{"head -20 main.go", Read, Args{Path: "main.go", Range: Range{Start: 1, End: 20}}},
		{"head main.go", Read, Args{Path: "main.go", Range: Range{Start: 1, End: 10}}},
		{"tail -n 30 log.txt", Read, Args{Path: "log.txt", Range: Range{Last: 30}}},
		{"tail -n +100 log.txt", Read, Args{Path: "log.txt", Range: Range{Start: 100}}},
		{"nl -ba a.py", Read, Args{Path: "a.py"}},
		{"nl -ba a.py | sed -n '10,20p'", Read, Args{Path: "a.py", Range: Range{Start: 10, End: 20}}},
		{"cat a.py | head -50", Read, Args{Path: "a.py", Range: Range{Start: 1, End: 50}}},
		{"sed -n '100,200p' a.py | head -10", Read, Args{Path: "a.py", Range: Range{Start: 100, End: 109}}},
		{"cd /testbed && cat astroid/modutils.py", Read, Args{Path: "astroid/modutils.py", Dir: "/testbed"}},
		{"cd /repo; echo '=== a ==='; sed -n '1,80p' a.go", Read, Args{Path: "a.go", Dir: "/repo", Range: Range{Start: 1, End: 80}}},
		{`bash -lc "sed -n '1,220p' /p/SKILL.md"`, Read, Args{Path: "/p/SKILL.md", Range: Range{Start: 1, End: 220}}},
		{"timeout 5 cat a.go", Read, Args{Path: "a.go"}},
		{"tail -f server.log", Shell, Args{}},
		{"tail -5 log.txt", Read, Args{Path: "log.txt", Range: Range{Last: 5}}},
		{"tail --lines=+7 log.txt", Read, Args{Path: "log.txt", Range: Range{Start: 7}}},
		{"head -q --lines 3 a.go", Read, Args{Path: "a.go", Range: Range{Start: 1, End: 3}}},
		{"head -n x a.go", Shell, Args{}},
		{"head -c 100 a.bin", Shell, Args{}},
		{"cat a.go b.go", Shell, Args{}},
		{"cat a.go | wc -l", Shell, Args{}},
		{"cat a.go | grep func", Search, Args{Path: "a.go", Pattern: "func"}},
		// Writes and edits.
		{"cat > notes.md <<'EOF'\n# Notes\nline\nEOF", Write, Args{Path: "notes.md", Paths: []string{"notes.md"}}},
		{"cat <<EOF > out.txt\nhello\nEOF\n", Write, Args{Path: "out.txt", Paths: []string{"out.txt"}}},
		{"echo hello >> log.txt", Edit, Args{Path: "log.txt", Paths: []string{"log.txt"}}},
		{"printf 'x' > a.txt", Write, Args{Path: "a.txt", Paths: []string{"a.txt"}}},
		{"echo hi | tee out.txt", Write, Args{Path: "out.txt", Paths: []string{"out.txt"}}},
		{"echo hi | tee -a out.txt", Edit, Args{Path: "out.txt", Paths: []string{"out.txt"}}},
		{"sed -i 's/a/b/' x.go", Edit, Args{Path: "x.go", Paths: []string{"x.go"}}},
		{"sed -i.bak -e 's/a/b/' x.go", Edit, Args{Path: "x.go", Paths: []string{"x.go"}}},
		{"apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/a.js\n@@\n-x\n+y\n*** Add File: src/b.js\n+z\n*** End Patch\nPATCH", Edit, Args{Path: "src/a.js", Paths: []string{"src/a.js", "src/b.js"}}},
		{"patch -p1 <<'EOF'\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\nEOF", Edit, Args{Path: "x.c", Paths: []string{"x.c"}}},
		// Listings and searches.
		{"ls -la", List, Args{Path: "."}},
		{"ls -la src/", List, Args{Path: "src/"}},
		{"find . -type f -name \"*.py\" | grep -E \"(astroid|pylint)\" | head -20", List, Args{Path: ".", Pattern: "*.py"}},
		{"find ~/.x -name '*.json' | xargs cat | jq '.syncState'", Shell, Args{}},
		{"ls -la | wc -l", Shell, Args{}},
		{"rg -n TODO src | sort | uniq", Search, Args{Path: "src", Pattern: "TODO"}},
		{"git log --oneline | head -5", Git, Args{Subcommand: "log"}},
		{"curl -s https://x.dev/api | jq .name", Shell, Args{}},
		{"tree -L 2 internal", List, Args{Path: "internal"}},
		{"rg --files src", List, Args{Path: "src"}},
		{"fd -e go handler internal", List, Args{Path: "internal", Pattern: "handler"}},
		{"grep -rn 'func main' .", Search, Args{Pattern: "func main", Path: "."}},
		{"grep -n -A 3 TODO a.go", Search, Args{Pattern: "TODO", Path: "a.go"}},
		{"rg -n -g '*.go' Handler internal", Search, Args{Pattern: "Handler", Path: "internal"}},
		{"rg -e foo src", Search, Args{Pattern: "foo", Path: "src"}},
		{"git grep -n parse", Search, Args{Pattern: "parse"}},
		// Git.
		{"git status", Git, Args{Subcommand: "status"}},
		{"git --no-pager diff", Git, Args{Subcommand: "diff"}},
		{"git -C /repo log --oneline -5", Git, Args{Dir: "/repo", Subcommand: "log"}},
		{"git diff HEAD -- a.go", Git, Args{Path: "a.go", Subcommand: "diff"}},
		{"git commit -m 'x'", Shell, Args{}},
		// Web.
		{"curl -s https://example.com/api", Web, Args{URL: "https://example.com/api"}},
		// Plain shell.
		{"go test ./...", Shell, Args{}},
		{"cd /repo && go test ./... 2>&1 | tail -30", Shell, Args{Dir: "/repo"}},
		{"for f in *.go; do cat $f; done", Shell, Args{}},
		{"(cd x && cat a)", Shell, Args{}},
		{"ls && cat a.go", Shell, Args{}},
		{"", Shell, Args{}},
	}
	for _, c := range cases {
		got := ClassifyCommand(c.cmd)
		if got.Kind != c.kind || !reflect.DeepEqual(got.Args, c.args) {
			t.Errorf("ClassifyCommand(%q)\n got %s %+v\nwant %s %+v", c.cmd, got.Kind, got.Args, c.kind, c.args)
		}
	}
}

func TestParseScriptHeredocAndQuotes(t *testing.T) {
	got := parseScript("cat > a.txt <<'EOF'\nline one\n  $HOME 'q'\nEOF\necho done | tr a b")
	if len(got) != 2 {
		t.Fatalf("want 2 pipelines, got %d: %+v", len(got), got)
	}
	if h := got[0][0].heredoc; h != "line one\n  $HOME 'q'\n" {
		t.Errorf("heredoc body = %q", h)
	}
	if w := got[1][1].words; !reflect.DeepEqual(w, []string{"tr", "a", "b"}) {
		t.Errorf("second pipeline's second command = %q", w)
	}
	words := parseScript(`echo "a \"b\" $(date +%s) c" 'd e' f\ g`)[0][0].words
	want := []string{"echo", `a "b" $(date +%s) c`, "d e", "f g"}
	if !reflect.DeepEqual(words, want) {
		t.Errorf("words = %q, want %q", words, want)
	}
}

func TestRangeString(t *testing.T) {
	cases := map[Range]string{
		{}:                   "",
		{Start: 1, End: 200}: "lines 1-200",
		{Start: 40}:          "lines 40-end",
		{Last: 20}:           "last 20 lines",
	}
	for r, want := range cases {
		if got := r.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", r, got, want)
		}
	}
}

func TestJoinArgvRoundTrips(t *testing.T) {
	argv := []string{"bash", "-lc", "sed -n '1,20p' 'a b.go'"}
	line := JoinArgv(argv)
	got := parseScript(line)[0][0].words
	if !reflect.DeepEqual(got, argv) {
		t.Errorf("JoinArgv(%q) = %q, which parses back as %q", argv, line, got)
	}
}

func TestMainStep(t *testing.T) {
	cases := []struct {
		cmd  string
		want Step
		ok   bool
	}{
		{"cat > a.txt <<'EOF'\nhello\n  world\nEOF", Step{Words: []string{"cat"}, Heredoc: "hello\n  world\n"}, true},
		{"cd /repo && cat >> log.txt << EOF\nx\nEOF\n", Step{Words: []string{"cat"}, Heredoc: "x\n"}, true},
		{`bash -lc "apply_patch <<'P'
*** Begin Patch
*** End Patch
P"`, Step{Words: []string{"apply_patch"}, Heredoc: "*** Begin Patch\n*** End Patch\n"}, true},
		{"apply_patch '*** Begin Patch\n*** End Patch'", Step{Words: []string{"apply_patch", "*** Begin Patch\n*** End Patch"}}, true},
		{"sudo sed -i 's/a/b/g' x.go", Step{Words: []string{"sed", "-i", "s/a/b/g", "x.go"}}, true},
		{"cat <<EOF | tee out.txt\nhi\nEOF", Step{Words: []string{"cat"}, Heredoc: "hi\n", Piped: true}, true},
		{"make && cat > a.txt <<EOF\nx\nEOF", Step{}, false},
		{"if true; then echo x > a; fi", Step{}, false},
		{"", Step{}, false},
	}
	for _, c := range cases {
		got, ok := MainStep(c.cmd)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("MainStep(%q) = %#v, %v; want %#v, %v", c.cmd, got, ok, c.want, c.ok)
		}
	}
}

func TestPrinted(t *testing.T) {
	cases := []struct {
		cmd    string
		files  []string
		lister string
	}{
		{"cat a.json b.json", []string{"a.json", "b.json"}, ""},
		{"head -n 5 a.log b.log | cut -c1-80", []string{"a.log", "b.log"}, ""},
		{"tail -20 x.out y.out", []string{"x.out", "y.out"}, ""},
		{"cd /r && cat src/*.go", []string{"src/*.go"}, ""},
		{"find . -name '*.json' | xargs cat | jq .", nil, "find . -name '*.json'"},
		{"git ls-files | grep test | xargs -n 1 head -3", nil, "git ls-files | grep test"},
		{"find . | xargs grep -l x", nil, ""},
		{"for f in a b; do cat $f; done", nil, ""},
		{"go test ./...", nil, ""},
		{"cat - < in.txt", nil, ""},
	}
	for _, c := range cases {
		files, lister := Printed(c.cmd)
		if strings.Join(files, " ") != strings.Join(c.files, " ") || lister != c.lister {
			t.Errorf("%q: files %q, lister %q; want %q, %q", c.cmd, files, lister, c.files, c.lister)
		}
	}
}
