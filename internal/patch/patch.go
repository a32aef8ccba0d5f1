// Package patch applies to a file's text the changes that agents' edit
// tools describe: old/new string replacements (Edit, MultiEdit,
// str_replace_editor), line inserts and replacements (SWE-agent's edit N:M), Codex's apply_patch envelope, unified
// diffs (patch, git apply) and sed substitutions (sed -i). It is pure:
// text in, text out, and an error that says what did not match.
package patch

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound is the error of a change whose old text is not in the file.
var ErrNotFound = errors.New("not found")

// Replace replaces old with new in content: the first occurrence, or every
// one when all is set. An empty old string fills an empty file (Claude
// Code's Edit creates a file that way). It returns how many occurrences it
// replaced.
func Replace(content, old, new string, all bool) (string, int, error) {
	if old == "" {
		if content != "" {
			return "", 0, fmt.Errorf("empty old string: the file is not empty")
		}
		return new, 1, nil
	}
	n := strings.Count(content, old)
	if n == 0 {
		return "", 0, fmt.Errorf("old string %s: %w", quoteShort(old), ErrNotFound)
	}
	if !all {
		return strings.Replace(content, old, new, 1), 1, nil
	}
	return strings.ReplaceAll(content, old, new), n, nil
}

// Insert inserts text after line n of content (0: at the top), as
// str_replace_editor's insert command does. The text becomes whole lines.
func Insert(content string, n int, text string) (string, error) {
	lines := SplitLines(content)
	if n < 0 || n > len(lines) {
		return "", fmt.Errorf("insert after line %d: the file has %d lines", n, len(lines))
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	off := 0
	for _, l := range lines[:n] {
		off += len(l)
	}
	if n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		return content + "\n" + text, nil // after a last line without its newline
	}
	return content[:off] + text + content[off:], nil
}

// ReplaceLines replaces lines from to to (1-based, inclusive) of content
// with text, as SWE-agent's edit N:M does; a range that ends before it
// starts inserts the text before line from. The text becomes whole lines.
func ReplaceLines(content string, from, to int, text string) (string, error) {
	lines := SplitLines(content)
	if from < 1 || from > len(lines)+1 {
		return "", fmt.Errorf("replace lines %d-%d: the file has %d lines", from, to, len(lines))
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	to = min(max(to, from-1), len(lines))
	var b strings.Builder
	for _, l := range lines[:from-1] {
		b.WriteString(l)
	}
	if from > 1 && !strings.HasSuffix(lines[from-2], "\n") {
		b.WriteByte('\n') // after a last line without its newline
	}
	b.WriteString(text)
	for _, l := range lines[to:] {
		b.WriteString(l)
	}
	return b.String(), nil
}

// SplitLines splits text into lines, each with its newline; a last line
// without one is kept as it is. "" has no lines.
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// CountLines is how many lines text has: its newlines, plus a last line
// without one.
func CountLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// quoteShort quotes the start of s for an error message.
func quoteShort(s string) string {
	line, _, more := strings.Cut(s, "\n")
	r := []rune(line)
	if len(r) > 40 {
		r, more = r[:40], true
	}
	q := fmt.Sprintf("%q", string(r))
	if more {
		q += "..."
	}
	return q
}
