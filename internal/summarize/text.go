package summarize

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// maxLine is how many characters of a kept line a summary shows: one line
// of minified JSON must not keep a summary as long as the output.
const maxLine = 300

// countLines is the number of lines of s; a final newline does not start
// another line.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// nextLine cuts the first line off s, without its newline (and carriage
// return).
func nextLine(s string) (line, rest string) {
	line, rest, _ = strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r"), rest
}

// eachLine calls f with every line of s and its 0-based number, until f
// returns false.
func eachLine(s string, f func(n int, line string) bool) {
	for n := 0; s != ""; n++ {
		var line string
		line, s = nextLine(s)
		if !f(n, line) {
			return
		}
	}
}

// piece is a kept line and its 0-based number in the output.
type piece struct {
	n    int
	text string
}

// head is the first n lines of s.
func head(s string, n int) []piece {
	var out []piece
	eachLine(s, func(i int, line string) bool {
		if i >= n {
			return false
		}
		out = append(out, piece{i, line})
		return true
	})
	return out
}

// tail is the last n lines of s, which has total lines.
func tail(s string, n, total int) []piece {
	s = strings.TrimSuffix(s, "\n")
	out := make([]piece, 0, n)
	for i := total - 1; i >= 0 && len(out) < n; i-- {
		j := strings.LastIndexByte(s, '\n')
		out = append(out, piece{i, strings.TrimSuffix(s[j+1:], "\r")})
		if j < 0 {
			break
		}
		s = s[:j]
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// merge joins lists of pieces in line order, without repeats.
func merge(lists ...[]piece) []piece {
	var all []piece
	for _, l := range lists {
		all = append(all, l...)
	}
	// The lists are short; an insertion sort keeps this simple.
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].n < all[j-1].n; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	out := all[:0]
	for _, p := range all {
		if len(out) == 0 || out[len(out)-1].n != p.n {
			out = append(out, p)
		}
	}
	return out
}

// writeExcerpt writes the kept lines in order, each on its own line, with
// "[N lines omitted]" wherever lines of the output were left out, up to its
// total number of lines.
func writeExcerpt(b *strings.Builder, pieces []piece, total int) {
	next := 0
	for _, p := range pieces {
		omitted(b, p.n-next)
		b.WriteByte('\n')
		b.WriteString(clipLine(p.text))
		next = p.n + 1
	}
	omitted(b, total-next)
}

func omitted(b *strings.Builder, n int) {
	switch {
	case n == 1:
		b.WriteString("\n[1 line omitted]")
	case n > 1:
		b.WriteString("\n[" + textfmt.Int(n) + " lines omitted]")
	}
}

// clipLine shortens a kept line to maxLine characters, saying how much was
// cut.
func clipLine(line string) string {
	if len(line) <= maxLine {
		return line
	}
	i := textfmt.RuneOffset(line, maxLine)
	if i >= len(line) {
		return line
	}
	return line[:i] + "…(+" + textfmt.Int(utf8.RuneCountInString(line[i:])) + " chars)"
}

// oneLine is s on one line, clipped: for commands and patterns in a marker
// line.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if first, _, multi := strings.Cut(s, "\n"); multi {
		return textfmt.Clip(strings.TrimSpace(first), n-1) + " …"
	}
	return textfmt.Clip(s, n)
}

// size says how big an output was: "342 lines (12,345 chars)".
func size(text string) string {
	lines := countLines(text)
	unit := " lines"
	if lines == 1 {
		unit = " line"
	}
	return textfmt.Int(lines) + unit + " (" + textfmt.Int(utf8.RuneCountInString(text)) + " chars)"
}

// atoi reads a decimal number; bad input gives 0.
func atoi(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}
