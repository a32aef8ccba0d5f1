package tokens

import (
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below cut text into the same pieces as the split
// patterns of tiktoken's encodings, as run by a backtracking regexp engine
// (leftmost alternative wins, greedy quantifiers give back one rune at a
// time). Each function returns the end of the piece that starts at byte i;
// pieces tile the text, because every rune is a letter, a number, a space or
// something else, and each of those starts some alternative.

// Character classes a rune can belong to, as bits. \p{L}, \p{N}, \s and the
// case classes of o200k are the only ones the patterns use.
const (
	cL   = 1 << iota // \p{L}
	cU               // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]: o200k's leading letters
	cW               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]: o200k's trailing letters
	cN               // \p{N}
	cS               // \s, which regexp2 defines as unicode.IsSpace
	cNL              // \r or \n
	cEnd             // past the end: belongs to no class, not even a negated one
)

// isLead reports whether a rune is in [^\r\n\p{L}\p{N}], the optional
// character that may lead a word: a space, punctuation, a mark.
func isLead(c uint8) bool { return c&(cNL|cL|cN|cEnd) == 0 }

// isX reports whether a rune is in [^\s\p{L}\p{N}], punctuation and symbols.
func isX(c uint8) bool { return c&(cS|cL|cN|cEnd) == 0 }

func classOf(r rune) uint8 {
	var c uint8
	if unicode.IsLetter(r) {
		c |= cL
	}
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cU
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cW
	}
	if unicode.IsNumber(r) {
		c |= cN
	}
	if unicode.IsSpace(r) {
		c |= cS
	}
	if r == '\r' || r == '\n' {
		c |= cNL
	}
	return c
}

// byteClass holds the classes of ASCII runes, and multiByte for the bytes
// of longer ones; indexed by a byte, it needs no bounds check.
var byteClass = func() (t [256]uint8) {
	for b := range t {
		t[b] = multiByte
		if b < utf8.RuneSelf {
			t[b] = classOf(rune(b))
		}
	}
	return t
}()

// multiByte is in no class, so a test for a class fails on it; the negated
// ones, isLead and isX, must not see it.
const multiByte = 1 << 7

// Classes of other runes are computed a page of 256 runes at a time, on first
// use: the unicode tables are binary searches, too slow per rune for text in
// other scripts, and a full table would cost start-up time every process pays.
var classPages [(unicode.MaxRune + 1) >> 8]atomic.Pointer[[256]uint8]

func pageOf(r rune) *[256]uint8 {
	p := &classPages[r>>8]
	if t := p.Load(); t != nil {
		return t
	}
	t := new([256]uint8)
	base := r &^ 0xff
	for k := range t {
		t[k] = classOf(base + rune(k))
	}
	p.Store(t)
	return t
}

// at returns the class and byte size of the rune at s[i]. The text is valid
// UTF-8 (Count replaces invalid bytes first). The loops below repeat its
// ASCII case inline, since at is too big for the compiler to inline and
// ASCII is most of what agents read and write.
func at(s string, i int) (uint8, int) {
	if i < len(s) {
		if c := byteClass[s[i]]; c != multiByte {
			return c, 1
		}
	}
	return atRune(s, i)
}

func atRune(s string, i int) (uint8, int) {
	if i >= len(s) {
		return cEnd, 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return pageOf(r)[r&0xff], n
}

// run returns the end of the run of runes in class set starting at i.
func run(s string, i int, set uint8) int {
	for {
		// multiByte is in no set: the inner loop stops at the first rune
		// that is not ASCII.
		for i < len(s) && byteClass[s[i]]&set != 0 {
			i++
		}
		if i == len(s) || byteClass[s[i]] != multiByte {
			return i
		}
		c, n := atRune(s, i)
		if c&set == 0 {
			return i
		}
		i += n
	}
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
// regexp2 lowers the input rune with unicode.ToLower before comparing, and no
// rune outside ASCII lowers to one of these letters, so bytes suffice.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	}
	return i
}

// digits matches \p{N}{1,3} at i, which holds a number.
func digits(s string, i int) int {
	for k := 0; k < 3; k++ {
		c, n := at(s, i)
		if c&cN == 0 {
			break
		}
		i += n
	}
	return i
}

// punct matches ` ?[^\s\p{L}\p{N}]+[\r\n]*` at i, or returns -1; with slash,
// the trailing class is o200k's [\r\n/].
func punct(s string, i int, slash bool) int {
	j := i
	if s[i] == ' ' {
		if c, _ := at(s, i+1); isX(c) {
			j = i + 1
		}
	}
	if c, _ := at(s, j); !isX(c) {
		return -1
	}
	return punctEnd(s, j, slash)
}

// punctEnd ends the punctuation that starts at i, with its trailing newlines
// (and slashes, for o200k).
func punctEnd(s string, i int, slash bool) int {
	for i < len(s) {
		c, n := byteClass[s[i]], 1
		if c == multiByte {
			c, n = atRune(s, i)
		}
		if !isX(c) {
			break
		}
		i += n
	}
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || (slash && s[i] == '/')) {
		i++
	}
	return i
}

