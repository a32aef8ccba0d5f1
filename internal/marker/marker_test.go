package marker

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

func TestParse(t *testing.T) {
	cases := []struct {
		text, tool, line string
		ok               bool
	}{
		{"[ctx-dedupe] Re-read of a.go: identical", "dedupe", "Re-read of a.go: identical", true},
		{"[ctx-truncate] 45,231 chars\nkept lines", "truncate", "45,231 chars", true},
		{"[ctx-summarize]", "summarize", "", true},
		{"[ctx-] x", "", "", false},
		{"[ctx-two words] x", "", "", false},
		{"text [ctx-dedupe] later", "", "", false},
		{"[ctx-dedupe", "", "", false},
		{"[ctx-summarize, model qwen2.5-coder:1.5b] Read a.go: 40 lines.\nIt defines", "summarize", "Read a.go: 40 lines.", true},
		{"[ctx-summarize, model gpt-4o mini] x", "summarize", "x", true},
		{"[ctx-summarize, ] x", "", "", false},
		{"[ctx-summarize,model] x", "", "", false},
		{"[ctx-summarize, model a\nb] x", "", "", false},
	}
	for _, c := range cases {
		tool, line, ok := Parse(c.text)
		if tool != c.tool || line != c.line || ok != c.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", c.text, tool, line, ok, c.tool, c.line, c.ok)
		}
	}
	if got := LineWith("summarize", "model a]b\nc", "x"); got != "[ctx-summarize, model a b c] x" || !Is(got, "summarize") {
		t.Errorf("LineWith = %q", got)
	}
	if !Is(Line("dedupe", "x"), "dedupe") || Is(Line("dedupe", "x"), "truncate") || !Is(Line("truncate", "x"), "") {
		t.Error("Is disagrees with Line")
	}
}

func TestRefs(t *testing.T) {
	got := Refs("[ctx-dedupe] Re-read of a.go: identical to the result of call toolu_01AB above; see also call call_9x.\nnot call other_1")
	want := []string{"toolu_01AB", "call_9x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %q, want %q", got, want)
	}
	if got := Refs("plain output mentioning call toolu_01AB"); got != nil {
		t.Errorf("Refs of a non-marker = %q", got)
	}
}

func TestReferenced(t *testing.T) {
	in := `[
{"role":"assistant","content":null,"tool_calls":[
 {"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}},
 {"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}},
 {"id":"c3","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.go\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"package a"},
{"role":"tool","tool_call_id":"c2","content":"[ctx-dedupe] Re-read of a.go: identical to the result of call c1 above; content not repeated here."},
{"role":"tool","tool_call_id":"c3","content":[{"type":"text","text":"[ctx-x] see call c3"}]}
]`
	tr := transcripttest.Parse(t, []byte(in))
	got := Referenced(tr)
	if want := map[string]bool{"c1": true, "c3": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("Referenced = %v, want %v", got, want)
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		in    string
		limit int
		want  string
	}{
		{"src/app.go", 80, "src/app.go"},
		{"git commit -m 'call it a day'", 80, "git commit -m 'call\u00a0it a day'"},
		{"call c1", 80, "call\u00a0c1"},
		{"recall x", 80, "recall x"},
		{"line one\nline two\t", 80, "line one line two"},
		{strings.Repeat("é", 12), 10, strings.Repeat("é", 9) + "…"},
		{strings.Repeat("é", 10), 10, strings.Repeat("é", 10)},
	}
	for _, c := range cases {
		got := Text(c.in, c.limit)
		if got != c.want {
			t.Errorf("Text(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
		if refs := Refs(Line("dedupe", got)); refs != nil {
			t.Errorf("Text(%q) reads as a pointer to %v", c.in, refs)
		}
	}
}

// FuzzText checks that any path or command fits a marker line: one line,
// no control characters, within the limit, and no "call ID" in it.
func FuzzText(f *testing.F) {
	f.Add("src/app.go", 80)
	f.Add("git commit -m 'call it'\nnext", 10)
	f.Add("call\tc1 call  c2 call\u00a0c3", 3)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 1 || limit > 500 || !utf8.ValidString(s) {
			return
		}
		got := Text(s, limit)
		if n := utf8.RuneCountInString(got); n > limit {
			t.Errorf("Text(%q, %d) = %q: %d characters", s, limit, got, n)
		}
		for _, r := range got {
			if unicode.IsControl(r) {
				t.Fatalf("Text(%q) = %q: control character %U", s, got, r)
			}
		}
		if refs := Refs(Line("dedupe", got)); refs != nil {
			t.Errorf("Text(%q) = %q reads as a pointer to %v", s, got, refs)
		}
	})
}

// TestCite: a citation ends the marker line, reads back as its handle, and
// is never read as a pointer.
func TestCite(t *testing.T) {
	line := "[ctx-dedupe] Re-read of a.go: identical to the result of call toolu_01AB above; content not repeated here."
	for _, h := range []string{"toolu_01MGqJNAucDoKPyZKrzvWLmx", "ctx_3f9a1c2b7d0e", "call_Ab3x-9.z:1", "0199a3f2-7d1e-4c55-9a0b-8f1e2d3c4b5a"} {
		got := Cite(line, h)
		want := "[ctx-dedupe] Re-read of a.go: identical to the result of call toolu_01AB above; content not repeated here; full output: ctx-recall " + h + " (or memory_query id=" + h + ")."
		if got != want {
			t.Errorf("Cite(%q) = %q", h, got)
		}
		if Cited(got) != h {
			t.Errorf("Cited(%q) = %q, want %q", got, Cited(got), h)
		}
		if refs := Refs(got); !reflect.DeepEqual(refs, []string{"toolu_01AB"}) {
			t.Errorf("Refs(%q) = %q: the citation reads as a pointer", got, refs)
		}
	}
	if Cite(line, "") != line {
		t.Error("Cite without a handle changed the line")
	}
	for _, s := range []string{
		line,
		"; full output: ctx-recall a (or memory_query id=b).",  // two ids
		"; full output: ctx-recall a (or memory_query id=a). ", // not at the end
		"; full output: ctx-recall a b (or memory_query id=a b).",
	} {
		if h := Cited(s); h != "" {
			t.Errorf("Cited(%q) = %q, want none", s, h)
		}
	}
}

func TestCitedIn(t *testing.T) {
	const cite = "; full output: ctx-recall h1 (or memory_query id=h1)."
	cases := map[string]string{
		"[ctx-dedupe] Re-read of a.go: identical to the result of call c1 above; content not repeated here" + cite:                           "h1",
		"[ctx-summarize] Bash:\nBash `echo call c1`: ok; 40 lines (120 chars)" + cite + "\nlast":                                             "h1",
		"head\nmore\n[ctx-truncate] 900 chars, 90 lines; 800 chars (80 lines) cut here; kept the first 2 and last 1 lines" + cite + "\ntail": "h1",
		"[ctx-dedupe] Re-read of a.go: identical to the result of call c1 above; content not repeated here.":                                 "",
		"an output that ends" + cite: "",
	}
	for text, want := range cases {
		if got := CitedIn(text); got != want {
			t.Errorf("CitedIn(%q) = %q, want %q", text, got, want)
		}
	}
}
