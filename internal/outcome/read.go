package outcome

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"
)

// The shapes in which read tools print a file.

// Numbered is a read whose lines carry their line numbers, as Claude Code's
// Read ("     1→text") and cat -n or str_replace_editor's view ("     1\ttext")
// print them: head lines, then numbered lines counting up from Start, then
// tail lines (a note the tool appended). Body is the numbered lines without
// their numbers. Joining Head, the Body's lines numbered again from Start
// with Sep, and Tail with newlines gives the text back exactly.
type Numbered struct {
	Head, Tail []string
	Body       string
	Start      int
	Sep        string // "→" or "\t"
}

// SameFrame reports whether two numbered reads differ only in their body.
func (n Numbered) SameFrame(o Numbered) bool {
	return n.Start == o.Start && n.Sep == o.Sep && equalLines(n.Head, o.Head) && equalLines(n.Tail, o.Tail)
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

// SplitNumbered finds the run of numbered lines in text. Only numbers
// exactly as the tools print them count (right-aligned in six columns,
// counting up by one), so that numbering the body again gives the same
// bytes.
func SplitNumbered(text string) (Numbered, bool) {
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
		return Numbered{Head: lines[:i], Tail: lines[j:], Body: strings.Join(bodies, "\n"), Start: n, Sep: sep}, true
	}
	return Numbered{}, false
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

// ReadContent is what a read tool's output shows of the file: the text
// without the <system-reminder> notes Claude Code appends, the header
// str_replace_editor's view puts first, and the line numbers of a read
// numbered on every line from 1 (numbered). empty reports Claude Code's note
// that the file is empty. A numbered read ends with a newline when the
// tool showed one: cat -n ends with the newline of the last line, Claude
// Code's Read shows it as an empty last line.
func ReadContent(text string) (content string, numbered, empty bool) {
	text, empty = stripReminders(text)
	text = catHeader.ReplaceAllString(text, "")
	n, ok := SplitNumbered(text)
	if !ok || n.Start != 1 || len(n.Head) > 0 || len(n.Tail) > 1 || len(n.Tail) == 1 && n.Tail[0] != "" {
		return text, false, empty
	}
	if len(n.Tail) == 1 {
		return n.Body + "\n", true, empty
	}
	return n.Body, true, empty
}

// catHeader is the line str_replace_editor's view puts before the file.
var catHeader = lazyre.New("\\AHere's the result of running `cat -n` on [^\n]*:\n")

// stripReminders removes the <system-reminder> notes Claude Code appends to
// a read; empty reports a note that the file is empty.
func stripReminders(text string) (string, bool) {
	empty := false
	for {
		trimmed := strings.TrimRight(text, " \t\r\n")
		body, ok := strings.CutSuffix(trimmed, "</system-reminder>")
		start := strings.LastIndex(body, "<system-reminder>")
		if !ok || start < 0 {
			return text, empty
		}
		empty = empty || strings.Contains(body[start:], "contents are empty")
		text = strings.TrimRight(body[:start], " \t\r\n")
	}
}

// ReadLines returns the lines of the file that a read's output shows,
// without the line numbers the tool put before them and without a format's
// wrapper, str_replace_editor's header, Claude Code's notes or SWE-agent's
// viewer's frame; first is the number of the first line when the output
// numbers its lines, 0 when it does not (the call's arguments then say
// where it starts). A last line ending in a newline does not start another
// line. ctx-dedupe compares the lines of two reads, whatever tool made
// them, to find a read whose lines an earlier one already showed.
func ReadLines(text string) (lines []string, first int) {
	if w, ok := ParseWindow(text); ok {
		return w.Lines, w.First
	}
	body := catHeader.ReplaceAllString(Body(text), "")
	if n, ok := SplitNumbered(body); ok && len(n.Head) == 0 && (len(n.Tail) == 0 || len(n.Tail) == 1 && n.Tail[0] == "") {
		return strings.Split(n.Body, "\n"), n.Start
	}
	body = strings.TrimSuffix(body, "\n")
	if body == "" {
		return nil, 0
	}
	return strings.Split(body, "\n"), 0
}

// SWE-agent's file viewer (open, goto, scroll, and its edits) prints a
// window of the file, its lines numbered: "[File: PATH (N lines total)]",
// then "N:text" lines.

// Window is what an observation of SWE-agent's file viewer shows: the
// file, its length, and the lines in its window.
type Window struct {
	Path        string
	Total       int      // the file's lines
	First, Last int      // the lines shown, 1-based, inclusive
	Lines       []string // their text, without the numbers
}

// Content is the text of the lines shown, each with its newline.
func (w Window) Content() string {
	if len(w.Lines) == 0 {
		return ""
	}
	return strings.Join(w.Lines, "\n") + "\n"
}

// Whole reports whether the window shows every line of the file.
func (w Window) Whole() bool { return w.First <= 1 && w.Last >= w.Total }

var fileHeader = lazyre.New(`(?m)^\[File: (.+) \((\d+) lines total\)\]\r?$`)

// ParseWindow finds the window in an observation: the "[File: PATH (N lines
// total)]" line, then the numbered lines that count up from it; false when
// there is none.
func ParseWindow(observation string) (Window, bool) {
	if !strings.Contains(observation, "[File: ") {
		return Window{}, false // most outputs: spare them the regexp
	}
	m := fileHeader.FindStringSubmatchIndex(observation)
	if m == nil {
		return Window{}, false
	}
	total, _ := strconv.Atoi(observation[m[4]:m[5]])
	w := Window{Path: observation[m[2]:m[3]], Total: total}
	lines := strings.Split(observation[m[1]:], "\n")
	for _, line := range lines[1:] { // lines[0] is the header's end
		line = strings.TrimSuffix(line, "\r")
		if w.Last == 0 && strings.HasPrefix(line, "(") && strings.HasSuffix(line, " more lines above)") {
			continue
		}
		num, text, ok := strings.Cut(line, ":")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 1 || w.Last > 0 && n != w.Last+1 {
			break
		}
		if w.Last == 0 {
			w.First = n
		}
		w.Last = n
		w.Lines = append(w.Lines, text)
	}
	return w, w.Last > 0 || total == 0
}

var stateLine = lazyre.New(`(?m)^\((Open file|Current directory): (.*)\)\r?$`)

// ObservationState reads the state SWE-agent's older versions print after
// an observation: "(Open file: PATH)", "" for "n/a", and whether it is
// there; "(Current directory: DIR)", "" when it is not.
func ObservationState(observation string) (openFile string, printed bool, dir string) {
	for _, m := range stateLine.FindAllStringSubmatch(observation, -1) {
		v := m[2]
		if v == "n/a" {
			v = ""
		}
		if m[1] == "Open file" {
			openFile, printed = v, true
		} else {
			dir = v
		}
	}
	return openFile, printed, dir
}
