// Package truncate cuts long tool output to its head and tail, and keeps
// from the cut middle the lines that say what failed: errors, failing tests,
// panics and tracebacks, test summaries, exit codes. Where the middle was,
// one marker line says what was cut (docs/markers.md):
//
//	[ctx-truncate] 45,231 chars, 342 lines; 38,102 chars (301 lines) cut here; kept the first 40 and last 40 lines and 6 lines that matter (numbered).
//
// Cut is the pure cutting function over one text; Apply runs it over the
// results (and their mirrors) of a transcript.
package truncate

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Defaults are the numbers of the issue: texts over 10,000 chars keep their
// first and last 2,000; in token mode, over 2,500 tokens keep the first and
// last 500; up to 20 lines that matter are kept from the middle.
const (
	DefaultMaxChars    = 10000
	DefaultHeadChars   = 2000
	DefaultTailChars   = 2000
	DefaultMaxTokens   = 2500
	DefaultHeadTokens  = 500
	DefaultTailTokens  = 500
	DefaultKeepMatches = 20
)

// keptLineMax is the most chars a kept line shows; a longer one is shown
// around its match, with … where it was cut.
const keptLineMax = 200

// Rules say when and how a text is cut.
type Rules struct {
	// Max, Head and Tail are chars (runes), or tokens when TokenMode is set:
	// a text longer than Max keeps its first Head and last Tail.
	Max, Head, Tail int
	// TokenMode counts Max, Head and Tail in tokens with Counter (which it
	// needs: without one, nothing is cut).
	TokenMode bool
	// Counter counts tokens: the sizes in token mode, and in every mode the
	// check that a cut never has more tokens than the text. Nil (char mode
	// only) leaves the token check out.
	Counter tokens.Counter
	// KeepMatches is how many lines that matter are kept from the middle;
	// 0 keeps none (but see Failed).
	KeepMatches int
	// Keep adds patterns of lines that matter; their lines come first.
	Keep []*regexp.Regexp
	// Failed is set for the output of a failed call: every error line of the
	// middle is kept, beyond KeepMatches.
	Failed bool
	// Handle is the archive's handle of the text, which the marker line
	// cites (marker.Cite); "" when there is no archive.
	Handle string
	// Kind is the kind of the call whose output the text is (internal/tools):
	// a listing's or a search's output keeps, in place of its middle and
	// tail, every path grouped by directory or every file with its matches
	// (docs/truncate.md), and so does the output of a command of another
	// kind (but a read, an edit, a write or a fetch) whose every line is a
	// path. "" cuts every text by its head and tail.
	Kind tools.Kind
}

// DefaultRules are the rules of ctx-truncate without flags.
func DefaultRules() Rules {
	return Rules{Max: DefaultMaxChars, Head: DefaultHeadChars, Tail: DefaultTailChars, KeepMatches: DefaultKeepMatches}
}

// Cut cuts text by the rules. It returns the text and false when the text
// is short enough, is already cut (it holds a ctx-truncate marker line, see
// IsCut), or when a cut would not make it shorter: fewer chars, and never
// more tokens (fewer tokens in token mode). Otherwise it returns the head,
// the marker line, the kept lines and the tail, and true.
//
// Cuts fall on line boundaries; a line too long for the head or tail is cut
// inside. A UTF-8 character is never split: the output of valid UTF-8 is
// valid UTF-8. Cut is deterministic, and Cut of its own output changes
// nothing.
func Cut(text string, r Rules) (string, bool) {
	if r.TokenMode && r.Counter == nil || len(text) <= r.Max {
		return text, false // a char and a token are at least a byte each
	}
	total := textfmt.RuneCount(text)
	if !r.over(text, total) || marker.IsCut(text) {
		return text, false
	}
	if out, ok := r.group(text, total); ok {
		return out, true
	}
	c := r.plan(text, total)
	if c.h >= c.t {
		return text, false
	}
	head, mid, tail := text[:c.h], text[c.h:c.t], text[c.t:]
	kept := r.keep(text, c.h, c.t, true)
	x := c.insert(text, kept)
	if c.headRunes+textfmt.RuneCount(x)+c.tailRunes >= c.total {
		return text, false
	}
	if r.Counter != nil && !fewerTokens(r.Counter, text, head, mid, x, tail, r.TokenMode) {
		return text, false
	}
	return head + x + tail, true
}

// over reports whether text, of total chars, is longer than Max.
func (r Rules) over(text string, total int) bool {
	if r.TokenMode {
		return tokens.Additive(r.Counter) && tokens.MinTokens(text, r.Max+1) > r.Max || tokens.AtLeast(r.Counter, text, r.Max+1)
	}
	return total > r.Max
}

// cut is where a text is cut: it keeps text[:h] and text[t:].
type cut struct {
	h, t                        int
	total, headRunes, tailRunes int
	handle                      string // cited by the marker line
}

