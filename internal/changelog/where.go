package changelog

import (
	"github.com/ctxkit/ctxkit/internal/lazyre"
	"path"
	"strings"
)

// definitions are the lines that open a function, type or test in the
// languages agents edit most, as git's diff drivers recognise them; the
// last group is the name, and kind (or, when kind is "", the first group)
// is what it is.
var definitions = []struct {
	re   *lazyre.Regexp
	kind string
}{
	// Go
	{lazyre.New(`^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)`), "func"},
	{lazyre.New(`^type\s+([A-Za-z_]\w*)\s+(?:struct|interface)\b`), "type"},
	// Elixir, and ExUnit's tests (also JS-like test DSLs)
	{lazyre.New(`^\s*(defp?|defmacrop?|defmodule|defimpl|defprotocol|defguardp?)\s+([\w.?!]+)`), ""},
	{lazyre.New(`^\s*(test|describe)\s+("[^"]*")`), ""},
	// Python, Ruby, JavaScript, TypeScript
	{lazyre.New(`^\s*(?:async\s+)?def\s+([A-Za-z_]\w*[?!=]?)`), "def"},
	{lazyre.New(`^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:public\s+|private\s+)?class\s+([A-Za-z_$][\w$]*)`), "class"},
	{lazyre.New(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)`), "function"},
	{lazyre.New(`^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)`), "function"},
	{lazyre.New(`^\s*(?:export\s+)?(?:interface|type|enum)\s+([A-Za-z_$][\w$]*)`), "type"},
	// Rust
	{lazyre.New(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)`), "fn"},
	{lazyre.New(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait)\s+([A-Za-z_]\w*)`), "type"},
	{lazyre.New(`^\s*impl(?:<[^>]*>)?\s+(?:[\w:<>]+\s+for\s+)?([A-Za-z_][\w:]*)`), "impl"},
	// Ruby
	{lazyre.New(`^\s*module\s+([A-Z][\w:]*)`), "module"},
	// TOML and INI sections
	{lazyre.New(`^(\[{1,2}[A-Za-z_][\w.\-" ]*\]{1,2})\s*$`), "section"},
	// Java, C#, JavaScript class methods, shell functions, and C and kin at column 0
	{lazyre.New(`^\s*(?:(?:public|private|protected|internal|static|final|abstract|override|virtual|async|synchronized)\s+)+[\w<>\[\],.?]+(?:\s+[\w<>\[\],.?]+)*\s+([A-Za-z_]\w*)\s*\(`), "method"},
	{lazyre.New(`^\s+(?:(?:async|static|get|set)\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{\s*$`), "method"},
	{lazyre.New(`^(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{`), "function"},
	{lazyre.New(`^[A-Za-z_][\w\s*&:<>,]*?\b([A-Za-z_]\w*)\s*\([^;]*[{)]\s*$`), "function"},
}

// keywords open statements, which the loose patterns must not take for
// definitions.
var keywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true,
	"function": true, "else": true, "do": true, "with": true, "not": true, "elif": true, "case": true, "until": true,
	"unless": true, "print": true, "assert": true, "await": true, "new": true, "throw": true, "yield": true}

var heading = lazyre.New(`^(#{1,6})\s+(.+?)\s*#*\s*$`)

// definition names the function, type or heading a line opens, or "".
func definition(line string, markdown bool) string {
	if markdown {
		if m := heading.FindStringSubmatch(line); m != nil {
			return `section "` + m[2] + `"`
		}
		return ""
	}
	for _, d := range definitions {
		m := d.re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[len(m)-1]
		if first, _, _ := strings.Cut(strings.TrimSpace(line), " "); keywords[name] || keywords[first] {
			continue
		}
		if d.kind == "" {
			return m[1] + " " + name
		}
		return d.kind + " " + name
	}
	return ""
}

// isMarkdown reports whether a file is prose with # headings.
func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".mdown":
		return true
	}
	return false
}

// location is where a change is: the definition it is in, and the
// definitions it adds and removes.
type location struct {
	in, adds, removes []string
}

// merge adds another part's location, each name once.
func (l *location) merge(o location) {
	l.in = appendNew(l.in, o.in...)
	l.adds = appendNew(l.adds, o.adds...)
	l.removes = appendNew(l.removes, o.removes...)
}

func (l location) empty() bool { return len(l.in)+len(l.adds)+len(l.removes) == 0 }

func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if !contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

// locate finds where a change is, from its changed lines (removed and
// added) and the lines of the text they were changed in: a definition
// whose line the change edits (a signature) is where it is; definitions
// only added or only removed are what it adds or removes; else it is in
// the nearest definition above it that is indented less than the changed
// lines, or, for a change of comments only, the definition they document.
// first is the index in before of the first changed line.
func locate(removed, added []string, before []string, first int, markdown bool) location {
	var loc location
	defs := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if d := definition(strings.TrimRight(l, "\r\n"), markdown); d != "" {
				out = append(out, d)
			}
		}
		return out
	}
	olds, news := defs(removed), defs(added)
	for _, d := range news {
		if contains(olds, d) {
			if loc.in == nil {
				loc.in = []string{d}
			}
		} else {
			loc.adds = append(loc.adds, d)
		}
	}
	for _, d := range olds {
		if !contains(news, d) {
			loc.removes = append(loc.removes, d)
		}
	}
	if loc.in != nil {
		return loc
	}
	changed := append(append([]string{}, removed...), added...)
	indent, comments := -1, true
	for _, l := range changed {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := indentOf(l); indent < 0 || n < indent {
			indent = n
		}
		comments = comments && isComment(l)
	}
	for i := min(first-1, len(before)-1); i >= 0; i-- {
		// A heading or a [section] holds what follows it at any indent;
		// other definitions hold what is indented more.
		l := strings.TrimRight(before[i], "\r\n")
		if indentOf(l) >= indent && !markdown && !strings.HasPrefix(l, "[") {
			continue
		}
		if d := definition(l, markdown); d != "" && (indentOf(l) < indent || strings.HasPrefix(d, "section ")) {
			loc.in = []string{d}
			return loc
		}
	}
	if comments && indent >= 0 && len(removed) > 0 {
		// A doc comment: the definition after the lines it replaced.
		for i := first + len(removed); i < len(before); i++ {
			l := strings.TrimRight(before[i], "\r\n")
			if !isComment(l) {
				if d := definition(l, markdown); d != "" {
					loc.in = []string{d}
				}
				break
			}
		}
	}
	return loc
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// isComment reports whether a line is a comment in the common syntaxes.
func isComment(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range []string{"//", "#", "--", "/*", "*", ";", "%", `"""`} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
