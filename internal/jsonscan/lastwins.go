package jsonscan

import (
	"sort"
	"strings"
)

// LastWins returns s with the earlier members of every object that repeats
// a key removed, so that a reader which takes the first of repeated keys
// (gjson's Get) sees what encoding/json, Python and the agents that wrote
// the file see: the last. Without repeated keys, or when s is not valid
// JSON, it returns s itself.
func LastWins(s string) string {
	if strings.Count(s, `"`) < 4 || !Valid(s) {
		return s // fewer than two keys, or not for us to judge
	}
	// An open array or object; an array has no keys.
	type open struct {
		object bool
		keys   []string // raw, between the quotes
		starts []int    // where each member's key starts
	}
	var (
		stack []open
		cut   [][2]int // spans to remove
		// expectKey is set after '{' or a ',' in an object: the next
		// string is a key.
		expectKey bool
	)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			end := skipString(s, i)
			if expectKey {
				o := &stack[len(stack)-1]
				o.keys = append(o.keys, s[i+1:end-1])
				o.starts = append(o.starts, i)
				expectKey = false
			}
			i = end - 1
		case '{':
			stack = append(stack, open{object: true})
			expectKey = true
		case '[':
			stack = append(stack, open{})
		case ',':
			expectKey = stack[len(stack)-1].object
		case '}', ']':
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cut = append(cut, repeated(o.keys, o.starts)...)
		}
	}
	if len(cut) == 0 {
		return s
	}
	sort.Slice(cut, func(a, b int) bool { return cut[a][0] < cut[b][0] })
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for _, c := range cut {
		if c[0] < pos {
			continue // inside a member already removed
		}
		b.WriteString(s[pos:c[0]])
		pos = c[1]
	}
	b.WriteString(s[pos:])
	return b.String()
}

// repeated returns the spans of the members whose key a later member
// repeats: from the key to the next member's key, comma included. An
// earlier member always has a next one, the later it is repeated by.
func repeated(keys []string, starts []int) [][2]int {
	if len(keys) < 2 {
		return nil
	}
	last := make(map[string]int, len(keys))
	for k, raw := range keys {
		last[decodeKey(raw)] = k
	}
	if len(last) == len(keys) {
		return nil
	}
	var out [][2]int
	for k, raw := range keys {
		if last[decodeKey(raw)] != k {
			out = append(out, [2]int{starts[k], starts[k+1]})
		}
	}
	return out
}

// decodeKey decodes a raw key (between its quotes).
func decodeKey(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	return Value{Raw: `"` + raw + `"`}.Str()
}