// plan chooses the head and tail.
func (r Rules) plan(text string, total int) cut {
	c := cut{total: total, handle: r.Handle}
	size := r.size()
	c.h = headEnd(text, r.Head, size, r.TokenMode)
	c.t = tailStart(text, c.h, r.Tail, size, r.TokenMode)
	c.headRunes = textfmt.RuneCount(text[:c.h])
	c.tailRunes = textfmt.RuneCount(text[c.t:])
	return c
}

// size is how the rules measure a text: chars, or tokens in token mode.
func (r Rules) size() func(string) int {
	if r.TokenMode {
		return r.Counter.Count
	}
	return utf8.RuneCountInString
}

// Sure returns how many bytes at the start of prefix every text that
// starts with it keeps in place, however it goes on: the whole lines of
// the head, which Cut keeps as they are whether it cuts the text (by head
// and tail, or grouped) or leaves it whole. final is true when no more of
// the text can add to them. A filter that reads a command's output as it
// comes can pass those bytes on at once (FuzzSure).
func (r Rules) Sure(prefix string) (n int, final bool) {
	if r.TokenMode && r.Counter == nil {
		return 0, true
	}
	end, used, stopped := headLines(prefix, r.Head, r.size(), true)
	return end, stopped || used >= r.Head
}

// headLines returns where the whole lines of text that fit in the budget
// end, the size they use, and whether a line stopped them that did not
// fit. With whole, a last line without its newline is not one: it may
// go on.
func headLines(text string, budget int, size func(string) int, whole bool) (end, used int, stopped bool) {
	for end < len(text) && used < budget {
		next := len(text)
		if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
			next = end + nl + 1
		} else if whole {
			break
		}
		n := size(text[end:next])
		if used+n > budget {
			return end, used, true
		}
		end, used = next, used+n
	}
	return end, used, false
}