// spaces matches the three whitespace alternatives at i, which holds \s:
// \s*[\r\n]+ (up to the last newline of the run), \s+(?!\S) (the run but its
// last rune, unless the run ends the text) and \s+.
func spaces(s string, i int) int {
	j, last, nl := i, i, -1
	for j < len(s) {
		c, n := byteClass[s[j]], 1
		if c == multiByte {
			c, n = atRune(s, j)
		}
		if c&cS == 0 {
			break
		}
		if c&cNL != 0 {
			nl = j
		}
		last = j
		j += n
	}
	switch {
	case nl >= 0:
		return nl + 1
	case j == len(s):
		return j
	case last > i:
		return last
	}
	return j
}

// nextCl100k returns the end of the cl100k_base piece starting at i:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// It takes pieces that start in ASCII directly, and hands the others to
// nextCl100kRunes.
func nextCl100k(s string, i int) int {
	c := byteClass[s[i]]
	switch {
	case c == multiByte:
		return nextCl100kRunes(s, i)
	case c&cL != 0:
		return run(s, i+1, cL)
	case c&cN != 0:
		return digits(s, i)
	case s[i] == '\'':
		if e := contraction(s, i); e > i {
			return e
		}
	}
	if isLead(c) && i+1 < len(s) {
		switch d := byteClass[s[i+1]]; {
		case d == multiByte:
			return nextCl100kRunes(s, i)
		case d&cL != 0:
			return run(s, i+2, cL)
		case isX(d) && s[i] == ' ':
			return punctEnd(s, i+2, false) // ` ?` takes the space
		}
	}
	if isX(c) {
		return punctEnd(s, i+1, false)
	}
	return spaces(s, i)
}

// nextCl100kRunes is nextCl100k for any text, alternative by alternative.
func nextCl100kRunes(s string, i int) int {
	if e := contraction(s, i); e > i {
		return e
	}
	c, n := at(s, i)
	if c&cL != 0 {
		return run(s, i+n, cL)
	}
	if isLead(c) {
		if c1, n1 := at(s, i+n); c1&cL != 0 {
			return run(s, i+n+n1, cL)
		}
	} else if c&cN != 0 {
		return digits(s, i)
	}
	if e := punct(s, i, false); e >= 0 {
		return e
	}
	return spaces(s, i)
}

// nextO200k returns the end of the o200k_base piece starting at i:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// It takes the ASCII cases, most pieces, directly: where U and W hold only
// upper and lower case letters, the backtracking of the first two
// alternatives has nothing to try. Anything else goes to nextO200kRunes.
func nextO200k(s string, i int) int {
	c := byteClass[s[i]]
	if c == multiByte {
		return nextO200kRunes(s, i)
	}
	j := i // where the letters would start, after a lead
	if isLead(c) {
		if i+1 == len(s) {
			return i + 1
		}
		j++
		if c = byteClass[s[j]]; c == multiByte {
			return nextO200kRunes(s, i)
		}
	}
	switch {
	case c&cW != 0: // [a-z]: U* matches nothing, W+ runs on
		return lowerEnd(s, j+1)
	case c&cU != 0: // [A-Z]+, then W* if it is ASCII
		k := j + 1
		for k < len(s) && byteClass[s[k]] == cL|cU {
			k++
		}
		if k < len(s) {
			switch d := byteClass[s[k]]; {
			case d == multiByte:
				return nextO200kRunes(s, i)
			case d&cW != 0:
				return lowerEnd(s, k+1)
			}
		}
		return contraction(s, k)
	case j == i && c&cN != 0:
		return digits(s, i)
	case j > i && isX(c) && s[i] == ' ':
		return punctEnd(s, j+1, true) // ` ?` takes the space
	case isX(byteClass[s[i]]):
		return punctEnd(s, i+1, true)
	}
	return spaces(s, i)
}

// lowerEnd ends an o200k word whose W+ runs at i, with its contraction.
func lowerEnd(s string, i int) int {
	for i < len(s) && byteClass[s[i]]&cW != 0 {
		i++
	}
	if i < len(s) && byteClass[s[i]] == multiByte {
		i = run(s, i, cW)
	}
	return contraction(s, i)
}

// nextO200kRunes is nextO200k for any text, alternative by alternative.
func nextO200kRunes(s string, i int) int {
	c, n := at(s, i)
	lead := isLead(c) // a mark is both a lead and a letter
	if lead {
		if e := upperLower(s, i+n); e >= 0 {
			return contraction(s, e)
		}
	}
	if e := upperLower(s, i); e >= 0 {
		return contraction(s, e)
	}
	if lead {
		if c1, _ := at(s, i+n); c1&cU != 0 {
			return contraction(s, run(s, run(s, i+n, cU), cW))
		}
	}
	if c&cU != 0 {
		return contraction(s, run(s, run(s, i, cU), cW))
	}
	if c&cN != 0 {
		return digits(s, i)
	}
	if e := punct(s, i, true); e >= 0 {
		return e
	}
	return spaces(s, i)
}

// upperLower matches U*W+ at i, or returns -1. U* takes its whole run, then
// gives runes back until W+ can start: right after the run if a W rune
// follows it, else at the last rune of the run that is also in W.
func upperLower(s string, i int) int {
	lastW := -1
	for {
		c, n := uint8(cEnd), 0
		if i < len(s) {
			if c, n = byteClass[s[i]], 1; c == multiByte {
				c, n = atRune(s, i)
			}
		}
		if c&cU == 0 {
			if c&cW != 0 {
				return run(s, i, cW)
			}
			break
		}
		if c&cW != 0 {
			lastW = i
		}
		i += n
	}
	if lastW < 0 {
		return -1
	}
	return run(s, lastW, cW)
}
