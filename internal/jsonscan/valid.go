package jsonscan

import "strconv"

// MaxDepth is how deeply arrays and objects may nest in valid input: as
// deep as encoding/json accepts, far beyond any real transcript, and shallow
// enough that the recursive readers of JSON (gjson, encoding/json, a
// filter's walk over a tool's arguments) stay within their stacks.
const MaxDepth = 10000

// Error is where a text stops being valid JSON.
type Error struct {
	Off  int  // byte offset of the first byte that cannot be valid
	Deep bool // an array or object opens there that nests deeper than MaxDepth
}

func (e *Error) Error() string {
	if e.Deep {
		return "nesting deeper than " + strconv.Itoa(MaxDepth) + " at offset " + strconv.Itoa(e.Off)
	}
	return "invalid JSON at offset " + strconv.Itoa(e.Off)
}

// Valid reports whether s is one JSON value, white space around it allowed.
func Valid(s string) bool { return Check(s) == nil }

// Check validates that s is one JSON value, white space around it allowed:
// it accepts exactly what encoding/json.Valid accepts, including its limit on
// nesting, but in one pass without recursion, so that ten million opening
// brackets cost a failed check and not the stack. It returns nil, or where
// s stops being valid.
func Check(s string) *Error { return check(s, skipSpace(s, 0), nil, false) }

// CheckAfter validates the rest of s from s[i], where a value has just
// ended inside the arrays and objects open, outermost first ('[' or '{',
// as in "{[" for an object's array), given that s[:i] is the start of a
// valid text that leaves them so: the next document of a series that
// shares its start with one checked before (an agent's next request
// re-sends the last one's history) is checked from where they part. It
// accepts what Check accepts of the whole, and returns where the rest
// stops being valid.
func CheckAfter(s string, i int, open string) *Error { return check(s, i, []byte(open), true) }

// check validates s from s[i] with the arrays and objects of stack open
// (at most MaxDepth bytes of '[' and '{'): a value starts at s[i], or one
// has just ended there.
func check(s string, i int, stack []byte, ended bool) *Error {
	for {
		if !ended {
			// A value starts at s[i].
			if i >= len(s) {
				return &Error{Off: i}
			}
			switch c := s[i]; c {
			case '{', '[':
				if len(stack) == MaxDepth {
					return &Error{Off: i, Deep: true}
				}
				stack = append(stack, c)
				i = skipSpace(s, i+1)
				if i < len(s) && s[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
					stack = stack[:len(stack)-1]
					i++
					break
				}
				if c == '{' {
					if i = member(s, i); i < 0 {
						return &Error{Off: -i - 1}
					}
				}
				continue
			case '"':
				if i = endString(s, i); i < 0 {
					return &Error{Off: -i - 1}
				}
			case 't':
				if i = literal(s, i, "true"); i < 0 {
					return &Error{Off: -i - 1}
				}
			case 'f':
				if i = literal(s, i, "false"); i < 0 {
					return &Error{Off: -i - 1}
				}
			case 'n':
				if i = literal(s, i, "null"); i < 0 {
					return &Error{Off: -i - 1}
				}
			default:
				if i = endNumber(s, i); i < 0 {
					return &Error{Off: -i - 1}
				}
			}
		}
		ended = false
		// A value ended at s[i]: close what it ends, then expect the next
		// element or member.
		for {
			i = skipSpace(s, i)
			if len(stack) == 0 {
				if i < len(s) {
					return &Error{Off: i}
				}
				return nil
			}
			if i >= len(s) {
				return &Error{Off: i}
			}
			top := stack[len(stack)-1]
			if s[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return &Error{Off: i}
			}
			i = skipSpace(s, i+1)
			if top == '{' {
				if i = member(s, i); i < 0 {
					return &Error{Off: -i - 1}
				}
			}
			break
		}
	}
}

// member reads an object's key and colon at s[i] and returns where its value
// starts, or -(offset of the error)-1.
func member(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -i - 1
	}
	if i = endString(s, i); i < 0 {
		return i
	}
	i = skipSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return -i - 1
	}
	return skipSpace(s, i+1)
}

// endString returns the index after the valid string at s[i], or -(offset
// of the error)-1.
func endString(s string, i int) int {
	i++
	for {
		// Eight bytes at a time while none needs a look: no quote, no
		// backslash, no control character.
		for i+8 <= len(s) && !special(load8(s[i:i+8])) {
			i += 8
		}
		if i >= len(s) {
			return -i - 1
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -i - 1
		case c == '\\':
			if i+1 >= len(s) {
				return -(i + 1) - 1
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(s) || !isHex(s[k]) {
						return -k - 1
					}
				}
				i += 6
			default:
				return -(i + 1) - 1
			}
		default:
			i++
		}
	}
}

// special reports whether any of eight bytes is a quote, a backslash or a
// control character (the classic has-zero-byte and has-less-than tricks).
func special(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	slash := w ^ (ones * '\\')
	zero := func(x uint64) uint64 { return (x - ones) &^ x & highs }
	return (zero(quote) | zero(slash) | (w-ones*0x20)&^w&highs) != 0
}

// load8 reads eight bytes as one little-endian word; the compiler makes it
// one load.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal checks the literal word at s[i].
func literal(s string, i int, word string) int {
	for k := 0; k < len(word); k++ {
		if i+k >= len(s) || s[i+k] != word[k] {
			return -(i + k) - 1
		}
	}
	return i + len(word)
}

// endNumber returns the index after the number at s[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, or -(offset of the
// error)-1.
func endNumber(s string, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return -i - 1
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return -i - 1
		}
		i = digits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return -i - 1
		}
		i = digits(s, i)
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
