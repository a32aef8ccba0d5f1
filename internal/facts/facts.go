// Package facts says what a model used of its tools' results: the
// specific facts (names, paths, locations, numbers) that it wrote in a
// turn and could only have had from a tool result, and which of them a
// request shows. A replay asks it whether a compacted request still showed
// the model what it went on to use (internal/replay); docs/compact.md
// gives the definition to users.
//
// A fact is a word of a text that has the shape of something specific,
// which a model cannot guess:
//
//   - a path or a dotted name: parts joined by / or . (internal/x.go,
//     /usr/bin/env, os.path.join, self.assertEqual, .gitignore), of 4
//     characters or more, with a letter or 3 digits (3.14, 1.2.3);
//   - a location: a path with a line after a colon (internal/x.go:42), and
//     the path and the line as facts of their own;
//   - an identifier with a shape a common word lacks: an underscore
//     (snake_case, __init__, MAX_SIZE), a capital after a small letter
//     (camelCase, ParseConfig), or letters with digits (sha256, 258c7280),
//     of 4 characters or more;
//   - parts joined by - where one has a digit or is such an identifier
//     (gpt-4o, 2026-11-06, claude-opus-4-6), not prose (built-in);
//   - a number of 3 digits or more (a line, a port, an id, a count).
//
// Left out: words in one case (replay, Session, TODO: a common word
// cannot be told from a name without a dictionary), shorter words and
// numbers, a JSON object's keys ("file_path": in a tool call's
// arguments). A quoted value counts when it has one of these shapes; a
// quoted phrase counts by the facts in it. Paths are compared without a
// leading /, ./, ../ or ~/, and a fact is shown by any longer fact it is
// a part of (x.go and internal/x.go by /p/internal/x.go:12): forms.
//
// Which facts the model used, and which a request shows, is Analyze's.
package facts

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/pathlist"
)

// Each calls fn with each fact of text, in order, as many times as it
// occurs. A fact is a substring of text (or of the path and line of a
// location). It scans the text once, without regular expressions.
func Each(text string, fn func(fact string)) {
	if strings.Contains(text, "/{") || strings.Contains(text, "/ (") {
		grouped(text, fn)
	}
	for i := 0; i < len(text); {
		if class[text[i]] == other {
			i++
			continue
		}
		// Most words are letters alone, with no capital after a small
		// letter: no fact, told at once.
		j, seen, camel := i, uint8(0), false
		for ; j < len(text) && class[text[j]] != other; j++ {
			c := class[text[j]]
			camel = camel || c == upper && j > i && class[text[j-1]] == lower
			seen |= 1 << c
		}
		if seen&^(1<<lower|1<<upper) == 0 && !camel {
			i = j
			continue
		}
		if w := text[i:j]; !isKey(text, i, j) {
			if w[0] == '.' && i > 0 && strings.IndexByte(")]}>", text[i-1]) >= 0 {
				w = w[1:] // a member after a call or an index: x().Name
			}
			word(w, fn)
		}
		i = j
	}
}

// grouped gives the paths that the lines of a list grouped by directory
// name (pathlist's: dir/{a.go, b.go}, or dir/ (5 files): a.go, …), as
// the summaries of listings and searches write them: a path is shown by
// its directory and its name.
func grouped(text string, fn func(string)) {
	for line := range strings.Lines(text) {
		if !strings.Contains(line, "/{") && !strings.Contains(line, "/ (") {
			continue
		}
		for _, p := range pathlist.Expand(strings.TrimSpace(line)) {
			word(p, fn)
		}
	}
}

// The classes of the bytes of a word: a letter, a digit, the underscore,
// or a joiner (. / - : ~) that only counts between them.
const (
	other = iota
	lower
	upper
	digit
	under
	joiner
)

var class = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = lower
		case c >= 'A' && c <= 'Z':
			t[c] = upper
		case c >= '0' && c <= '9':
			t[c] = digit
		case c == '_':
			t[c] = under
		case strings.IndexByte("./-:~", byte(c)) >= 0:
			t[c] = joiner
		}
	}
	return t
}()

