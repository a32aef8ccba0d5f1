// Package textfmt formats numbers, aligned tables and text from transcripts
// for people to read.
package textfmt

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Int formats n with thousands separators: 1234567 → "1,234,567".
func Int(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Plural is a count and its noun: "1 file", "2,040 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Int(n) + " " + many
}

// Dollars formats a cost in US dollars with thousands separated: cents,
// and two more decimals under a dollar (a short session's replay costs a
// fraction of a cent): $1,234.50, $0.0386; a negative amount (a saving
// that cost) with a minus sign before it: −$0.0120.
func Dollars(x float64) string {
	if x < 0 {
		return "−" + Dollars(-x)
	}
	prec := 2
	if x < 1 {
		prec = 4
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(x, 'f', prec, 64), ".")
	if n, err := strconv.Atoi(whole); err == nil {
		whole = Int(n)
	}
	return "$" + whole + "." + frac
}

// Times is a ratio of two amounts: "4.90×"; "no estimate" over nothing.
func Times(x, of float64) string {
	if of == 0 {
		return "no estimate"
	}
	return strconv.FormatFloat(x/of, 'f', 2, 64) + "×"
}

// Percent formats a share (0.732) as "73.2%".
func Percent(share float64) string {
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

// Table collects rows and writes them with aligned columns: numbers right,
// text left. The first row is the header.
type Table struct {
	// Right marks the columns aligned right.
	Right map[int]bool
	// Indent prefixes every line.
	Indent string
	rows   [][]string
}

// Row adds a row, each cell escaped: cells hold names and paths from
// transcripts.
func (t *Table) Row(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = Escape(c)
	}
	t.rows = append(t.rows, row)
}

// Write writes the table. The last column is not padded.
func (t *Table) Write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString(t.Indent)
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			switch {
			case t.Right[i]:
				b.WriteString(pad + c)
			case i == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

// Change describes a size going from before to after, as every --stats line
// says it: "412,330 → 61,020 chars (−85%)". Changes under 10% keep a
// decimal ("−4.2%"); the minus sign is U+2212.
func Change(before, after int, unit string) string {
	return Int(before) + " → " + Int(after) + " " + unit + " (" + percentChange(before, after) + ")"
}

func percentChange(before, after int) string {
	if before == 0 || before == after {
		return "0%"
	}
	pct := 100 * float64(after-before) / float64(before)
	sign := "+"
	if pct < 0 {
		sign, pct = "−", -pct
	}
	if pct < 9.95 {
		return sign + strconv.FormatFloat(pct, 'f', 1, 64) + "%"
	}
	return sign + strconv.FormatFloat(pct, 'f', 0, 64) + "%"
}

// RuneOffset is the byte offset just past the first n characters of s, or
// len(s) when s is shorter: where to cut s without splitting a character.
func RuneOffset(s string, n int) int {
	i := 0
	for c := 0; i < len(s) && c < n; c++ {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// Clip shortens s to at most n characters, the last of them "…" when it
// cut anything.
func Clip(s string, n int) string {
	i := RuneOffset(s, n)
	if i >= len(s) {
		return s
	}
	return s[:RuneOffset(s, n-1)] + "…"
}

// Escape makes text from a transcript safe to print in a report: the control
// characters (C0 but the tab, DEL, C1) and the bytes that are not UTF-8
// become escapes (\n, \x1b, \u009b, \xff), as ls -b and ripgrep do, so that
// a tool name, a path or an error cannot move the cursor, clear the screen,
// set the window title or break the report's lines. Other text comes back as
// it is.
func Escape(s string) string {
	i := 0
	for i < len(s) && (s[i] >= 0x20 && s[i] < 0x7f || s[i] == '\t') {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20 && c != '\t' || c == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Counts names things by their counts, the most first, then by name:
// "2 timeout, 1 not shorter".
func Counts(m map[string]int) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
	for i, k := range names {
		names[i] = Int(m[k]) + " " + k
	}
	return strings.Join(names, ", ")
}

// RuneCount is utf8.RuneCountInString, eight bytes at a time where they
// are ASCII.
func RuneCount(s string) int {
	n, i := 0, 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 == 0 {
			n += 8
			continue
		}
		// Count the bytes that start a character (not 10xxxxxx).
		for j := i; j < i+8; j++ {
			if s[j]&0xC0 != 0x80 {
				n++
			}
		}
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// Wrap fills text into lines of at most width characters, each after
// indent, breaking between words (a word longer than a line has one to
// itself); a newline in text starts a new line.
func Wrap(text string, width int, indent string) string {
	paras := strings.Split(text, "\n")
	for i, p := range paras {
		paras[i] = WrapWords(strings.Fields(p), width, indent, indent)
	}
	return strings.Join(paras, "\n")
}

// WrapWords fills words into lines of at most width characters, the first
// after first, the others after indent, a space between two words (a word
// may hold spaces of its own: it is not broken); a word longer than a line
// has one to itself. No words give "".
func WrapWords(words []string, width int, first, indent string) string {
	if len(words) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(first)
	n, start := RuneCount(first), -1
	for _, w := range words {
		wn := RuneCount(w)
		if start >= 0 && n+1+wn > width {
			b.WriteString("\n" + indent)
			n, start = RuneCount(indent), -1
		}
		if start >= 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += wn
		start = n
	}
	// A word that ends in a space (a flag's names before its usage) leaves
	// none at the end of a line.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// LineCol is the line and column, both from 1, of a byte offset in data,
// the column counted in characters: where an editor shows the place an
// error names.
func LineCol(data string, offset int) (line, col int) {
	before := data[:min(max(offset, 0), len(data))]
	start := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[start:]) + 1
}
