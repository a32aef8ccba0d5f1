package facts

import (
	"slices"
	"strings"
	"testing"
)

func all(text string) []string {
	var out []string
	Each(text, func(f string) { out = append(out, f) })
	return out
}

// TestEach: the words of a text that are facts, and those that are not.
func TestEach(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"the quick brown fox jumps over the lazy Dog, TODO", nil},
		{"see internal/compact/loop.go and ./cmd/main.go.", []string{"internal/compact/loop.go", "cmd/main.go"}},
		{"/usr/bin/env python3", []string{"usr/bin/env", "python3"}},
		{"~/projects/app and ../x.go", []string{"projects/app", "x.go"}},
		{"internal/x.go:42:7: undefined: parseConfig", []string{"internal/x.go", "internal/x.go:42", "parseConfig"}},
		{"at a.go:1234", []string{"a.go", "a.go:1234", "1234"}},
		{"call self.assertEqual(os.path.join(a, b))", []string{"self.assertEqual", "os.path.join"}},
		{"snake_case __init__ MAX_SIZE _x", []string{"snake_case", "__init__", "MAX_SIZE"}},
		{"camelCase ParseConfig HTTPServer Session", []string{"camelCase", "ParseConfig"}},
		{"sha256 258c7280 utf8 x86 v2", []string{"sha256", "258c7280", "utf8"}},
		{"gpt-4o on 2026-11-06, claude-opus-4-6; a built-in re-read --no-cut", []string{"gpt-4o", "2026-11-06", "claude-opus-4-6"}},
		{"line 42, line 142, port 8080, 3.14 and 1.0", []string{"142", "8080", "3.14"}},
		{"e.g. i.e. etc. and/or .gitignore", []string{"and/or", ".gitignore"}},
		{"https://github.com/ctxkit/ctxkit/issues/31", []string{"github.com/ctxkit/ctxkit/issues/31"}},
		{`{"file_path": "/p/a_b.go", "old_string": "x", "replace_all": false}`, []string{"p/a_b.go"}},
		{`she said "the_value" is set, {"the_key": 1}`, []string{"the_value"}},
		{"a..b HEAD~1 /Users/.../x.go", nil},
		{"std::vector foo::bar_baz", []string{"bar_baz"}},
		{"loadSettings(path).Retries and .env", []string{"loadSettings", ".env"}},
		{"src/{a.go, b_c.py}\n/p/store/ (5 files): x.ts, … (4 more)", []string{"src/a.go", "src/b_c.py", "p/store/x.ts", "a.go", "b_c.py", "p/store", "x.ts"}},
	}
	for _, c := range cases {
		if got := all(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Each(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// TestForms: a fact shows its parts that are facts, so that a shorter
// spelling of a path or a name is shown by a longer one.
func TestForms(t *testing.T) {
	cases := []struct {
		fact string
		want []string
	}{
		{"snake_case", []string{"snake_case"}},
		{"internal/compact/loop.go", []string{"internal/compact/loop.go", "internal/compact", "internal/compact/loop", "compact/loop", "compact/loop.go", "loop.go"}},
		{"os.path.join", []string{"os.path.join", "os.path", "path.join"}},
		{"spotter-258c7280.jsonl", []string{"spotter-258c7280.jsonl", "spotter-258c7280", "258c7280", "258c7280.jsonl"}},
		{"x.go:42", []string{"x.go:42"}},
	}
	for _, c := range cases {
		var got []string
		Forms(c.fact, func(f string) { got = append(got, f) })
		if !slices.Equal(got, c.want) {
			t.Errorf("Forms(%q)\n got %q\nwant %q", c.fact, got, c.want)
		}
	}
}

// TestFactsAreFacts: every fact Each gives, and every form of it, is a
// substring of the text or of a location it names, and is a fact again
// when scanned on its own.
func TestFactsAreFacts(t *testing.T) {
	text := strings.Join([]string{"see internal/x.go:42 and /p/a/b_c.py:7:1, gpt-4o-mini", "self.fooBar(2026-11-06)", "x..y"}, "\n")
	Each(text, func(f string) {
		if !strings.Contains(text, f) {
			t.Errorf("%q is not in the text", f)
		}
		Forms(f, func(p string) {
			if got := all(p); !slices.Contains(got, p) {
				t.Errorf("form %q of %q scans as %q", p, f, got)
			}
		})
	})
}