// isKey reports whether text[i:j] is a JSON object's key: "word": (a key
// with other characters in it is no fact anyway).
func isKey(text string, i, j int) bool {
	if i == 0 || text[i-1] != '"' || j >= len(text) || text[j] != '"' {
		return false
	}
	for k := j + 1; k < len(text); k++ {
		switch text[k] {
		case ' ', '\t':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// word gives the facts of a word of letters, digits and joiners.
func word(w string, fn func(string)) {
	w = trim(w)
	if len(w) < 3 {
		return
	}
	if strings.IndexByte(w, ':') < 0 {
		if isFact(w) {
			fn(w)
		}
		return
	}
	// Colons split a word (a location, a URL's scheme, foo::bar); a path
	// right before a colon and a number is a location too.
	path := -1 // where the path before this segment starts, if one
	for i := 0; i <= len(w); {
		j := strings.IndexByte(w[i:], ':')
		if j < 0 {
			j = len(w)
		} else {
			j += i
		}
		seg := w[i:j]
		if path >= 0 && isNumber(seg) {
			fn(w[path:j])
		}
		path = -1
		if seg = trim(seg); isFact(seg) {
			fn(seg)
			if j < len(w) && strings.ContainsAny(seg, "./") && strings.HasSuffix(w[i:j], seg) {
				path = j - len(seg)
			}
		}
		i = j + 1
	}
}

// trim takes off what does not belong to a fact at a word's ends: the
// joiners, and the start of a path that says where it starts from (/, ./,
// ../, ~/), so that the absolute and relative spellings of a path compare.
// A dot before a letter stays: .gitignore.
func trim(w string) string {
	for len(w) > 0 && class[w[len(w)-1]] == joiner {
		w = w[:len(w)-1]
	}
	for len(w) > 0 && class[w[0]] == joiner {
		if w[0] == '.' && len(w) > 1 && class[w[1]] != joiner {
			break
		}
		w = w[1:]
	}
	return w
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if class[s[i]] != digit {
			return false
		}
	}
	return true
}

// shape is what a word (without colons) is made of.
type shape struct {
	letters, digits, unders int
	slashes, dots, dashes   int
	camel                   bool // a capital right after a small letter
	emptyPart               bool // two joiners in a row
}

func shapeOf(w string) shape {
	var s shape
	prev := uint8(joiner)
	for i := 0; i < len(w); i++ {
		c := class[w[i]]
		switch c {
		case lower:
			s.letters++
		case upper:
			s.letters++
			s.camel = s.camel || prev == lower
		case digit:
			s.digits++
		case under:
			s.unders++
		case joiner:
			switch w[i] {
			case '/':
				s.slashes++
			case '.':
				s.dots++
			case '-':
				s.dashes++
			}
			s.emptyPart = s.emptyPart || prev == joiner && i > 0
		}
		prev = c
	}
	return s
}

// isFact reports whether a trimmed word without colons is a fact.
func isFact(w string) bool {
	if len(w) < 3 {
		return false
	}
	s := shapeOf(w)
	switch {
	case s.emptyPart || strings.IndexByte(w, '~') >= 0:
		return false // a..b, a path with its middle left out, ~1
	case s.slashes > 0 || s.dots > 0:
		return len(w) >= 4 && (s.letters > 0 || s.digits >= 3)
	case s.dashes > 0:
		return len(w) >= 4 && (s.digits > 0 || s.unders > 0 || s.camel)
	case s.letters == 0 && s.unders == 0:
		return s.digits >= 3
	case len(w) < 4:
		return false
	}
	return s.unders > 0 || s.camel || s.letters > 0 && s.digits > 0
}

// Forms calls fn with each fact that f shows: f itself and its parts that
// are facts, split at / . and - (internal/x.go shows x.go and internal/x;
// os.path.join shows path.join). A location shows only itself.
func Forms(f string, fn func(string)) {
	fn(f)
	if strings.IndexByte(f, ':') >= 0 {
		return
	}
	// The bounds of the parts: before the start, each joiner, the end.
	var bound [maxParts + 2]int
	bound[0] = -1
	n := 1
	for i := 0; i < len(f) && n <= maxParts; i++ {
		if c := f[i]; c == '/' || c == '.' || c == '-' {
			bound[n] = i
			n++
		}
	}
	bound[n] = len(f)
	n++
	for a := 0; a < n-1; a++ {
		for b := a + 1; b < n; b++ {
			if a == 0 && b == n-1 {
				continue // f itself
			}
			if p := f[bound[a]+1 : bound[b]]; trim(p) == p && isFact(p) {
				fn(p)
			}
		}
	}
}

// maxParts bounds the joiners Forms splits at: a longer path shows its
// runs of parts among the first ones only.
const maxParts = 16
