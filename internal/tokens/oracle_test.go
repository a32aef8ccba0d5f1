package tokens

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktokenCounter is the oracle: tiktoken-go over the same embedded ranks.
type tiktokenCounter struct {
	name string
	enc  *tiktoken.Tiktoken
}

func (t *tiktokenCounter) Name() string       { return t.name }
func (t *tiktokenCounter) Count(s string) int { return len(t.enc.EncodeOrdinary(s)) }

var (
	oracleOnce sync.Once
	oracles    map[string]*tiktokenCounter
)

// oracle returns tiktoken-go's counter for an encoding, loaded once.
func oracle(tb testing.TB, name string) *tiktokenCounter {
	oracleOnce.Do(func() {
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		oracles = map[string]*tiktokenCounter{}
		for _, n := range exactNames {
			enc, err := tiktoken.GetEncoding(n)
			if err != nil {
				panic(err)
			}
			oracles[n] = &tiktokenCounter{n, enc}
		}
	})
	return oracles[name]
}

var exactNames = []string{"o200k_base", "cl100k_base"}

func fast(tb testing.TB, name string) Counter {
	c, err := New(name)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// jsonStrings returns every string value in a JSON or JSON Lines file:
// message text, tool input and tool output alike.
func jsonStrings(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		walk(v)
	}
}

// compare reports the first inputs where the fast counter and tiktoken-go
// disagree, with the pieces where the split differs from the pattern's.
func compare(t *testing.T, name string, texts []string) {
	t.Helper()
	c, o := fast(t, name), oracle(t, name)
	bad := 0
	for _, s := range texts {
		got, want := c.Count(s), o.Count(s)
		if got == want {
			continue
		}
		t.Errorf("%s: Count(%.200q) = %d, tiktoken-go says %d%s", name, s, got, want, splitDiff(name, s))
		if bad++; bad == 5 {
			t.Fatal("too many mismatches")
		}
	}
}

func TestCorpusMatchesTiktoken(t *testing.T) {
	files := testutil.CorpusFiles(t)
	for _, name := range exactNames {
		oracle(t, name) // load before the subtests run in parallel
	}
	for _, path := range files {
		texts, err := jsonStrings(path)
		if err != nil {
			t.Fatal(err)
		}
		texts = dedupe(texts)
		if raceEnabled || testing.Short() {
			texts = sample(texts, 8)
		}
		for _, name := range exactNames {
			t.Run(filepath.Base(path)+"/"+name, func(t *testing.T) {
				t.Parallel()
				compare(t, name, texts)
			})
		}
	}
}

// sample keeps every nth text.
func sample(texts []string, n int) []string {
	var out []string
	for k := 0; k < len(texts); k += n {
		out = append(out, texts[k])
	}
	return out
}

func dedupe(texts []string) []string {
	slices.Sort(texts)
	return slices.Compact(texts)
}

func TestUnicodeMatchesTiktoken(t *testing.T) {
	texts := unicodeTexts(rand.New(rand.NewPCG(1, 2)), 300, 600)
	for _, name := range exactNames {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			compare(t, name, texts)
		})
	}
}

// TestEdgeCasesMatchTiktoken pins inputs that exercise each alternative of
// the split patterns and the merge's corner cases.
func TestEdgeCasesMatchTiktoken(t *testing.T) {
	texts := append(slices.Clone(edgeCases),
		strings.Repeat("a", 5000),         // one long piece: the heap merge
		strings.Repeat(" ", 3000)+"x",     // long whitespace run before a word
		strings.Repeat("\r\n", 700),       // CRLF runs
		strings.Repeat("Zm9vYmFy", 400),   // base64-looking letters and digits
		strings.Repeat("\xff\xfe", 300),   // long invalid UTF-8
		strings.Repeat("ab", 33),          // just past the small-piece merge
		strings.Repeat("xq", 32),          // exactly the small-piece limit
		strings.Repeat("🙂", 100)+"\u200d", // symbols then a joiner
	)
	for _, name := range exactNames {
		compare(t, name, texts)
	}
}

var edgeCases = []string{
	"", "a", " ", "\n", "hello world", "Hello World", "HELLO world", "HELLOworld",
	"helloWorld", "camelCaseIdentifierName", "snake_case_name", "ALLCAPS",
	"don't", "DON'T", "we're they've I'm you'll he'd it's", "'s", "'S", "'sup",
	"'Re", "'ll'", "x'", "'", "''", "l'Été", "O'NEIL'S",
	"<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>x<|fim_suffix|>",
	"12345", "1234567", "3.14159", "v1.2.3", "0x1F", "١٢٣٤", "٣٤٥٦٧", "²³¹", "ⅫⅣ", "½¾",
	"a  b", "a   b", "a\tb", "a \tb", "a\t\tb", "  x", "x  ", "   ", "\t", " \n", "\n ", "x\n\n y",
	"\r\n", "a\r\nb", "\r\r\n\n", " \r\n  x", "a\u00a0b", "a\u0085b", "a\u2028b", "\u3000x",
	"x\v\fy", "!!\n/\n", " !?", "?/", "foo/bar", "a // b", "/usr/bin/env", "http://x.y/z?q=1",
	"{\"key\": [1, 2]}", "$ go test ./...\nok  \tpkg\t0.1s\n", "func f() {\n\treturn nil\n}\n",
	"é", "e\u0301", "\u0301", "\u0301x", "x\u0301\u0302", " \u0301", "!\u0301", "A\u0301B",
	"中文字符", "日本語のテキスト", "한국어", "русский Текст", "ΕΛΛΗΝΙΚΆ ελληνικά", "עברית", "العربية",
	"हिन्दी", "தமிழ்", "ไทย", "ǅungla", "ǅ", "ʰʲ", "Aʰb", "ʰA", "ﬃ", "ß", "İstanbul", "ſ", "K",
	"👍", "👨‍👩‍👧‍👦", "🏳️‍🌈", "a🙂b", "🇫🇷🇩🇪", "\ufeff", "\u200b\u200c", "\ufffd", "\x00\x01",
	"\xff", "\xe2\x82", "\xe2\x82\xac", "a\xffb", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
	" \xff", "'\xff", "\xffs", "x'\xe2\x82",
}

