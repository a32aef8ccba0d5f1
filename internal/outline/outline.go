// Package outline finds the definitions a source file holds (its modules,
// classes, types, functions and methods, and the headings of a Markdown
// page), with their line numbers, so that a summary of a read can say what
// the file contains, definition by definition.
//
// It reads lines, not syntax trees: a table of patterns per language
// (langs.go), matched at the start of each line, with the comments and
// multi-line strings of the language skipped and the nesting told by
// indentation. A read is often a window of a file (an offset and a limit,
// sed -n 'a,bp', a viewer's window) that no parser accepts; the patterns
// outline any window. docs/summarize.md has how many of Universal Ctags's
// definitions they find on the files the corpus's sessions read.
package outline

import (
	"path"
	"strings"
)

// Kind is what a definition defines.
type Kind string

// The kinds.
const (
	Module  Kind = "module"  // a module, package, namespace
	Class   Kind = "class"   // a class, struct, object
	Type    Kind = "type"    // an interface, enum, trait, type alias, impl block
	Func    Kind = "func"    // a function (or a macro that defines one)
	Method  Kind = "method"  // a function in a class or a type's body
	Test    Kind = "test"    // a test or a group of tests (ExUnit, RSpec)
	Heading Kind = "heading" // a Markdown heading
)

// Def is one definition.
type Def struct {
	// Line is the line's number in the file: first plus its index in the
	// lines given to Find.
	Line int
	Kind Kind
	// Name is the name as the line writes it: the function's, the class's
	// (Elixir's and Java's dotted names whole), a test's description, a
	// heading's text.
	Name string
	// Depth is how many definitions enclose it: 0 at the top level, 1 for
	// a method of a top-level class.
	Depth int
}

// Lang is the language of a file by its name (its extension, or the name
// itself: Makefile, Dockerfile), or, failing that, by its first line (a
// shebang); "" for a file it has no patterns for.
func Lang(file string, firstLine string) string {
	ext := strings.ToLower(path.Ext(file))
	if l, ok := byExt[ext]; ok {
		return l
	}
	if strings.HasPrefix(firstLine, "#!") {
		for _, s := range shebangs {
			if strings.Contains(firstLine, s.prog) {
				return s.lang
			}
		}
	}
	return ""
}

// Find returns the definitions in lines, a run of a file's lines in lang
// (Lang) whose first is line first of the file, in line order; nil for a
// language it does not know.
func Find(lang string, lines []string, first int) []Def {
	l := byName[lang]
	if l == nil {
		return nil
	}
	s := scanner{lang: l}
	var defs []Def
	start := 0
	if l.name == "Markdown" && first == 1 && len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		s.skip, s.skipLine, start = "---", true, 1 // front matter (YAML) is no text
	}
	for i := start; i < len(lines); i++ {
		line := lines[i]
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		if d, ok := s.line(line, next); ok {
			d.Line = first + i
			defs = append(defs, d)
		}
	}
	return defs
}

// open is a definition whose body may still go on: a line indented deeper
// than it is inside it.
type open struct {
	indent int
	kind   Kind
}

// scanner reads a file's lines one by one.
type scanner struct {
	lang *language
	// skip is the delimiter that ends the comment, string or heredoc the
	// scanner is in ("" when in none); skipLine says it must be the whole
	// line (trimmed), as a heredoc's end is.
	skip     string
	skipLine bool
	stack    []open
}

// line reads one line (next is the line after it, "" at the end), and
// returns the definition it starts.
func (s *scanner) line(raw, next string) (Def, bool) {
	line := strings.TrimRight(raw, " \t\r")
	if s.skip != "" {
		s.leave(line)
		return Def{}, false
	}
	body := strings.TrimLeft(line, " \t")
	if body == "" {
		return Def{}, false
	}
	indent := indentOf(line)
	for _, c := range s.lang.comments {
		if strings.HasPrefix(body, c) {
			return Def{}, false
		}
	}
	if s.lang.name == "Markdown" {
		return s.markdown(body, next)
	}
	// A line at or left of an open definition's indentation ends it (a
	// closing brace too).
	for len(s.stack) > 0 && indent <= s.stack[len(s.stack)-1].indent {
		s.stack = s.stack[:len(s.stack)-1]
	}
	d, opens, ok := s.match(body, indent)
	s.enter(body)
	if opens != "" {
		s.stack = append(s.stack, open{indent: indent, kind: opens})
	}
	return d, ok
}

