package summarize

import (
	"path"
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"
	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

const (
	treeTop     = 10 // top-level entries named of a tree
	codeMapHead = 500
)

// listing is what a listing holds.
type listing struct {
	files, dirs int             // entries: files, and directories listed as such
	parents     map[string]bool // the directories the files are in
	paths       []string        // relative to cwd where under it; directories end with /
}

// lsLong matches a line of ls -l: type and mode, links, owner, group, size,
// date (three fields), name.
var lsLong = lazyre.New(`^([-dlcbps])[-rwxsStTl]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(.+)$`)

// isLong reports whether a line is one of ls -l, checking its first
// characters before the expression.
func isLong(line string) bool {
	return len(line) > 11 && strings.IndexByte("-dlcbps", line[0]) >= 0 && strings.IndexByte("r-", line[1]) >= 0 && lsLong.MatchString(line)
}

// parseListing reads the listings tools print: a path a line (Glob, find,
// rg --files, ls -1), ls -l, ls of several directories ("dir:" headers),
// and the "- name" trees of list tools, whose nesting makes the paths.
// cwd shortens the paths.
func parseListing(body, cwd string) listing {
	l := listing{parents: map[string]bool{}}
	var tree []treeDir // the "- dir/" entries the current line is in
	eachLine(body, func(_ int, line string) bool {
		name := strings.TrimSpace(line)
		dir := false
		switch {
		case name == "" || strings.HasPrefix(name, "total ") || strings.HasPrefix(name, "NOTE: ") ||
			strings.HasPrefix(name, "(") && strings.HasSuffix(name, ")") || name == "bash-$" ||
			strings.HasPrefix(name, "Found ") && strings.HasSuffix(name, ":"):
			// ls's block count; notes such as "(Results are truncated …)";
			// SWE-agent's find_file header ("Found 2 matches for …:") and its
			// state lines and prompt after an observation.
			return true
		case isLong(name):
			m := lsLong.FindStringSubmatch(name)
			name, dir = m[2], m[1] == "d"
			if target := strings.Index(name, " -> "); m[1] == "l" && target >= 0 {
				name = name[:target]
			}
			if name == "." || name == ".." {
				return true
			}
		case strings.HasSuffix(name, ":") && !strings.ContainsAny(name, " \t"):
			return true // ls DIR1 DIR2 and ls -R print "DIR:" before each directory
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
		if strings.HasSuffix(name, "/") {
			dir = true
		}
		if dir {
			l.dirs++
			name = strings.TrimSuffix(name, "/") + "/"
		} else {
			l.files++
			l.parents[path.Dir(name)] = true
		}
		l.paths = append(l.paths, shortPath(name, cwd))
		return true
	})
	return l
}

// treeDir is a directory of a list tool's "- name" tree, and the
// indentation of its line.
type treeDir struct {
	indent int
	path   string
}

// shortPath shows a path relative to cwd when it lies under it.
func shortPath(p, cwd string) string {
	dir := strings.HasSuffix(p, "/")
	p = tools.NormPath(p, "", cwd)
	if dir && p != "/" {
		p += "/"
	}
	return p
}

// list counts a listing's files and directories and names every path,
// or, past half the output, every directory with its count.
func list(o output) ([]string, string, bool) {
	l := parseListing(o.body, o.cwd)
	if l.files+l.dirs == 0 {
		return nil, "", false
	}
	var counts string
	switch {
	case l.dirs == 0:
		counts = textfmt.Plural(l.files, "file", "files") + " in " + textfmt.Plural(len(l.parents), "directory", "directories")
	case l.files == 0:
		counts = textfmt.Plural(l.dirs, "directory", "directories")
	default:
		counts = textfmt.Plural(l.files, "file", "files") + ", " + textfmt.Plural(l.dirs, "directory", "directories")
	}
	facts, detail := o.paths(counts, pathlist.Group(l.paths), "path")
	return facts, detail, true
}

// treeCounts matches the last line of tree: "14 directories, 127 files".
var treeCounts = lazyre.New(`^(\d+) director(?:y|ies)(?:, (\d+) files?)?$`)

// isTree reports whether a listing is tree's drawing: tree ran (internal/tools
// says), or the output draws like it.
func isTree(c *transcript.Call, body string) bool {
	return tools.IsTree(c.Name, c.Args.Command) || strings.Count(body, "── ") >= 2
}

// tree gives tree's counts, its number of lines and its top-level entries.
func tree(o output) ([]string, string, bool) {
	total := countLines(o.body)
	var counts string
	var top []string
	more := 0
	eachLine(o.body, func(_ int, line string) bool {
		t := strings.TrimSpace(line)
		if m := treeCounts.FindStringSubmatch(t); m != nil {
			counts = textfmt.Plural(atoi(m[1]), "directory", "directories")
			if m[2] != "" {
				counts += ", " + textfmt.Plural(atoi(m[2]), "file", "files")
			}
			return true
		}
		for _, p := range []string{"├── ", "└── ", "|-- ", "`-- "} {
			if name, ok := strings.CutPrefix(line, p); ok {
				if len(top) < treeTop {
					top = append(top, name)
				} else {
					more++
				}
			}
		}
		return true
	})
	facts := []string{counts, textfmt.Plural(total, "line", "lines")}
	if len(top) > 0 {
		entries := strings.Join(top, ", ")
		if more > 0 {
			entries += ", … (" + textfmt.Int(more) + " more)"
		}
		facts = append(facts, "top level: "+entries)
	}
	return append(facts, "the tree is not shown here"), "", true
}

// codeMap counts the files a map covers and keeps its first characters.
func codeMap(o output) ([]string, string, bool) {
	files := 0
	eachLine(o.body, func(_ int, line string) bool {
		// Maps head each file with its path: "src/app.py:" or "# src/app.ts".
		t := strings.TrimSpace(strings.TrimPrefix(line, "# "))
		if t != "" && !strings.ContainsAny(t, " \t") && strings.Contains(t, ".") && (strings.HasSuffix(t, ":") || strings.HasPrefix(line, "# ")) {
			files++
		}
		return true
	})
	facts := []string{size(o.body)}
	if files > 0 {
		facts = append(facts, textfmt.Plural(files, "file", "files"))
	}
	return append(facts, "the first "+textfmt.Int(codeMapHead)+" chars shown"), firstChars(o.body, codeMapHead), true
}