// unicodeTexts builds count texts of about size runes drawn from every
// script, mark, number class and the whitespace and punctuation the split
// patterns treat specially, with some invalid UTF-8.
func unicodeTexts(rng *rand.Rand, count, size int) []string {
	var scripts []*unicode.RangeTable
	for _, name := range slices.Sorted(maps.Keys(unicode.Scripts)) {
		scripts = append(scripts, unicode.Scripts[name])
	}
	classes := []*unicode.RangeTable{unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo,
		unicode.Mn, unicode.Mc, unicode.Me, unicode.Nd, unicode.Nl, unicode.No, unicode.P,
		unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.White_Space}
	bits := []string{" ", " ", "  ", "\t", "\n", "\r\n", "\n\n", "   \n", " \t ", "'s", "'LL", "'ve",
		"'", "/", " /", "<|endoftext|>", "\u200d", "👍🏽", "👨‍💻", "\ufe0f", "\xff", "\xe2\x82", "\xc3",
		"é", "e\u0301", "ǅ", "ʰ", "Ab", "aB", "123", "4567", "١٢", "…", "—", "“", "”", "’s", "\u00a0",
		"\u0085", "\u2028", "\u3000", "{\"a\":1}", "x := y", "$ ls -la", "\\n", "\x00"}
	texts := make([]string, count)
	var b strings.Builder
	for k := range texts {
		b.Reset()
		// Each text leans on a few scripts, like real mixed-language text.
		local := []*unicode.RangeTable{scripts[rng.IntN(len(scripts))], scripts[rng.IntN(len(scripts))], unicode.Latin}
		for b.Len() < size {
			switch x := rng.IntN(10); {
			case x < 4:
				t := local[rng.IntN(len(local))]
				for n := 1 + rng.IntN(8); n > 0; n-- {
					b.WriteRune(pick(rng, t))
				}
			case x < 6:
				b.WriteRune(pick(rng, classes[rng.IntN(len(classes))]))
			case x < 7:
				b.WriteRune(pick(rng, scripts[rng.IntN(len(scripts))]))
			default:
				b.WriteString(bits[rng.IntN(len(bits))])
			}
		}
		texts[k] = b.String()
	}
	return texts
}

// pick returns a random rune of a table.
func pick(rng *rand.Rand, t *unicode.RangeTable) rune {
	total := 0
	for _, r := range t.R16 {
		total += int(r.Hi-r.Lo)/int(r.Stride) + 1
	}
	for _, r := range t.R32 {
		total += int(r.Hi-r.Lo)/int(r.Stride) + 1
	}
	k := rng.IntN(total)
	for _, r := range t.R16 {
		n := int(r.Hi-r.Lo)/int(r.Stride) + 1
		if k < n {
			return rune(r.Lo) + rune(k)*rune(r.Stride)
		}
		k -= n
	}
	for _, r := range t.R32 {
		n := int(r.Hi-r.Lo)/int(r.Stride) + 1
		if k < n {
			return rune(r.Lo) + rune(k)*rune(r.Stride)
		}
		k -= n
	}
	panic("unreachable")
}

func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range edgeCases {
		f.Add(s)
	}
	for _, s := range unicodeTexts(rand.New(rand.NewPCG(3, 4)), 20, 60) {
		f.Add(s)
	}
	for _, name := range exactNames {
		oracle(f, name)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range exactNames {
			if got, want := fast(t, name).Count(s), oracle(t, name).Count(s); got != want {
				t.Fatalf("%s: Count(%q) = %d, tiktoken-go says %d%s", name, s, got, want, splitDiff(name, s))
			}
		}
	})
}

// splitDiff describes where our split of s departs from the pattern's, to
// tell a pre-tokenizer bug from a merge bug.
func splitDiff(name string, s string) string {
	got, want := split(name, s), regexSplit(name, s)
	for k := range min(len(got), len(want)) {
		if got[k] != want[k] {
			return fmt.Sprintf("; piece %d is %q, the pattern's is %q", k, got[k], want[k])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("; %d pieces, the pattern has %d", len(got), len(want))
	}
	return "; same split"
}
