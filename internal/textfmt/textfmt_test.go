package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInt(t *testing.T) {
	cases := map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 45231: "45,231", 1234567: "1,234,567", -1234: "-1,234"}
	for n, want := range cases {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPercent(t *testing.T) {
	if got := Percent(0.7321); got != "73.2%" {
		t.Errorf("Percent(0.7321) = %q", got)
	}
}

func TestTable(t *testing.T) {
	tb := Table{Right: map[int]bool{1: true}, Indent: "  "}
	tb.Row("TOOL", "TOKENS", "PATH")
	tb.Row("Bash", "1,234", "go test")
	tb.Row("Read", "5", "é.go")
	var b strings.Builder
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "  TOOL  TOKENS  PATH\n  Bash   1,234  go test\n  Read       5  é.go\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestChange(t *testing.T) {
	cases := []struct {
		before, after int
		want          string
	}{
		{412330, 61020, "412,330 → 61,020 chars (−85%)"},
		{22981, 18151, "22,981 → 18,151 chars (−21%)"},
		{10856, 9881, "10,856 → 9,881 chars (−9.0%)"},
		{1000, 999, "1,000 → 999 chars (−0.1%)"},
		{100, 100, "100 → 100 chars (0%)"},
		{0, 0, "0 → 0 chars (0%)"},
		{100, 150, "100 → 150 chars (+50%)"},
	}
	for _, c := range cases {
		if got := Change(c.before, c.after, "chars"); got != c.want {
			t.Errorf("Change(%d, %d) = %q, want %q", c.before, c.after, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 6, "hello"},
		{"hello world", 5, "hell…"},
		{"héllo wörld", 5, "héll…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"", 3, ""},
	}
	for _, c := range cases {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	if got := RuneOffset("héllo", 2); got != 3 {
		t.Errorf("RuneOffset(héllo, 2) = %d, want 3", got)
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {2040, "2,040 files"}} {
		if got := Plural(c.n, "file", "files"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"internal/store/store.go", "internal/store/store.go"},
		{"é.go — ok", "é.go — ok"},
		{"a\tb", "a\tb"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"\x1b[2J\x1b[Hclear", `\x1b[2J\x1b[Hclear`},
		{"two\nlines\r\n", `two\nlines\r\n`},
		{"del\x7f", `del\x7f`},
		{"csi \u009b2J", `csi \u009b2J`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		{"nbsp\u00a0kept", "nbsp\u00a0kept"},
		{"nul\x00", `nul\x00`},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTableEscapes(t *testing.T) {
	tb := Table{}
	tb.Row("TOOL", "PATH")
	tb.Row("\x1b[31mBash", "a\nb")
	var b strings.Builder
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "TOOL          PATH\n\\x1b[31mBash  a\\nb\n"
	if b.String() != want {
		t.Errorf("table:\n%q\nwant:\n%q", b.String(), want)
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("\x1b[2J\u009b\xff\ttab\n")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q: not UTF-8", s, e)
		}
		for _, r := range e {
			if r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
				t.Fatalf("Escape(%q) = %q holds control character %U", s, e, r)
			}
		}
		if Escape(e) != e {
			t.Fatalf("Escape(%q) = %q is not stable", s, e)
		}
	})
}

func TestDollars(t *testing.T) {
	for x, want := range map[float64]string{0: "$0.0000", 0.03864: "$0.0386", 1: "$1.00", 6.4322: "$6.43", 1234.5: "$1,234.50", 0.99996: "$1.0000", -0.012: "−$0.0120"} {
		if got := Dollars(x); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in     string
		width  int
		indent string
		want   string
	}{
		{"a bb ccc dddd", 8, "", "a bb ccc\ndddd"},
		{"a bb ccc dddd", 8, "  ", "  a bb\n  ccc\n  dddd"},
		{"averyverylongword b", 6, "", "averyverylongword\nb"},
		{"one\ntwo three", 20, "", "one\ntwo three"},
		{"é é é", 3, "", "é é\né"},
		{"a\n\nb", 10, "  ", "  a\n\n  b"},
	} {
		if got := Wrap(tc.in, tc.width, tc.indent); got != tc.want {
			t.Errorf("Wrap(%q, %d, %q) = %q, want %q", tc.in, tc.width, tc.indent, got, tc.want)
		}
	}
}

func TestLineCol(t *testing.T) {
	const data = "ab\nçé x\n\nz"
	for _, c := range []struct{ off, line, col int }{
		{-1, 1, 1}, {0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {7, 2, 3}, {9, 2, 5}, {10, 3, 1}, {11, 4, 1}, {99, 4, 2},
	} {
		if l, col := LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}
