package patch

import (
	"fmt"
	"strings"
)

// Op is what a patch does to a file.
type Op string

// The operations.
const (
	Add    Op = "add"
	Update Op = "update"
	Delete Op = "delete"
)

// File is one file's part of a patch.
type File struct {
	Op      Op
	Path    string
	MoveTo  string // Update: the new path when the file is also renamed
	Content string // Add: the new file's text
	Hunks   []Hunk // Update
}

// Hunk is a run of context, removed and added lines.
type Hunk struct {
	// Context are the lines an apply_patch hunk names after @@ to find its
	// place (a function or class header), or the section text a unified
	// diff's @@ line ends with.
	Context []string
	// Pos is where the hunk's old lines start (0-based) as a unified diff
	// numbers them; -1 when the patch gives no line numbers.
	Pos int
	// EndOfFile: the hunk's old lines are the file's last lines.
	EndOfFile bool
	Lines     []Line
	// NoNewline: the new text's last line has no newline (a unified diff's
	// "\ No newline at end of file" after the new side's last line).
	NoNewline bool
}

// Line is one line of a hunk.
type Line struct {
	Kind byte   // ' ' context, '-' removed, '+' added
	Text string // without its newline
}

// Counts returns the lines a file's change adds and removes. A deletion
// removes lines the patch does not list: 0 here.
func (f File) Counts() (added, removed int) {
	if f.Op == Add {
		return CountLines(f.Content), 0
	}
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case '+':
				added++
			case '-':
				removed++
			}
		}
	}
	return added, removed
}

// Old and New are the hunk's text before and after, as whole lines.
func (h Hunk) Old() string { return h.side('+') }

// New is the hunk's text after.
func (h Hunk) New() string { return h.side('-') }

func (h Hunk) side(skip byte) string {
	var b strings.Builder
	for _, l := range h.Lines {
		if l.Kind != skip {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (h Hunk) lines(skip byte) []string {
	var out []string
	for _, l := range h.Lines {
		if l.Kind != skip {
			out = append(out, l.Text)
		}
	}
	return out
}

// Apply applies the file's change to its content before (ignored for an
// Add) and returns the content after: "" for a Delete.
func (f File) Apply(content string) (string, error) {
	switch f.Op {
	case Add:
		return f.Content, nil
	case Delete:
		return "", nil
	}
	return applyHunks(content, f.Hunks)
}

type replacement struct {
	at, n int
	new   []string
}

// applyHunks finds each hunk's old lines in order and replaces them, the
// way Codex's apply_patch does: a hunk's context lines are found first,
// then its old lines at or after them, matching exactly, then ignoring
// trailing white space, then ignoring surrounding white space, then
// ignoring the difference between typographic and ASCII punctuation. A
// unified diff's line numbers are tried first.
func applyHunks(content string, hunks []Hunk) (string, error) {
	lines := strings.Split(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the newline ends the last line
	}
	var reps []replacement
	pos := 0
	for i, h := range hunks {
		for _, ctx := range h.Context {
			if h.Pos >= 0 {
				break // a unified diff's section text is not a line to find
			}
			at := seek(lines, []string{ctx}, pos, false)
			if at < 0 {
				return "", fmt.Errorf("hunk %d: context line %s: %w", i+1, quoteShort(ctx), ErrNotFound)
			}
			pos = at + 1
		}
		old, new := h.lines('+'), h.lines('-')
		if len(old) == 0 {
			at := len(lines) // an addition with no context goes at the end
			if h.Pos >= 0 {
				at = min(h.Pos, len(lines))
			}
			reps = append(reps, replacement{at: at, new: new})
			continue
		}
		at := -1
		if h.Pos >= pos && h.Pos+len(old) <= len(lines) && equalLines(lines[h.Pos:h.Pos+len(old)], old, exact) {
			at = h.Pos
		}
		if at < 0 {
			at = seek(lines, old, pos, h.EndOfFile)
		}
		if at < 0 && old[len(old)-1] == "" {
			// A trailing empty line stands for the newline at the end of the file.
			old = old[:len(old)-1]
			if len(new) > 0 && new[len(new)-1] == "" {
				new = new[:len(new)-1]
			}
			at = seek(lines, old, pos, h.EndOfFile)
		}
		if at < 0 {
			return "", fmt.Errorf("hunk %d: old lines starting %s: %w", i+1, quoteShort(strings.Join(old, "\n")), ErrNotFound)
		}
		reps = append(reps, replacement{at: at, n: len(old), new: new})
		pos = at + len(old)
	}
	var out []string
	next := 0
	for _, r := range reps {
		out = append(out, lines[next:r.at]...)
		out = append(out, r.new...)
		next = r.at + r.n
	}
	out = append(out, lines[next:]...)
	if len(out) == 0 {
		return "", nil
	}
	// The file keeps its last newline, or its lack of one, unless the last
	// hunk reaches the end of the file and says otherwise.
	trailing := content == "" || strings.HasSuffix(content, "\n")
	if len(reps) > 0 && next == len(lines) {
		trailing = !hunks[len(hunks)-1].NoNewline
	}
	text := strings.Join(out, "\n")
	if trailing {
		text += "\n"
	}
	return text, nil
}

// The ways seek compares lines, strictest first.
var comparisons = []func(string) string{
	exact,
	func(s string) string { return strings.TrimRight(s, " \t\r") },
	strings.TrimSpace,
	func(s string) string { return asciiPunct.Replace(strings.TrimSpace(s)) },
}

func exact(s string) string { return s }

var asciiPunct = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2009", " ", "\u202F", " ",
)

// seek finds pattern in lines at or after start (at the end when eof),
// with each comparison in turn; -1 when it is not there.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) > len(lines) {
		return -1
	}
	from := start
	if eof {
		from = len(lines) - len(pattern)
	}
	for _, norm := range comparisons {
		for i := from; i+len(pattern) <= len(lines); i++ {
			if equalLines(lines[i:i+len(pattern)], pattern, norm) {
				return i
			}
		}
	}
	return -1
}

func equalLines(a, b []string, norm func(string) string) bool {
	for i := range b {
		if norm(a[i]) != norm(b[i]) {
			return false
		}
	}
	return true
}
