package tokens

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// The split patterns exactly as tiktoken-go v0.1.8 compiles them.
var patterns = map[string]*regexp2.Regexp{
	"cl100k_base": regexp2.MustCompile(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`, regexp2.None),
	"o200k_base": regexp2.MustCompile(`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|`+
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|`+
		`\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`, regexp2.None),
}

// regexSplit cuts s with the encoding's pattern the way tiktoken-go does:
// over runes, so each invalid byte is a U+FFFD.
func regexSplit(name, s string) []string {
	re := patterns[name]
	runes := []rune(s)
	var out []string
	m, err := re.FindRunesMatch(runes)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
	}
	if err != nil {
		panic(err)
	}
	return out
}

// split cuts s with this package's pre-tokenizer.
func split(name, s string) []string {
	next := nextO200k
	if name == "cl100k_base" {
		next = nextCl100k
	}
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	var out []string
	for i := 0; i < len(s); {
		j := next(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func TestSplitTable(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"cl100k_base", "Hello world", []string{"Hello", " world"}},
		{"cl100k_base", "don't STOP'S", []string{"don", "'t", " STOP", "'S"}},
		{"cl100k_base", "'sup", []string{"'s", "up"}},
		{"o200k_base", "'sup", []string{"'sup"}},
		{"o200k_base", "don't STOP'S", []string{"don't", " STOP'S"}},
		{"o200k_base", "helloWorld HTTPServer", []string{"hello", "World", " HTTPServer"}},
		{"o200k_base", "HELLO world", []string{"HELLO", " world"}},
		{"cl100k_base", "1234567", []string{"123", "456", "7"}},
		{"cl100k_base", "a   b", []string{"a", "  ", " b"}},
		{"cl100k_base", "a  \n\n  b", []string{"a", "  \n\n", " ", " b"}},
		{"cl100k_base", "x  ", []string{"x", "  "}},
		{"cl100k_base", "a\tb", []string{"a", "\tb"}},
		{"cl100k_base", "a\t{", []string{"a", "\t", "{"}},
		{"cl100k_base", "a {", []string{"a", " {"}},
		{"cl100k_base", "!!\n/\n", []string{"!!\n", "/\n"}},
		{"o200k_base", "!!\n/\n", []string{"!!\n/\n"}},
		{"o200k_base", "e\u0301t\u00e9", []string{"e\u0301t\u00e9"}},
		{"o200k_base", "!\u0301 x", []string{"!\u0301", " x"}},
		{"cl100k_base", "a\xffb", []string{"a", "\ufffdb"}},
		{"cl100k_base", "<|endoftext|>", []string{"<|", "endoftext", "|>"}},
	}
	for _, c := range cases {
		got := split(c.name, c.text)
		if !equal(got, c.want) {
			t.Errorf("%s: split(%q) = %q, want %q", c.name, c.text, got, c.want)
		}
		if re := regexSplit(c.name, c.text); !equal(re, c.want) {
			t.Errorf("%s: the pattern splits %q as %q, the table says %q", c.name, c.text, re, c.want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// TestContractionLettersAreASCII backs contraction's byte comparison: no rune
// outside ASCII lowers to a letter of 's 't 're 've 'm 'll 'd.
func TestContractionLettersAreASCII(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		switch unicode.ToLower(r) {
		case 's', 't', 'r', 'e', 'v', 'm', 'l', 'd':
			t.Errorf("%U lowers to %q", r, unicode.ToLower(r))
		}
	}
}

func FuzzSplitMatchesPattern(f *testing.F) {
	for _, s := range edgeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range exactNames {
			if got, want := split(name, s), regexSplit(name, s); !equal(got, want) {
				t.Fatalf("%s: split(%q) = %q, the pattern gives %q", name, s, got, want)
			}
		}
	})
}

// TestSplitEveryRune runs every code point through both splitters, next to
// a cycle of neighbours that start each alternative of the patterns.
func TestSplitEveryRune(t *testing.T) {
	step := rune(1)
	if raceEnabled || testing.Short() {
		step = 13
	}
	neighbours := []string{" ", "a", "A", "1", "'", "\n", "!", "", "\u0301", "  ", "ǅ", "ʰ", "/"}
	var b strings.Builder
	k := 0
	flush := func() {
		s := b.String()
		b.Reset()
		for _, name := range exactNames {
			if got, want := split(name, s), regexSplit(name, s); !equal(got, want) {
				t.Fatalf("%s: split(%q) = %q, the pattern gives %q", name, s, got, want)
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r += step {
		b.WriteRune(r)
		b.WriteString(neighbours[k%len(neighbours)])
		if k++; k%2000 == 0 {
			flush()
		}
	}
	flush()
}
