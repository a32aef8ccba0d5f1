package truncate

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// The lines that matter, in the order they claim the --keep-matches slots:
// the user's patterns, then what went wrong, then how runs ended.
type class int

const (
	userLine   class = iota // a --keep-pattern matched it
	errorLine               // outcome's error kinds: errors, failures, assertions, crashes, traces
	resultLine              // outcome's summaries and exit statuses
)

// match is a line of the middle that matters.
type match struct {
	n     int    // its line number in the text
	line  string // the line, without its newline
	pos   int    // where in the line its pattern matched
	class class
}

// keptLine is a line shown under the marker: its number and text.
type keptLine struct {
	n    int
	text string
}

// keep finds the lines of the cut middle text[h:t] that matter and chooses
// those to keep: the user's first, then (for a failed call) every error
// line, then, when log is set, errors and results while there is room
// among KeepMatches (the lines of a listing or a search are paths and
// matches, not what the command said of its run). A
// class with more lines than room gives its first and last ones. A line cut
// inside by the head or tail is looked at, and kept, whole. Which lines
// matter is internal/outcome's to say; the lines around the middle give it
// their context (a traceback that starts in the head).
func (r Rules) keep(text string, h, t int, log bool) []keptLine {
	if r.KeepMatches <= 0 && !r.Failed || !log && !r.Failed && len(r.Keep) == 0 {
		return nil
	}
	start := strings.LastIndexByte(text[:h], '\n') + 1
	end := t
	if t < len(text) && text[t-1] != '\n' {
		if nl := strings.IndexByte(text[t:], '\n'); nl >= 0 {
			end = t + nl + 1
		} else {
			end = len(text)
		}
	}
	var found [3][]match
	user := r.userLines(text, start, end)
	found[userLine] = user
	taken := map[int]bool{}
	for _, m := range user {
		taken[m.n] = true
	}
	for l := range outcome.LinesFrom(text, start) {
		if l.Start >= end {
			break
		}
		if taken[l.N] {
			continue
		}
		c := resultLine
		if l.Kind.IsError() {
			c = errorLine
		}
		found[c] = append(found[c], match{n: l.N, line: l.Text, pos: l.At, class: c})
	}

	var chosen []match
	chosen = append(chosen, spread(found[userLine], r.KeepMatches)...)
	switch {
	case r.Failed:
		chosen = append(chosen, found[errorLine]...)
	case log:
		chosen = append(chosen, spread(found[errorLine], r.KeepMatches-len(chosen))...)
	}
	if log {
		chosen = append(chosen, spread(found[resultLine], r.KeepMatches-len(chosen))...)
	}
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].n < chosen[j].n })
	out := make([]keptLine, len(chosen))
	for i, m := range chosen {
		out[i] = keptLine{n: m.n, text: window(m.line, m.pos)}
	}
	return out
}

// userLines returns the lines of text[start:end] that a --keep-pattern
// matches.
func (r Rules) userLines(text string, start, end int) []match {
	if len(r.Keep) == 0 {
		return nil
	}
	var out []match
	n := 1 + strings.Count(text[:start], "\n")
	for rest := text[start:end]; rest != ""; n++ {
		line := rest
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSuffix(line, "\r")
		for _, re := range r.Keep {
			if loc := re.FindStringIndex(line); loc != nil {
				out = append(out, match{n: n, line: line, pos: loc[0], class: userLine})
				break
			}
		}
	}
	return out
}

// spread returns ms when it has at most room lines, else its first and last
// lines, room in all.
func spread(ms []match, room int) []match {
	if room <= 0 {
		return nil
	}
	if len(ms) <= room {
		return ms
	}
	first := (room + 1) / 2
	out := append([]match{}, ms[:first]...)
	return append(out, ms[len(ms)-(room-first):]...)
}

// window returns a line as it is kept: whole when short, else keptLineMax
// chars around where its pattern matched, with … where it was cut.
func window(line string, pos int) string {
	if utf8.RuneCountInString(line) <= keptLineMax {
		return line
	}
	// Start a little before the match, on a character boundary.
	start := pos - runeSuffix(line[:pos], keptLineMax/4)
	end := start + textfmt.RuneOffset(line[start:], keptLineMax)
	if end == len(line) {
		start = len(line) - runeSuffix(line, keptLineMax)
	}
	out := line[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}
