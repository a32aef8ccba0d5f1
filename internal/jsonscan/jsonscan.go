// Package jsonscan walks JSON that has already been validated, without
// decoding what it walks past.
//
// gjson decodes every string it walks past in ForEach, and rescans an
// object for every Get; transcripts hold megabytes of tool output in single
// strings. A Value is a JSON value's raw text and where it starts in the
// input; Fields walks an object once for several keys, Each walks an array,
// and Str decodes a string only when asked. The input must be valid JSON
// (Check): that is what lets the scanner be this small. Nothing here
// recurses, so no input can exhaust the stack.
package jsonscan

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Value is a JSON value of the input, not yet decoded. The zero Value is an
// absent one.
type Value struct {
	Raw string // the value's text, exactly as in the input
	Off int    // where Raw starts in the input
}

// Parse returns the value that s holds, white space around it trimmed; off
// is where s starts in the whole input.
func Parse(s string, off int) Value {
	start := skipSpace(s, 0)
	end := len(s)
	for end > start && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\n' || s[end-1] == '\r') {
		end--
	}
	return Value{Raw: s[start:end], Off: off + start}
}

func (v Value) Exists() bool   { return v.Raw != "" }
func (v Value) IsString() bool { return v.Raw != "" && v.Raw[0] == '"' }
func (v Value) IsArray() bool  { return v.Raw != "" && v.Raw[0] == '[' }
func (v Value) IsObject() bool { return v.Raw != "" && v.Raw[0] == '{' }
func (v Value) IsNumber() bool {
	return v.Raw != "" && (v.Raw[0] == '-' || v.Raw[0] >= '0' && v.Raw[0] <= '9')
}

// Span is where the value is in the input.
func (v Value) Span() (int, int) { return v.Off, v.Off + len(v.Raw) }

// Str decodes a string value; anything else gives "".
func (v Value) Str() string {
	if !v.IsString() {
		return ""
	}
	return unescape(v.Raw[1 : len(v.Raw)-1])
}

// unescape decodes the text of a JSON string, between its quotes, as
// gjson does (an escape it cannot read ends the text), copying the runs
// between escapes whole: tool output is mostly such runs between \n.
func unescape(raw string) string {
	i := strings.IndexByte(raw, '\\')
	if i < 0 {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	for ; i >= 0; i = strings.IndexByte(raw, '\\') {
		b.WriteString(raw[:i])
		if i+1 >= len(raw) {
			return b.String()
		}
		c := raw[i+1]
		raw = raw[i+2:]
		switch c {
		case '\\', '/', '"':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if len(raw) < 4 {
				return b.String()
			}
			r := hex4(raw)
			raw = raw[4:]
			if utf16.IsSurrogate(r) && len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
				r = utf16.DecodeRune(r, hex4(raw[2:]))
				raw = raw[6:]
			}
			b.WriteRune(r)
		default:
			return b.String()
		}
	}
	b.WriteString(raw)
	return b.String()
}

// hex4 reads the four hex digits that start s; 0 when they are not.
func hex4(s string) rune {
	n, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0
	}
	return rune(n)
}

// StrPrefix decodes the start of a string value: what its first n bytes of
// JSON text hold (escapes take more than the characters they stand for), or
// all of it when shorter. It stops between escapes, never inside one.
func (v Value) StrPrefix(n int) string {
	if !v.IsString() {
		return ""
	}
	raw := v.Raw[1 : len(v.Raw)-1]
	i := 0
	for i < len(raw) && i < n {
		if raw[i] != '\\' {
			i++
			continue
		}
		if i+1 < len(raw) && raw[i+1] == 'u' {
			i += 6
		} else {
			i += 2
		}
	}
	if i >= len(raw) {
		return v.Str()
	}
	return Value{Raw: `"` + raw[:i] + `"`}.Str()
}

// IsTrue reports whether the value is the literal true.
func (v Value) IsTrue() bool { return v.Raw == "true" }

// Int reads a number value.
func (v Value) Int() int { return int(gjson.Parse(v.Raw).Int()) }

// RawOr is the raw JSON, or def when the value is absent.
func (v Value) RawOr(def string) string {
	if !v.Exists() {
		return def
	}
	return v.Raw
}

// Get is Fields for one key.
func (v Value) Get(key string) Value { return v.Fields(key)[0] }

// Fields returns the values of the given keys of an object, in the order
// asked, in one pass over it. A missing key, or a value that is not an
// object, gives values that do not exist; a repeated key gives its last
// value, as encoding/json and Python's json do, and so the agents that
// wrote the file.
func (v Value) Fields(keys ...string) []Value { return v.FieldsSkipping(Value{}, keys...) }

// FieldsSkipping is Fields for an object one of whose values, skip, the
// caller has read already (a document's history, most of its bytes): the
// pass over the object steps over it instead of scanning it again.
func (v Value) FieldsSkipping(skip Value, keys ...string) []Value {
	out := make([]Value, len(keys))
	if !v.IsObject() {
		return out
	}
	skipAt, skipEnd := skip.Off-v.Off, skip.Off-v.Off+len(skip.Raw)
	if !skip.Exists() || skipAt <= 0 || skipEnd > len(v.Raw) || unsafe.StringData(v.Raw[skipAt:skipEnd]) != unsafe.StringData(skip.Raw) {
		skipAt = -1 // not a value of v's own bytes
	}
	s := v.Raw
	i := 1
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			break // '}' or the end
		}
		kEnd := skipString(s, i)
		key := s[i+1 : kEnd-1]
		if strings.IndexByte(key, '\\') >= 0 {
			key = decodeKey(key)
		}
		i = skipSpace(s, kEnd)
		i = skipSpace(s, i+1) // the colon
		var vEnd int
		if i == skipAt {
			vEnd = skipEnd
		} else {
			vEnd = skipValue(s, i)
		}
		if vEnd == i {
			break // not valid JSON: stop rather than loop
		}
		for j, want := range keys {
			if key == want {
				out[j] = Value{Raw: s[i:vEnd], Off: v.Off + i}
				break
			}
		}
		i = skipSpace(s, vEnd)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
	return out
}

// Each calls fn for every element of an array, in order, until fn returns
// false.
func (v Value) Each(fn func(Value) bool) {
	if v.IsArray() {
		v.each(1, fn)
	}
}

// EachAfter is Each for the elements of an array that follow the one that
// ends at off, an offset in the document (as Span gives the element's
// end): the elements an array has more than one seen before.
func (v Value) EachAfter(off int, fn func(Value) bool) {
	if !v.IsArray() || off <= v.Off || off > v.Off+len(v.Raw) {
		return
	}
	i := skipSpace(v.Raw, off-v.Off)
	if i < len(v.Raw) && v.Raw[i] == ',' {
		i++
	}
	v.each(i, fn)
}

// each calls fn for the elements of an array from the one at v.Raw[i].
func (v Value) each(i int, fn func(Value) bool) {
	s := v.Raw
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] == ']' {
			return
		}
		end := skipValue(s, i)
		if end == i {
			return // not valid JSON: stop rather than loop
		}
		if !fn(Value{Raw: s[i:end], Off: v.Off + i}) {
			return
		}
		i = skipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at s[i].
func skipString(s string, i int) int {
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && s[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value that starts at s[i].
func skipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = skipString(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[j])) {
		j++
	}
	return j
}
