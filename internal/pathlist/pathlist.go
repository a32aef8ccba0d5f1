// Package pathlist reads the paths a listing or a search printed
// (ParseListing, ParseHits) and writes them compactly, so that a summary
// or a cut of the output can name every path it showed: grouped by
// directory, the directory they all share said once, a directory's
// entries in braces (internal/store/{store.go, store_test.go, memory.go});
// and, when even that is too long, every directory with its count of
// entries and as many of its names as fit. A search's matches are written
// by file, with their line numbers (WriteFileHits). Expand reads the
// grouped lines back into paths.
package pathlist

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"
)

// Dirs is a list of paths grouped by directory.
type Dirs struct {
	// Under is the directory every path is in ("src/app/"), or "".
	Under string
	// Dirs are the directories, in the order of their first path.
	Dirs []Dir
}

// Dir is the entries of one directory.
type Dir struct {
	// Path is the directory relative to Under, ending in "/"; "" for the
	// entries directly in Under.
	Path string
	// Names are its entries in their order, each once; a directory's name
	// ends in "/".
	Names []string
}

// Len is the number of entries.
func (d Dirs) Len() int {
	n := 0
	for _, dir := range d.Dirs {
		n += len(dir.Names)
	}
	return n
}

// Group groups paths by directory; a path that ends in "/" is a
// directory, an entry of its parent. Paths repeated are listed once.
func Group(paths []string) Dirs {
	var d Dirs
	seen := map[string]bool{}
	var kept []string
	for _, p := range paths {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		kept = append(kept, p)
		if len(kept) == 1 {
			d.Under = parent(p)
		} else {
			d.Under = commonDir(d.Under, parent(p))
		}
	}
	if len(kept) == 1 {
		d.Under = "" // a path alone is said whole
	}
	index := map[string]int{}
	for _, p := range kept {
		rel := p[len(d.Under):]
		dir := parent(rel)
		i, ok := index[dir]
		if !ok {
			i = len(d.Dirs)
			index[dir] = i
			d.Dirs = append(d.Dirs, Dir{Path: dir})
		}
		d.Dirs[i].Names = append(d.Dirs[i].Names, rel[len(dir):])
	}
	return d
}

// parent is the directory a path is in, with its slash ("a/b/" of
// "a/b/c.go" and of "a/b/c/"), "" for a path with none, and "/" for a
// path under the root.
func parent(p string) string {
	return p[:strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/')+1]
}

// commonDir is the longest directory ("a/b/") both directories start with.
func commonDir(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:strings.LastIndexByte(a[:n], '/')+1]
}

// Lines names every path, relative to Under: a line per directory, its
// path and its entries in braces ("store/{a.go, b.go}"), or its one entry
// ("store/a.go"); the entries directly in Under on one line ("a.go,
// b.go"); and directories of one entry each, of the same parent and with
// the same name, on one line ("deps/{finch, plug}/mix.exs").
func (d Dirs) Lines() []string {
	type key struct{ parent, name string }
	keyOf := func(dir Dir) (key, bool) {
		if len(dir.Names) != 1 || dir.Path == "" {
			return key{}, false
		}
		return key{parent(dir.Path), dir.Names[0]}, true
	}
	leaves := map[key][]string{}
	for _, dir := range d.Dirs {
		if k, ok := keyOf(dir); ok {
			leaves[k] = append(leaves[k], strings.TrimSuffix(dir.Path[len(k.parent):], "/"))
		}
	}
	out := make([]string, 0, len(d.Dirs))
	done := map[key]bool{}
	for _, dir := range d.Dirs {
		k, ok := keyOf(dir)
		switch {
		case !ok || len(leaves[k]) < 2:
			out = append(out, dir.line())
		case !done[k]: // the first of them
			out = append(out, k.parent+"{"+strings.Join(leaves[k], ", ")+"}/"+k.name)
			done[k] = true
		}
	}
	return out
}

func (dir Dir) line() string {
	switch {
	case dir.Path == "":
		return strings.Join(dir.Names, ", ")
	case len(dir.Names) == 1:
		return dir.Path + dir.Names[0]
	}
	return dir.Path + "{" + strings.Join(dir.Names, ", ") + "}"
}

// Size is the length of the lines, each with its newline.
func Size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

