package truncate

import "github.com/ctxkit/ctxkit/internal/tokens"

// Counting tokens is the slow part of a cut: a 45,000-char log is ~11,000
// tokens. The two checks that need counts (is the text over --max-tokens;
// does the cut have fewer tokens) only need to know that a count reaches a
// number, so they count piece by piece, split at the safe points of
// internal/tokens, and stop as soon as it does; most cuts are settled by
// bounds without counting at all (tokens.MinTokens).

// fewerTokens reports whether a cut has no more tokens than the text (fewer
// when strict): the text is head+mid+tail, the cut head+x+tail. Only the
// part that differs is counted: from the last safe point of the head to the
// first of the tail, x whole and mid until it has as many tokens.
func fewerTokens(c tokens.Counter, text, head, mid, x, tail string, strict bool) bool {
	if !tokens.Additive(c) {
		in, out := c.Count(text), c.Count(head+x+tail)
		return out < in || !strict && out == in
	}
	p := tokens.LastSafe(head)
	q := tokens.NextSafe(tail, 1)
	if tail == "" {
		q = 0
	}
	// Most cuts are settled without counting: the part that differs has at
	// most a token a byte in the cut, and at least tokens.MinTokens in the text.
	need := len(head) - p + len(x) + q
	if strict {
		need++
	}
	if tokens.MinTokens(mid, need) >= need {
		return true
	}
	cut := c.Count(head[p:] + x + tail[:q])
	if strict {
		cut++
	}
	if tokens.MinTokens(mid, cut) >= cut {
		return true // a grouped listing: its lines are fewer tokens than the paths they name
	}
	return tokens.AtLeast(c, text[p:len(head)+len(mid)+q], cut) // head[p:]+mid+tail[:q], not copied
}