// headEnd returns where the head ends: whole lines while they fit in the
// budget. When they fill less than half of it and the next line does not
// fit, the head takes the start of that line as well.
func headEnd(text string, budget int, size func(string) int, tokenMode bool) int {
	end, used, _ := headLines(text, budget, size, false)
	if end < len(text) && used < budget/2 {
		line := text[end:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		end += prefixFitting(line, budget-used, size, tokenMode)
	}
	return end
}

// tailStart returns where the tail starts, at or after min: whole lines
// from the end while they fit, and the end of a line that does not fit when
// they fill less than half of the budget.
func tailStart(text string, min, budget int, size func(string) int, tokenMode bool) int {
	start, used := len(text), 0
	for start > min && used < budget {
		prev := 0
		if start >= 2 {
			prev = strings.LastIndexByte(text[:start-1], '\n') + 1
		}
		if prev < min {
			break
		}
		n := size(text[prev:start])
		if used+n > budget {
			break
		}
		start, used = prev, used+n
	}
	if start > min && used < budget/2 {
		lineStart := min
		if start >= 2 {
			lineStart = max(min, strings.LastIndexByte(text[:start-1], '\n')+1)
		}
		start -= suffixFitting(text[lineStart:start], budget-used, size, tokenMode)
	}
	return start
}

// prefixFitting returns the length in bytes of the longest prefix of line
// (ending on a character boundary) whose size is at most budget.
func prefixFitting(line string, budget int, size func(string) int, tokenMode bool) int {
	if budget <= 0 {
		return 0
	}
	if !tokenMode {
		return textfmt.RuneOffset(line, budget)
	}
	return searchFit(len(line), budget, func(n int) int { return size(line[:textfmt.RuneOffset(line, n)]) },
		func(n int) int { return textfmt.RuneOffset(line, n) })
}

// suffixFitting is prefixFitting for the end of line.
func suffixFitting(line string, budget int, size func(string) int, tokenMode bool) int {
	if budget <= 0 {
		return 0
	}
	if !tokenMode {
		return runeSuffix(line, budget)
	}
	return searchFit(len(line), budget, func(n int) int { return size(line[len(line)-runeSuffix(line, n):]) },
		func(n int) int { return runeSuffix(line, n) })
}

// searchFit finds, for token mode, about the most chars n whose piece has
// at most budget tokens: it starts from four chars a token and scales by
// what it counts, a few times. sizeOf(n) counts the piece of n chars, bytesOf
// gives its length in bytes.
func searchFit(maxBytes, budget int, sizeOf, bytesOf func(int) int) int {
	best := 0
	n := budget * 4
	for i := 0; i < 8 && n > 0; i++ {
		b := bytesOf(n)
		got := sizeOf(n)
		if got <= budget {
			best = max(best, b)
			if b >= maxBytes || got == budget {
				break
			}
			n = n + max(1, n*(budget-got)/max(got, 1))
		} else {
			n = n * budget / got
		}
	}
	return best
}

// runeSuffix returns the byte length of the last n runes of s.
func runeSuffix(s string, n int) int {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		if s[i-1] < utf8.RuneSelf {
			i--
			continue
		}
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return len(s) - i
}

// lines counts the lines of s: its newlines, and one more when the last line
// does not end with one.
func lines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// insert is what replaces the middle: the marker line and the kept lines,
// each on a line of its own.
func (c cut) insert(text string, kept []keptLine) string {
	head, tail := text[:c.h], text[c.t:]
	var b strings.Builder
	if head != "" && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(c.markerLine(text, len(kept)))
	writeKept(&b, kept)
	if tail != "" {
		b.WriteByte('\n')
	}
	return b.String()
}

// insertGrouped is what replaces the rest of a listing or a search: the
// marker line, the kept lines and the grouped lines, each on a line of its
// own, ending as the text it replaces did.
func (c cut) insertGrouped(text, what string, kept []keptLine, grouped string) string {
	mid, tail := text[c.h:c.t], text[c.t:]
	var b strings.Builder
	b.WriteString(c.groupedLine(text, what, len(kept)))
	writeKept(&b, kept)
	if grouped != "" {
		b.WriteByte('\n')
		b.WriteString(grouped)
	}
	if tail != "" && tail[0] != '\n' || tail == "" && strings.HasSuffix(mid, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

// writeKept writes the kept lines, each on a line of its own: two spaces,
// its number right-aligned, ": " and the line.
func writeKept(b *strings.Builder, kept []keptLine) {
	width := 0
	if len(kept) > 0 {
		width = len(strconv.Itoa(kept[len(kept)-1].n))
	}
	for _, k := range kept {
		b.WriteByte('\n')
		num := strconv.Itoa(k.n)
		b.WriteString("  ")
		b.WriteString(strings.Repeat(" ", width-len(num)))
		b.WriteString(num)
		b.WriteString(": ")
		b.WriteString(k.text)
	}
}

// markerLine writes the marker line (docs/markers.md, "ctx-truncate").
func (c cut) markerLine(text string, kept int) string {
	head, mid, tail := text[:c.h], text[c.h:c.t], text[c.t:]
	cutRunes := c.total - c.headRunes - c.tailRunes
	var b strings.Builder
	b.WriteString(marker.CutPrefix)
	b.WriteString(textfmt.Plural(c.total, "char", "chars"))
	b.WriteString(", ")
	b.WriteString(textfmt.Plural(lines(text), "line", "lines"))
	b.WriteString("; ")
	b.WriteString(textfmt.Plural(cutRunes, "char", "chars"))
	headInside := head != "" && head[len(head)-1] != '\n'
	tailInside := tail != "" && text[c.t-1] != '\n'
	if !headInside && !tailInside {
		b.WriteString(" (" + textfmt.Plural(lines(mid), "line", "lines") + ") cut here; kept the first ")
		b.WriteString(textfmt.Int(strings.Count(head, "\n")))
		b.WriteString(" and last ")
		b.WriteString(textfmt.Plural(lines(tail), "line", "lines"))
	} else {
		from := 1 + strings.Count(head, "\n")
		to := from + strings.Count(mid[:len(mid)-1], "\n")
		b.WriteString(" cut here, ")
		if from == to {
			b.WriteString("inside line " + textfmt.Int(from))
		} else {
			b.WriteString("from ")
			if headInside {
				b.WriteString("inside ")
			}
			b.WriteString("line " + textfmt.Int(from) + " to ")
			if tailInside {
				b.WriteString("inside ")
			}
			b.WriteString("line " + textfmt.Int(to))
		}
		b.WriteString("; kept the first ")
		b.WriteString(textfmt.Int(c.headRunes))
		b.WriteString(" and last ")
		b.WriteString(textfmt.Plural(c.tailRunes, "char", "chars"))
	}
	return c.cite(&b, kept)
}

// cite ends a marker line: the lines that matter kept below it, if any,
// and the handle that recalls the whole.
func (c cut) cite(b *strings.Builder, kept int) string {
	if kept > 0 {
		b.WriteString(" and ")
		b.WriteString(textfmt.Plural(kept, "line that matters", "lines that matter"))
		b.WriteString(" (numbered)")
	}
	b.WriteByte('.')
	return marker.Cite(b.String(), c.handle)
}

// groupedLine writes the marker line of a listing's or a search's cut
// (docs/markers.md, "ctx-truncate"): what stood after the head, what of it
// the lines below keep, and the head.
func (c cut) groupedLine(text, what string, kept int) string {
	mid := text[c.h:c.t]
	var b strings.Builder
	b.WriteString(marker.CutPrefix)
	b.WriteString(textfmt.Plural(c.total, "char", "chars"))
	b.WriteString(", ")
	b.WriteString(textfmt.Plural(lines(text), "line", "lines"))
	b.WriteString("; ")
	b.WriteString(textfmt.Plural(c.total-c.headRunes-c.tailRunes, "char", "chars"))
	b.WriteString(" (" + textfmt.Plural(lines(mid), "line", "lines") + ") grouped here: ")
	b.WriteString(what)
	b.WriteString("; kept the first ")
	b.WriteString(textfmt.Plural(strings.Count(text[:c.h], "\n"), "line", "lines"))
	return c.cite(&b, kept)
}