// Counted names every directory with its count of entries, and the names
// of as many entries as fit in budget bytes (with the lines' newlines),
// taken from each directory in turn: "store/ (12 files): a.go, b.go, …
// (10 more)". When the directories alone do not fit, they are counted by
// their first levels only (a directory's entries then include those of
// its subdirectories, "cmd/ (40 files)"), the deepest that fits; depth is
// the levels kept, -1 for every directory.
func (d Dirs) Counted(budget int) (lines []string, depth int) {
	dirs, depth := d.Dirs, -1
	if Size(countLines(dirs, nil)) > budget {
		deepest := 0
		for _, dir := range dirs {
			deepest = max(deepest, strings.Count(dir.Path, "/"))
		}
		depth = max(deepest-1, 0)
		for depth > 0 && Size(countLines(collapse(d.Dirs, depth), nil)) > budget {
			depth--
		}
		dirs = collapse(d.Dirs, depth)
	}
	shown := make([]int, len(dirs))
	size := Size(countLines(dirs, shown))
	for more := true; more; {
		more = false
		for i, dir := range dirs {
			if shown[i] == len(dir.Names) {
				continue
			}
			// Adding a name costs it and its separator; the first one also
			// the ": " and the "… (N more)" it may leave.
			cost := len(dir.Names[shown[i]]) + 2
			if shown[i] == 0 {
				cost += len(", … (" + strconv.Itoa(len(dir.Names)) + " more)")
			}
			if size+cost > budget {
				continue
			}
			shown[i]++
			size += cost
			more = true
		}
	}
	return countLines(dirs, shown), depth
}

// collapse merges the directories deeper than depth levels into their
// ancestor at that depth, whose names then hold the paths below it.
func collapse(dirs []Dir, depth int) []Dir {
	var out []Dir
	index := map[string]int{}
	for _, dir := range dirs {
		top := dir.Path
		if parts := strings.SplitAfter(dir.Path, "/"); len(parts)-1 > depth {
			top = strings.Join(parts[:depth], "")
		}
		i, ok := index[top]
		if !ok {
			i = len(out)
			index[top] = i
			out = append(out, Dir{Path: top})
		}
		for _, n := range dir.Names {
			out[i].Names = append(out[i].Names, dir.Path[len(top):]+n)
		}
	}
	return out
}

// countLines are the lines of Counted: each directory, its count, and its
// first shown[i] names (none when shown is nil).
func countLines(dirs []Dir, shown []int) []string {
	out := make([]string, len(dirs))
	for i, dir := range dirs {
		files, subdirs := 0, 0
		for _, n := range dir.Names {
			if strings.HasSuffix(n, "/") {
				subdirs++
			} else {
				files++
			}
		}
		var count []string
		if files > 0 {
			count = append(count, plural(files, "file", "files"))
		}
		if subdirs > 0 {
			count = append(count, plural(subdirs, "directory", "directories"))
		}
		path := dir.Path
		if path == "" {
			path = "./"
		}
		line := path + " (" + strings.Join(count, ", ") + ")"
		if shown != nil && shown[i] > 0 {
			line += ": " + strings.Join(dir.Names[:shown[i]], ", ")
			if more := len(dir.Names) - shown[i]; more > 0 {
				line += ", … (" + strconv.Itoa(more) + " more)"
			}
		}
		out[i] = line
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// countLine matches a line of Counted: a directory, its count of entries,
// and the names it shows.
var countLine = lazyre.New(`^(\S*/) \(\d+ (?:files?|director(?:y|ies))(?:, \d+ director(?:y|ies))?\)(?:: (.*))?$`)

// Counts reads a line of Counted back: the directory it counts (relative
// to the directory the list was under, "" for "./"), and false for a
// line that is not one.
func Counts(line string) (dir string, ok bool) {
	m := countLine.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return strings.TrimPrefix(m[1], "./"), true
}

// Under reports whether p is, or is in, entry, a path named relative to a
// directory that p's name may start with: "django/urls/base.py" is under
// "urls/base.py" and under "urls/".
func Under(p, entry string) bool {
	if entry == "" || p == entry || strings.HasSuffix(entry, "/") && strings.HasPrefix(p, entry) {
		return true
	}
	if strings.HasSuffix(entry, "/") {
		return strings.Contains(p, "/"+entry)
	}
	return strings.HasSuffix(p, "/"+entry)
}

// Expand reads a line of Lines back into its paths, relative to the
// directory the list was under: "a/{b, c}" is a/b and a/c, "a/{b, c}/d"
// a/b/d and a/c/d, "a, b" a and b. A line of Counted gives the names it
// shows, in their directory.
func Expand(line string) []string {
	if m := countLine.FindStringSubmatch(line); m != nil {
		if m[2] == "" {
			return nil
		}
		dir := strings.TrimPrefix(m[1], "./")
		names, _, _ := strings.Cut(m[2], ", … (")
		var out []string
		for _, n := range strings.Split(names, ", ") {
			out = append(out, dir+n)
		}
		return out
	}
	open := strings.IndexByte(line, '{')
	end := strings.IndexByte(line[max(open, 0):], '}') + max(open, 0)
	if open < 0 || end < open {
		return strings.Split(line, ", ")
	}
	var out []string
	for _, n := range strings.Split(line[open+1:end], ", ") {
		out = append(out, line[:open]+n+line[end+1:])
	}
	return out
}