// match tries the language's patterns on a line without its indentation:
// the definition it starts, and the kind of block it opens ("" for none).
func (s *scanner) match(body string, indent int) (d Def, opens Kind, ok bool) {
	var in Kind // the kind of the definition the line is in
	if n := len(s.stack); n > 0 {
		in = s.stack[n-1].kind
	}
	for _, r := range s.lang.rules {
		if !r.applies(body, indent, in) {
			continue
		}
		m := r.re.FindStringSubmatch(body)
		switch {
		case m == nil:
			continue
		case r.group != "":
			return Def{}, r.group, false
		case m[1] == "" || r.starts == nil && isKeyword(m[1]):
			continue // a pattern that takes any word for a name took a keyword
		}
		kind := r.kind
		if kind == Func && (in == Class || in == Type) && s.lang.methods {
			kind = Method
		}
		return Def{Kind: kind, Name: m[1], Depth: s.depth()}, kind, true
	}
	return Def{}, "", false
}

// depth is how many definitions are open (a group is none).
func (s *scanner) depth() int {
	n := 0
	for _, o := range s.stack {
		if o.kind != typeGroup {
			n++
		}
	}
	return n
}

// markdown finds the headings of a Markdown page: "# Title" lines, and a
// line of text underlined with "===" (a title) or "---" (a section); a
// fenced block's lines are code.
func (s *scanner) markdown(body, next string) (Def, bool) {
	if strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~") {
		s.skip, s.skipLine = body[:3], false
		return Def{}, false
	}
	if m := atxHeading.FindStringSubmatch(body); m != nil {
		return Def{Kind: Heading, Name: m[2], Depth: len(m[1]) - 1}, true
	}
	if m := setextLine.FindStringSubmatch(next); m != nil && !setextLine.MatchString(body) && !listItem.MatchString(body) &&
		!strings.HasPrefix(body, "|") && !strings.HasPrefix(body, ">") {
		depth := 0
		if m[1][0] == '-' {
			depth = 1
		}
		return Def{Kind: Heading, Name: body, Depth: depth}, true
	}
	return Def{}, false
}

// leave looks for the end of the comment, string or heredoc the scanner is
// in.
func (s *scanner) leave(line string) {
	switch {
	case s.skipLine:
		if strings.TrimSpace(line) == s.skip {
			s.skip = ""
		}
	case s.lang.name == "Markdown":
		if strings.HasPrefix(strings.TrimLeft(line, " "), s.skip) {
			s.skip = ""
		}
	default:
		if i := strings.Index(line, s.skip); i >= 0 {
			rest := line[i+len(s.skip):]
			s.skip = ""
			s.enter(rest)
		}
	}
}

// enter looks at what a line leaves open: a block comment, a multi-line
// string or a heredoc that does not end on it. It reads the line from the
// left, past the strings and comments that end on it, so that a quote in
// a string ('`', "/*") opens nothing.
func (s *scanner) enter(line string) {
	l := s.lang
	if l.heredoc != nil && strings.Contains(line, "<<") {
		if m := l.heredoc.FindStringSubmatch(line); m != nil {
			for _, word := range m[1:] {
				if word != "" {
					s.skip, s.skipLine = word, true
					return
				}
			}
		}
	}
next:
	for i := 0; i < len(line); i++ {
		// Most characters open nothing: skip to the next that may.
		j := strings.IndexAny(line[i:], l.openers)
		if j < 0 {
			return
		}
		i += j
		for _, b := range l.blocks {
			if strings.HasPrefix(line[i:], b.open) {
				rest := line[i+len(b.open):]
				end := strings.Index(rest, b.close)
				if end < 0 {
					s.skip, s.skipLine = b.close, false
					return
				}
				i = len(line) - len(rest) + end + len(b.close) - 1
				continue next
			}
		}
		if l.trailing != "" && strings.HasPrefix(line[i:], l.trailing) {
			return
		}
		if strings.IndexByte(l.quotes, line[i]) >= 0 {
			i = closeQuote(line, i)
		}
	}
}

// closeQuote is the index of the quote that ends the string starting at
// line[i], or the line's last index when it does not end on the line.
func closeQuote(line string, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return len(line) - 1
}

// indentOf is a line's indentation, a tab counting as 4 spaces.
func indentOf(line string) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// isKeyword reports whether a name is a keyword that a pattern can take for
// a name: "if (x) {" looks like a method, "else if" like a function.
func isKeyword(name string) bool {
	switch name {
	case "if", "else", "for", "foreach", "while", "do", "switch", "case", "return", "catch", "try", "finally",
		"new", "throw", "sizeof", "typeof", "await", "yield", "super", "this", "function", "elif", "unless", "until":
		return true
	}
	return false
}
