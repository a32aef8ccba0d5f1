package summarize

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

const searchKeep = 3 // matches kept of a search

// hits is what a search printed.
type hits struct {
	matches   int
	files     map[string]bool
	names     names   // the files, relative to cwd where under it
	first     []piece // the first matches
	total     int     // lines of output
	onlyFiles bool    // a list of files (grep -l, Grep's files_with_matches)
}

// parseHits reads the output of grep, rg, git grep and search tools: lines
// "path:line:text", "path:text", "line:text" (one file), "path:count"
// (grep -c), context lines "path-line-text" and "--" separators, or a
// list of files ("Found 11 files" and a path a line).
func parseHits(body, cwd string) hits {
	h := hits{files: map[string]bool{}}
	file := func(p string) {
		if !h.files[p] {
			h.files[p] = true
			h.names.add(shortPath(p, cwd))
		}
	}
	listed := 0 // lines that are only a path
	eachLine(body, func(n int, line string) bool {
		h.total = n + 1
		if line == "" || line == "--" || n == 0 && strings.HasPrefix(line, "Found ") {
			return true
		}
		p, rest, ok := matchPrefix(line)
		switch {
		case ok && p == "" && isDigits(rest):
			return true // a line number alone
		case ok && isDigits(rest):
			file(p) // grep -c: path:count
			h.matches += atoi(rest)
			return true
		case !ok && isContext(line):
			return true
		case !ok && looksLikePath(line):
			file(line) // a list of files, or rg's heading before its matches
			listed++
			return true
		case p != "":
			file(p)
		}
		// A match: "path:12:text", "12:text", or a bare line of grep on one file.
		h.matches++
		if len(h.first) < searchKeep {
			h.first = append(h.first, piece{n, line})
		}
		return true
	})
	h.onlyFiles = h.matches == 0 && listed > 0
	return h
}

// matchPrefix splits a match line into its path (empty for "12:text", a
// match in the one file searched) and the rest after "path:line:" or
// "path:".
func matchPrefix(line string) (path, rest string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i < 0 {
		return "", "", false
	}
	first, after := line[:i], line[i+1:]
	if isDigits(first) {
		return "", after, true // 12:text
	}
	if !looksLikePath(first) {
		return "", "", false
	}
	if j := strings.IndexByte(after, ':'); j > 0 && isDigits(after[:j]) {
		return first, after[j+1:], true // path:12:text
	}
	return first, after, true
}

// isContext reports whether a line is a context line of grep -C:
// "path-12-text" or "12-text".
func isContext(line string) bool {
	j := 0
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	if j > 0 && j < len(line) && line[j] == '-' {
		return true
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '-' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(line) && line[j] == '-' {
			return true
		}
	}
	return false
}

// looksLikePath reports whether s can be a file path: no spaces, and a
// slash or a dot.
func looksLikePath(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\"'<>(){}=,;") && strings.ContainsAny(s, "/.")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// search gives the number of matches and files and the first matches.
func search(o output) ([]string, string, bool) {
	h := parseHits(o.body, o.cwd)
	switch {
	case h.onlyFiles:
		return []string{textfmt.Plural(len(h.files), "file", "files") + " with matches" + h.names.String() + "; the full list is not shown here"}, "", true
	case h.matches == 0:
		return other(o)
	}
	count := textfmt.Plural(h.matches, "match", "matches")
	if len(h.files) > 0 {
		count += " in " + textfmt.Plural(len(h.files), "file", "files") + h.names.String()
	}
	o.must.facts = append(o.must.facts, count)
	o.must.paths = append(o.must.paths, h.names.samples...)
	return []string{count, "the first " + textfmt.Plural(len(h.first), "match", "matches") + " shown"},
		excerpt(o.body, h.total, h.first), true
}
