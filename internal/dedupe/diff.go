package dedupe

import (
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// unifiedDiff returns a unified diff that turns base into text, both labelled
// name. When both are numbered reads of the same lines (see splitNumbered)
// the numbers are stripped first, and stripped reports it: an insertion then
// changes one line, not every line below it. The hunk headers of a stripped
// diff still count lines as the file does. It returns "" when base and text
// are equal.
func unifiedDiff(name, base, text string) (diff string, stripped bool) {
	offset := 0
	if b, ok := splitNumbered(base); ok {
		if t, ok := splitNumbered(text); ok && b.sameFrame(t) {
			base, text, offset, stripped = b.body, t.body, b.start-1, true
		}
	}
	u, err := udiff.ToUnifiedDiff(name, name, base, udiff.Lines(base, text), udiff.DefaultContextLines)
	if err != nil {
		// Lines returns edits consistent with base: this cannot happen.
		panic("dedupe: " + err.Error())
	}
	for _, h := range u.Hunks {
		h.FromLine += offset
		h.ToLine += offset
	}
	return u.String(), stripped
}

// numbered is a read whose lines carry their line numbers, as Claude Code's
// Read ("     1→text") and cat -n or str_replace_editor's view ("     1\ttext")
// print them: head lines, then numbered lines counting up from start, then
// tail lines (a note the tool appended). body is the numbered lines without
// their numbers. Joining head, the body's lines numbered again from start,
// and tail with newlines gives the text back exactly.
type numbered struct {
	head, tail []string
	body       string
	start      int
	sep        string
}

// sameFrame reports whether two numbered reads differ only in their body: a
// diff of the bodies then rebuilds one from the other.
func (n numbered) sameFrame(o numbered) bool {
	return n.start == o.start && n.sep == o.sep && equalLines(n.head, o.head) && equalLines(n.tail, o.tail)
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splitNumbered finds the run of numbered lines in text. Only numbers exactly
// as the tools print them count (right-aligned in six columns, counting up by
// one), so that numbering the body again gives the same bytes.
func splitNumbered(text string) (numbered, bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		n, sep, rest, ok := cutNumber(l, -1, "")
		if !ok {
			continue
		}
		bodies := []string{rest}
		j := i + 1
		for ; j < len(lines); j++ {
			_, _, rest, ok := cutNumber(lines[j], n+j-i, sep)
			if !ok {
				break
			}
			bodies = append(bodies, rest)
		}
		return numbered{head: lines[:i], tail: lines[j:], body: strings.Join(bodies, "\n"), start: n, sep: sep}, true
	}
	return numbered{}, false
}

// cutNumber cuts the line-number prefix off a line. want is the number the
// line must carry (-1: any) and sep the separator it must use ("": either).
func cutNumber(line string, want int, sep string) (n int, gotSep, rest string, ok bool) {
	spaces := 0
	for spaces < len(line) && line[spaces] == ' ' {
		spaces++
	}
	digits := spaces
	for digits < len(line) && line[digits] >= '0' && line[digits] <= '9' {
		digits++
	}
	nd := digits - spaces
	if nd == 0 || nd > 9 || nd < 6 && spaces != 6-nd || nd >= 6 && spaces != 0 || nd > 1 && line[spaces] == '0' {
		return 0, "", "", false
	}
	n, _ = strconv.Atoi(line[spaces:digits])
	if want >= 0 && n != want {
		return 0, "", "", false
	}
	after := line[digits:]
	for _, s := range []string{"→", "\t"} {
		if (sep == "" || sep == s) && strings.HasPrefix(after, s) {
			return n, s, after[len(s):], true
		}
	}
	return 0, "", "", false
}
