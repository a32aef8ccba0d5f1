package pathlist

import (
	"path"
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"
)

// Listing is what a listing printed: its entries, each a path (a
// directory's ends in "/"), and the lines that are neither an entry nor
// layout (ls's "total N" and "DIR:" headers, blank lines).
type Listing struct {
	Entries []Entry
	// Notes are the lines that say something about the listing: a tool's
	// note ("(Results are truncated …)", "NOTE: …", "Found 3 files") or
	// a command's message ("find: ‘x’: Permission denied").
	Notes []Note
}

// Entry is one path of a listing and the line that names it.
type Entry struct {
	Path string
	N    int // its 0-based line in the output
}

// Note is a line of an output that is not a path, and its 0-based number.
type Note struct {
	N    int
	Text string
}

// Paths are the entries' paths, in order.
func (l Listing) Paths() []string {
	out := make([]string, len(l.Entries))
	for i, e := range l.Entries {
		out[i] = e.Path
	}
	return out
}

// lsLong matches a line of ls -l: type and mode, links, owner, group, size,
// date (three fields), name.
var lsLong = lazyre.New(`^([-dlcbps])[-rwxsStTl]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(.+)$`)

// IsLong reports whether a line is one of ls -l, checking its first
// characters before the expression.
func IsLong(line string) bool {
	return len(line) > 11 && strings.IndexByte("-dlcbps", line[0]) >= 0 && strings.IndexByte("r-", line[1]) >= 0 && lsLong.MatchString(line)
}

// message matches a command's message among its output: "find: ‘x’:
// Permission denied", "ls: cannot access 'x': No such file or directory".
var message = lazyre.New(`^[A-Za-z][\w.-]*: \S.* `)

// ParseListing reads the listings tools print: a path a line (Glob, find,
// rg --files, ls -1), ls -l, ls of several directories and ls -R (the
// names under a "DIR:" header are in DIR), and the "- name" trees of list
// tools, whose nesting makes the paths. norm rewrites each path as the
// caller names it (relative to a directory, say); nil keeps it as printed.
func ParseListing(body string, norm func(string) string) Listing {
	var l Listing
	var tree []treeDir // the "- dir/" entries the current line is in
	header := ""       // the directory of ls's "DIR:" header above
	eachLine(body, func(n int, line string) {
		name := strings.TrimSpace(line)
		dir := false
		switch {
		case name == "" || strings.HasPrefix(name, "total ") || name == "bash-$":
			// ls's block count; SWE-agent's prompt after an observation.
			return
		case strings.HasPrefix(name, "NOTE: ") || strings.HasPrefix(name, "(") && strings.HasSuffix(name, ")") ||
			strings.HasPrefix(name, "Found ") || strings.Contains(name, ": ") && message.MatchString(name):
			// Notes such as "(Results are truncated …)"; SWE-agent's
			// find_file header ("Found 2 matches for …:"); find's and ls's
			// complaints.
			l.Notes = append(l.Notes, Note{n, line})
			return
		case IsLong(name):
			m := lsLong.FindStringSubmatch(name)
			name, dir = m[2], m[1] == "d"
			if target := strings.Index(name, " -> "); m[1] == "l" && target >= 0 {
				name = name[:target]
			}
			if name == "." || name == ".." {
				return
			}
		case strings.HasSuffix(name, ":") && !strings.ContainsAny(name, " \t"):
			// ls DIR1 DIR2 and ls -R print "DIR:" before each directory.
			header = strings.TrimSuffix(strings.TrimSuffix(name, ":"), "/") + "/"
			return
		case strings.HasPrefix(name, "- "):
			indent := len(line) - len(strings.TrimLeft(line, " "))
			for len(tree) > 0 && tree[len(tree)-1].indent >= indent {
				tree = tree[:len(tree)-1]
			}
			name = strings.TrimPrefix(name, "- ")
			if len(tree) > 0 && !path.IsAbs(name) {
				name = tree[len(tree)-1].path + name
			}
			if strings.HasSuffix(name, "/") {
				tree = append(tree, treeDir{indent, name})
			}
		}
		if header != "" && !path.IsAbs(name) {
			name = header + name
		}
		if dir || strings.HasSuffix(name, "/") {
			name = strings.TrimSuffix(name, "/") + "/"
		}
		l.Entries = append(l.Entries, Entry{normDir(name, norm), n})
	})
	return l
}

// normDir is norm of a path, keeping a directory's final slash.
func normDir(p string, norm func(string) string) string {
	if norm == nil {
		return p
	}
	dir := strings.HasSuffix(p, "/")
	p = norm(p)
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// treeDir is a directory of a list tool's "- name" tree, and the
// indentation of its line.
type treeDir struct {
	indent int
	path   string
}

// eachLine calls f with every line of s, without its newline and carriage
// return, and its 0-based number.
func eachLine(s string, f func(n int, line string)) {
	for n := 0; s != ""; n++ {
		var line string
		line, s, _ = strings.Cut(s, "\n")
		f(n, strings.TrimSuffix(line, "\r"))
	}
}
