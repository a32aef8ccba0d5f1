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

// parseListing reads a listing (pathlist.ParseListing) and counts its
// entries; cwd shortens the paths.
func parseListing(body, cwd string) listing {
	l := listing{parents: map[string]bool{}}
	l.paths = pathlist.ParseListing(body, func(p string) string { return shortPath(p, cwd) }).Paths()
	for _, p := range l.paths {
		if strings.HasSuffix(p, "/") {
			l.dirs++
		} else {
			l.files++
			l.parents[path.Dir(p)] = true
		}
	}
	return l
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
