package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Safe split points: where a text can be cut without changing its token
// count, so that a long text is counted piece by piece.
//
// Counting piece by piece is exact for the BPE encodings because of how
// they pre-tokenize: no piece of their split patterns runs from a newline
// into a following line that has something other than whitespace after its
// indentation (o200k_base's punctuation pieces may take trailing newlines
// and slashes; whitespace pieces take more whitespace only up to a newline
// or the last space before a word), and none runs from a word into the
// spaces after it. So a text split at such a point has exactly as many
// tokens as its two parts (TestSplitPointsAddUp and FuzzSplitPointsAddUp
// check it).

// Additive reports whether c's counts add up over texts split at safe
// points.
func Additive(c Counter) bool {
	switch c.Name() {
	case "o200k_base", "cl100k_base":
		return true
	}
	return false
}

// SafeAt reports whether s can be split before s[i] without changing its
// token count: just after a newline, where the next line has a character
// other than whitespace after its spaces and tabs (and that is not a slash
// right at the start, unless a letter or digit ends the line before); or
// between an ASCII letter and the spaces before the
// next word of ASCII letters.
func SafeAt(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return false
	}
	if isLetter(s[i-1]) && s[i] == ' ' {
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		return j < len(s) && isLetter(s[j])
	}
	if s[i-1] != '\n' {
		return false
	}
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j == len(s) {
		return false
	}
	if c := s[j]; c < utf8.RuneSelf {
		// A slash right after the newline may join a punctuation piece
		// that took the newline: not after a letter or digit.
		return c > ' ' && c != 0x7f && (c != '/' || j > i || i >= 2 && (isLetter(s[i-2]) || '0' <= s[i-2] && s[i-2] <= '9'))
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return !unicode.IsSpace(r) && !unicode.Is(unicode.Z, r)
}

// NextSafe returns the first safe point at or after i, or len(s).
func NextSafe(s string, i int) int {
	for i = max(i, 1); i < len(s); i++ {
		if (s[i] == ' ' || s[i-1] == '\n') && SafeAt(s, i) {
			return i
		}
	}
	return len(s)
}

// LastSafe returns the last safe point of s before its end, or 0.
func LastSafe(s string) int {
	for i := len(s) - 1; i > 0; i-- {
		if (s[i] == ' ' || s[i-1] == '\n') && SafeAt(s, i) {
			return i
		}
	}
	return 0
}

// AtLeast reports whether s has at least n tokens, counting s in pieces of
// growing size split at safe points and stopping once n is reached.
func AtLeast(c Counter, s string, n int) bool {
	if n <= 0 {
		return true
	}
	if len(s) < n {
		return false // a token is at least one byte
	}
	if !Additive(c) {
		return c.Count(s) >= n
	}
	sum, size := 0, 1024
	for start := 0; start < len(s); {
		end := len(s)
		if start+size < len(s) {
			end = NextSafe(s, start+size)
		}
		sum += c.Count(s[start:end])
		if sum >= n {
			return true
		}
		start, size = end, size*2
	}
	return false
}

// MinTokens is a lower bound of the tokens that s adds to any text it is
// part of, for the BPE encodings, found without counting: no piece of their
// split patterns holds two runs of letters (apart from contractions such as
// 's), or letters and digits, or more than three digits. So every run of
// ASCII letters (with the non-ASCII bytes next to them, which may be
// letters) is at least a token, and so is every three ASCII digits, and
// every run of two or more spaces before a word (all but its last space
// are a piece). Runs
// that touch either end of s, that follow an apostrophe, or digits next to
// non-ASCII bytes (which may be digits) are not counted.
//
// It stops counting once it reaches enough.
func MinTokens(s string, enough int) int {
	n := 0
	for i := 0; i < len(s) && n < enough; {
		c := s[i]
		switch {
		case isLetter(c) || c >= utf8.RuneSelf:
			j, letters := i, false
			for ; j < len(s) && (isLetter(s[j]) || s[j] >= utf8.RuneSelf); j++ {
				letters = letters || isLetter(s[j])
			}
			if letters && i > 0 && j < len(s) && s[i-1] != '\'' {
				n++
			}
			i = j
		case c == ' ' || c == '\t':
			// Two or more spaces before a word leave all but the last as
			// a piece of their own.
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j-i >= 2 && i > 0 && j < len(s) && s[j] > ' ' && s[j] < 0x7f {
				n++
			}
			i = j
		case '0' <= c && c <= '9':
			j := i
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				j++
			}
			if i > 0 && j < len(s) && s[i-1] < utf8.RuneSelf && s[j] < utf8.RuneSelf {
				n += (j - i + 2) / 3
			}
			i = j
		default:
			i++
		}
	}
	return n
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
