package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// checkScan compares the scanner with gjson on one valid JSON document:
// every key of every object and every element of every array, with its raw
// text, offset and decoded string.
func checkScan(t *testing.T, doc string) {
	t.Helper()
	var walk func(v Value, g gjson.Result)
	walk = func(v Value, g gjson.Result) {
		if v.Raw != g.Raw {
			t.Fatalf("raw %q, gjson has %q", v.Raw, g.Raw)
		}
		if doc[v.Off:v.Off+len(v.Raw)] != v.Raw {
			t.Fatalf("value %q is not at offset %d", v.Raw, v.Off)
		}
		if g.Type == gjson.String && v.Str() != g.Str {
			t.Fatalf("str() = %q, gjson has %q", v.Str(), g.Str)
		}
		switch {
		case g.IsObject():
			var keys []string
			var vals []gjson.Result
			seen := map[string]int{}
			g.ForEach(func(k, gv gjson.Result) bool {
				if j, ok := seen[k.Str]; ok { // the last of repeated keys
					vals[j] = gv
					return true
				}
				seen[k.Str] = len(keys)
				keys = append(keys, k.Str)
				vals = append(vals, gv)
				return true
			})
			got := v.Fields(append(keys, "\x00absent")...)
			if got[len(keys)].Exists() {
				t.Fatalf("an absent key was found in %q", v.Raw)
			}
			for i := range keys {
				if !got[i].Exists() {
					t.Fatalf("key %q of %q not found", keys[i], v.Raw)
				}
				walk(got[i], vals[i])
				// Stepping over a value read before finds the same.
				if again := v.FieldsSkipping(got[i], keys...); !slices.Equal(again, got[:len(keys)]) {
					t.Fatalf("skipping %q: %v, want %v", got[i].Raw, again, got[:len(keys)])
				}
			}
		case g.IsArray():
			elems := g.Array()
			i := 0
			v.Each(func(e Value) bool {
				if i >= len(elems) {
					t.Fatalf("more elements than gjson finds in %q", v.Raw)
				}
				walk(e, elems[i])
				i++
				return true
			})
			if i != len(elems) {
				t.Fatalf("%d elements, gjson finds %d, in %q", i, len(elems), v.Raw)
			}
		}
	}
	trimmed := len(doc) - len(trimLeftSpace(doc))
	root := Value{Raw: trimRightSpace(doc[trimmed:]), Off: trimmed}
	walk(root, gjson.Parse(root.Raw))
}

func trimLeftSpace(s string) string {
	return s[skipSpace(s, 0):]
}

func trimRightSpace(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\n' || s[i-1] == '\r') {
		i--
	}
	return s[:i]
}

func TestScan(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `{"a":1}`, ` { "a" : [ 1 , "x" , {"b":null} ] , "c" : true } `,
		`{"a\"b":"q\\\"","c":"\\","d":"\u00e9\n","e\u0041":-1.5e3}`,
		`["]","}","{","[",",",":"]`,
		`{"k":{"k":{"k":"deep"}},"k":"second"}`,
	} {
		checkScan(t, doc)
	}
	if got := (Value{Raw: `{"e\u0041":1}`}).Get("eA"); got.Raw != "1" {
		t.Errorf("escaped key: got %q", got.Raw)
	}
	// A repeated key gives its last value, as encoding/json does, an
	// escaped spelling of it too.
	dup := Value{Raw: `{"content":"first","role":"tool","content":"second","r\u006fle":"user"}`}
	if f := dup.Fields("content", "role"); f[0].Str() != "second" || f[1].Str() != "user" {
		t.Errorf("repeated keys: got %q and %q, want the last of each", f[0].Raw, f[1].Raw)
	}
}

func FuzzScan(f *testing.F) {
	f.Add(`{"a":[1,"x",{"b":null}],"c":"\"}"}`)
	f.Add(`[{"role":"tool","content":"a\\"},2]`)
	f.Fuzz(func(t *testing.T, doc string) {
		if !Valid(doc) {
			return
		}
		checkScan(t, doc)
	})
}

func TestStrPrefix(t *testing.T) {
	v := Value{Raw: `"ab\ncd\u00e9f\\g"`}
	for n := 0; n < 20; n++ {
		got := v.StrPrefix(n)
		if !strings.HasPrefix(v.Str(), got) || n >= len(v.Raw)-2 && got != v.Str() {
			t.Errorf("StrPrefix(%d) = %q of %q", n, got, v.Str())
		}
	}
	if got := (Value{Raw: `7`}).StrPrefix(3); got != "" {
		t.Errorf("StrPrefix of a number = %q", got)
	}
}

func FuzzStrPrefix(f *testing.F) {
	f.Add(`"a\"b\\c\u0041\ud83d\ude00 tail"`, 4)
	f.Fuzz(func(t *testing.T, raw string, n int) {
		if !Valid(raw) || raw[0] != '"' || n < 0 {
			return
		}
		v := Value{Raw: raw}
		got := v.StrPrefix(n)
		if !strings.HasPrefix(v.Str(), got) && !strings.ContainsRune(got, '\uFFFD') {
			t.Fatalf("StrPrefix(%d) = %q is not a prefix of %q", n, got, v.Str())
		}
	})
}

// FuzzStr: a string decodes as gjson and encoding/json decode it (gjson's
// way where they part: a lone surrogate, bytes that are not UTF-8).
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\tc\\d\"e\/f\b\f\r"`, `"\u00e9\u4f60\ud83d\ude00"`, `"\ud83d alone \ude00"`, `"\ud83d\u0041"`, `"end\\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !Valid(raw) || !Parse(raw, 0).IsString() {
			return
		}
		raw = Parse(raw, 0).Raw
		if got, want := (Value{Raw: raw}).Str(), gjson.Parse(raw).Str; got != want {
			t.Fatalf("Str(%q) = %q, gjson says %q", raw, got, want)
		}
		var std string
		if err := json.Unmarshal([]byte(raw), &std); err == nil && utf8.ValidString(raw) && !strings.Contains(raw, `\ud`) && !strings.Contains(raw, `\uD`) {
			if got := (Value{Raw: raw}).Str(); got != std {
				t.Fatalf("Str(%q) = %q, encoding/json says %q", raw, got, std)
			}
		}
	})
}

// BenchmarkStr decodes a tool output of 64 KB of escaped lines, with Str
// and, for comparison, with gjson, whose decoder Str's replaces.
func BenchmarkStr(b *testing.B) {
	raw, _ := json.Marshal(strings.Repeat("=== RUN   TestStore17\n    store_test.go:142: Get(\"abc\"): got link\t→ want ErrNotFound\n", 700))
	v := Value{Raw: string(raw)}
	b.Run("jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			_ = v.Str()
		}
	})
	b.Run("gjson", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			_ = gjson.Parse(v.Raw).Str
		}
	})
}

// FuzzQuote: Quote is encoding/json's encoding of a string, <, > and &
// left as they are, whether it takes the plain path or not.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain text 1 < 2 & 3 > 0", "a \"quote\" and \\ a backslash", "tab\there\n", "é\u2028\x7f\xff", "… → é\u2029\u2028x\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got, want := Quote(s), strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Fatalf("Quote(%q) = %s, encoding/json gives %s", s, got, want)
		}
	})
}
