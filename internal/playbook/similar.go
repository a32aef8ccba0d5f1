package playbook

import (
	"strings"
	"unicode"
)

// DefaultSimilarity is the threshold at which two strategies of a category
// are one: their normalized texts are equal, or their sets of words, less
// the small words, overlap by this much (Jaccard: shared words over all
// words). "Read a file before editing it" and "Always read the file before
// editing it" share 4 of 5 words: 0.8.
const DefaultSimilarity = 0.8

// stopWords are left out of the comparison: they change the wording, not
// the strategy.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "and": true, "or": true, "in": true, "on": true,
	"for": true, "it": true, "its": true, "is": true, "be": true, "that": true, "this": true, "with": true,
	"so": true, "as": true, "at": true, "by": true,
}

// Normalize is a strategy's text compared: lower case, words only.
func Normalize(s string) string {
	return strings.Join(words(s), " ")
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Similar reports whether two strategies' texts say nearly the same: equal
// once normalized, or with a Jaccard similarity of their words (less the
// stop words) at least threshold. A threshold above 1 asks for equal
// normalized texts.
func Similar(a, b string, threshold float64) bool {
	if Normalize(a) == Normalize(b) {
		return true
	}
	return threshold <= 1 && Jaccard(a, b) >= threshold
}

// Jaccard is the share of the words (less the stop words) of two texts
// that both have: 1 for the same words, 0 for none in common.
func Jaccard(a, b string) float64 {
	wa, wb := wordSet(a), wordSet(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	shared := 0
	for w := range wa {
		if wb[w] {
			shared++
		}
	}
	return float64(shared) / float64(len(wa)+len(wb)-shared)
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words(s) {
		if !stopWords[w] {
			set[w] = true
		}
	}
	return set
}
