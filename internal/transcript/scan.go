package transcript

import (
	"strings"

	"github.com/tidwall/gjson"
)

// A value is a JSON value of the input, not yet decoded: its raw text and
// where it starts. gjson decodes every string it walks past in ForEach, and
// rescans an object for every Get; transcripts hold megabytes of tool output
// in single strings, so the parser walks objects once with fields and
// decodes only what it needs. The input has been validated before any of
// this runs, which is what lets the scanner be this small.
type value struct {
	raw string
	off int // offset of raw in the input
}

func (v value) exists() bool   { return v.raw != "" }
func (v value) isString() bool { return v.raw != "" && v.raw[0] == '"' }
func (v value) isArray() bool  { return v.raw != "" && v.raw[0] == '[' }
func (v value) isObject() bool { return v.raw != "" && v.raw[0] == '{' }
func (v value) isNumber() bool {
	return v.raw != "" && (v.raw[0] == '-' || v.raw[0] >= '0' && v.raw[0] <= '9')
}

// span is where the value is in the input.
func (v value) span() (int, int) { return v.off, v.off + len(v.raw) }

// str decodes a string value; anything else gives "".
func (v value) str() string {
	if !v.isString() {
		return ""
	}
	if strings.IndexByte(v.raw, '\\') < 0 {
		return v.raw[1 : len(v.raw)-1]
	}
	return gjson.Parse(v.raw).Str
}

// isTrue reports whether the value is the literal true.
func (v value) isTrue() bool { return v.raw == "true" }

// int reads a number value.
func (v value) int() int { return int(gjson.Parse(v.raw).Int()) }

// rawOr is the raw JSON, or def when the value is absent.
func (v value) rawOr(def string) string {
	if !v.exists() {
		return def
	}
	return v.raw
}

// get is fields for one key.
func (v value) get(key string) value { return v.fields(key)[0] }

// fields returns the values of the given keys of an object, in the order
// asked, in one pass over it. A missing key, or a value that is not an
// object, gives values that do not exist; a repeated key gives its first
// value, as gjson does.
func (v value) fields(keys ...string) []value {
	out := make([]value, len(keys))
	if !v.isObject() {
		return out
	}
	left := len(keys)
	s := v.raw
	i := 1
	for left > 0 {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			break // '}' or the end
		}
		kEnd := skipString(s, i)
		key := s[i+1 : kEnd-1]
		i = skipSpace(s, kEnd)
		i = skipSpace(s, i+1) // the colon
		vEnd := skipValue(s, i)
		for j, want := range keys {
			if !out[j].exists() && keyIs(key, want) {
				out[j] = value{raw: s[i:vEnd], off: v.off + i}
				left--
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

// keyIs compares a raw key (between its quotes) with a plain key.
func keyIs(raw, want string) bool {
	if raw == want {
		return true
	}
	return strings.IndexByte(raw, '\\') >= 0 && gjson.Parse(`"`+raw+`"`).Str == want
}

// each calls fn for every element of an array, in order, until fn returns
// false.
func (v value) each(fn func(value) bool) {
	if !v.isArray() {
		return
	}
	s := v.raw
	i := 1
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] == ']' {
			return
		}
		end := skipValue(s, i)
		if !fn(value{raw: s[i:end], off: v.off + i}) {
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
