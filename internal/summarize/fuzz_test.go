package summarize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// seeds are outputs of every shape the parsers read.
var seeds = []string{
	"On branch main\nChanges to be committed:\n\tmodified:   a.go\n\nUntracked files:\n\tb.go\n",
	" M a.go\n?? b.go\n## main...origin/main\n",
	"1 .M N... 100644 100644 100644 a b x.go\n2 R. N... 1 2 3 a b R100 n\to\nu UU N... 1 2 3 4 a b c d.go\n? e\n",
	"commit 0123456789abcdef0123456789abcdef01234567\n\n    msg\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
	" a.go | 3 ++-\n 1 file changed\n",
	"=== 1 failed, 2 passed in 0.1s ===\n--- FAIL: TestX\nok  \tpkg\t0.1s\ntest result: ok. 1 passed; 0 failed; 0 ignored\nRan 3 tests in 0.1s\nFAILED (failures=1)\n",
	"a.go:1:x\na.go-2-y\n--\n3:z\nFound 2 files\n",
	"total 8\ndrwxr-xr-x 1 a b 4096 May  6  2025 d\n-rw-r--r-- 1 a b 1 May  6  2025 f\n- x/\n  - y\nz:\n",
	"├── a\n│   └── b\n└── c\n\n1 directory, 2 files\n",
	"<returncode>0</returncode>\n<output>\nx\n</output>",
	"Chunk ID: 1\nProcess exited with code 0\nOutput:\nTotal output lines: 3\n\nx\n",
}

func FuzzParsers(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := parseStatus(s)
		var paths []string
		for _, p := range append(st.staged, st.unstaged...) {
			if len(p) < 2 || p[1] != ' ' || !isStatusCode(p[0]) {
				t.Errorf("status entry %q is not STATE PATH", p)
				continue
			}
			paths = append(paths, p[2:])
		}
		for _, p := range append(append(paths, st.untracked...), st.conflicts...) {
			if !strings.Contains(s, p) {
				t.Errorf("status path %q is not in the input", p)
			}
		}
		h := parseHistory(s)
		for _, c := range h.files {
			if c.added < 0 || c.removed < 0 {
				t.Errorf("negative counts: %+v", c)
			}
		}
		hits := parseHits(s, "/r", "a.go")
		if hits.Matches < len(hits.List) {
			t.Errorf("hits: %d matches, %d match lines", hits.Matches, len(hits.List))
		}
		files := map[string]bool{}
		for _, f := range hits.Files {
			files[f] = true
		}
		for _, x := range hits.List {
			if !files[x.File] || x.Line < 0 {
				t.Errorf("hit %+v: a file not listed, or a negative line", x)
			}
		}
		l := parseListing(s, "/r")
		if len(l.paths) != l.files+l.dirs {
			t.Errorf("listing: %d paths, %d files and %d directories", len(l.paths), l.files, l.dirs)
		}
	})
}

// FuzzSummarize runs every kind's summary on any output: it never panics,
// a summary is a [ctx-summarize] marker that points nowhere, and valid
// UTF-8 stays valid.
func FuzzSummarize(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, "Bash", `{"command":"git status"}`)
	}
	for _, in := range []string{`{"command":"go test ./..."}`, `{"command":"git diff"}`, `{"command":"ls -la"}`, `{"command":"grep -rn x ."}`,
		`{"command":"tree"}`, `{"command":"cat a.go"}`, `{"command":"curl https://x"}`} {
		f.Add(strings.Repeat("line\n", 30), "Bash", in)
	}
	for _, tool := range []string{"Read", "Glob", "Grep", "WebFetch", "TodoWrite", "repo_map", "Edit"} {
		f.Add(strings.Repeat("out put\n", 30), tool, `{"file_path":"a.go","pattern":"x","url":"https://x"}`)
	}
	table := tools.NewTable(nil)
	ctr, _ := tokens.New(tokens.Approx)
	f.Fuzz(func(t *testing.T, text, tool, input string) {
		kind, args := table.Decode(tool, input, false)
		c := &transcript.Call{Name: tool, Kind: kind, Args: args, Result: &transcript.Result{}}
		for _, s := range []Summarizer{Rules{Cwd: "/r"}, Clear{Cwd: "/r", Counter: ctr}} {
			got, ok := s.Summarize(c, text)
			if !ok {
				continue
			}
			if !marker.Is(got, "summarize") || len(marker.Refs(got)) > 0 {
				t.Errorf("%T: %q", s, got)
			}
			if utf8.ValidString(text) && utf8.ValidString(tool) && utf8.ValidString(input) && !utf8.ValidString(got) {
				t.Errorf("%T made invalid UTF-8 of valid input: %q", s, got)
			}
		}
	})
}

// FuzzModelSummary: whatever a model answers, and whatever its name, its
// summary is a [ctx-summarize] marker that points nowhere and keeps every
// fact, error line and path of the rules' summary.
func FuzzModelSummary(f *testing.F) {
	f.Add(testLog(), `{"command":"go test ./..."}`, "Ran the tests.", "qwen2.5-coder:1.5b")
	f.Add(seeds[6]+strings.Repeat("b.go:2:y\n", 20), `{"command":"grep -rn x ."}`, "see call toolu_1 above\n\n", "m]\n[x")
	f.Add(seeds[0], `{"command":"git status"}`, "", "")
	table := tools.NewTable(nil)
	f.Fuzz(func(t *testing.T, text, input, answer, model string) {
		kind, args := table.Decode("Bash", input, false)
		c := &transcript.Call{Name: "Bash", Kind: kind, Args: args, Result: &transcript.Result{}}
		_, o, ok := Rules{Cwd: "/r"}.summarize(c, text)
		if !ok {
			return
		}
		s := modelSummary(o, model, answer)
		head, _, _ := strings.Cut(s, "\n")
		if !marker.Is(s, "summarize") || len(marker.Refs(s)) > 0 {
			t.Errorf("not a marker, or one that points: %q", head)
		}
		for _, fact := range o.must.facts {
			if !strings.Contains(s, fact) {
				t.Errorf("fact %q lost", fact)
			}
		}
		for _, e := range append(o.must.errors, o.must.paths...) {
			if !strings.Contains(s, strings.TrimSpace(clipLine(e))) {
				t.Errorf("%q lost from %q", e, s)
			}
		}
	})
}
