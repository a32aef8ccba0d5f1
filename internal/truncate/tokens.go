package truncate

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/tokens"
)

// Counting tokens is the slow part of a cut: a 45,000-char log is ~11,000
// tokens. The two checks that need counts (is the text over --max-tokens;
// does the cut have fewer tokens) only need to know that a count reaches a
// number, so they count piece by piece and stop as soon as it does.
//
// That is exact for the BPE encodings because of how they pre-tokenize: no
// piece of their split pattern runs from a newline into a following
// character that is not whitespace or a slash (o200k_base's punctuation
// pieces may take trailing newlines and slashes; whitespace pieces take more
// whitespace). So a text split just after a newline, before a printable
// ASCII character other than '/', has exactly as many tokens as its two
// parts (TestSplitPointsAddUp checks it on the corpus).

// additive reports whether c's counts add up over texts split at safe
// points.
func additive(c tokens.Counter) bool {
	switch c.Name() {
	case "o200k_base", "cl100k_base":
		return true
	}
	return false
}

// safeAt reports whether s can be split before s[i] without changing its
// token count.
func safeAt(s string, i int) bool {
	if i <= 0 || i >= len(s) || s[i-1] != '\n' {
		return false
	}
	c := s[i]
	return c > ' ' && c < 0x7f && c != '/'
}

// nextSafe returns the first safe point at or after i, or len(s).
func nextSafe(s string, i int) int {
	for i < len(s) {
		if safeAt(s, i) {
			return i
		}
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return len(s)
		}
		i += j + 1
	}
	return len(s)
}

// lastSafe returns the last safe point of s before its end, or 0.
func lastSafe(s string) int {
	for end := len(s) - 1; end > 0; {
		nl := strings.LastIndexByte(s[:end], '\n')
		if nl < 0 {
			return 0
		}
		if safeAt(s, nl+1) {
			return nl + 1
		}
		end = nl
	}
	return 0
}

// atLeast reports whether s has at least n tokens, counting s in pieces of
// growing size split at safe points and stopping once n is reached.
func atLeast(c tokens.Counter, s string, n int) bool {
	if n <= 0 {
		return true
	}
	if len(s) < n {
		return false // a token is at least one byte
	}
	if !additive(c) {
		return c.Count(s) >= n
	}
	sum, size := 0, 1024
	for start := 0; start < len(s); {
		end := len(s)
		if start+size < len(s) {
			end = nextSafe(s, start+size)
		}
		sum += c.Count(s[start:end])
		if sum >= n {
			return true
		}
		start, size = end, size*2
	}
	return false
}

// fewerTokens reports whether a cut has no more tokens than the text (fewer
// when strict): the text is head+mid+tail, the cut head+x+tail. Only the
// part that differs is counted: from the last safe point of the head to the
// first of the tail, x whole and mid until it has as many tokens.
func fewerTokens(c tokens.Counter, text, head, mid, x, tail string, strict bool) bool {
	if !additive(c) {
		in, out := c.Count(text), c.Count(head+x+tail)
		return out < in || !strict && out == in
	}
	p := lastSafe(head)
	q := nextSafe(tail, 1)
	if tail == "" {
		q = 0
	}
	cut := c.Count(head[p:] + x + tail[:q])
	if strict {
		cut++
	}
	return atLeast(c, head[p:]+mid+tail[:q], cut)
}
