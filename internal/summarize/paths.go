package summarize

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// The lines that name every path of a listing (or every file of a search)
// take at most 1/pathShare of its output, or pathFloor bytes: past both,
// every directory is named with its count, and as many paths as fit. A
// short listing is named whole, or kept whole when that is not shorter.
const (
	pathShare = 2
	pathFloor = 2000
)

// paths names the paths of a listing, or the files of a search: every one,
// grouped by directory (pathlist), while the lines that name them take at
// most 1/pathShare of the output or pathFloor bytes; past that, every
// directory with its count of entries and as many of its paths as fit,
// and the facts say which. count is the fact
// that counts them; it gets the directory they share (" under DIR/").
// Every path named is one a model's summary must keep.
func (o output) paths(count string, g pathlist.Dirs, noun string) (facts []string, detail string) {
	if g.Under != "" {
		count += " under " + g.Under
	}
	limit := max(len(o.body)/pathShare, pathFloor)
	lines := g.Lines()
	facts = []string{count, "every " + noun + " shown, by directory"}
	detail = "\n" + strings.Join(lines, "\n")
	if len(detail) > limit {
		var depth int
		lines, depth = g.Counted(limit)
		shown := 0
		for _, l := range lines {
			shown += len(pathlist.Expand(l))
		}
		which := "every directory shown with its count"
		if depth >= 0 {
			which = "the directories of the first " + textfmt.Plural(depth, "level", "levels") + " shown with their counts"
		}
		facts[1] = which + " and " + textfmt.Int(shown) + " of the " + textfmt.Plural(g.Len(), noun, noun+"s") + "; the others are not shown here"
		detail = "\n" + strings.Join(lines, "\n")
	}
	for _, l := range lines {
		for _, p := range pathlist.Expand(l) {
			o.must.paths = append(o.must.paths, g.Under+p)
		}
	}
	return facts, detail
}

// ShownPaths are the paths a listing's or a search's output shows, as its
// summary names them (relative to cwd where under it): a listing's
// entries, a search's files; nil for a call of another kind. Of an output
// that ctx-truncate grouped, those of its head and those its grouped lines
// name (truncate.Grouped). What the summaries keep of them is measured
// against these (internal/testkit/measure).
func ShownPaths(c *transcript.Call, text, cwd string) []string {
	body := outcome.Body(text)
	if head, paths, ok := truncate.Grouped(body); ok && (c.Kind == tools.List || c.Kind == tools.Search) {
		shown := ShownPaths(c, head, cwd)
		for _, p := range paths {
			shown = append(shown, shortPath(p, cwd))
		}
		return shown
	}
	switch {
	case c.Kind == tools.List && !isTree(c, body):
		return parseListing(body, cwd).paths
	case c.Kind == tools.Search:
		return parseHits(body, cwd, searchedFile(c.Args.Path)).Files
	}
	return nil
}

// Covered reads a listing's or a search's summary back, and returns what
// tells whether it names a path (in its directory's group, or on a
// search's line of a file) or only counts it with its directory. Its
// paths are relative to the directory the summary says once, so a path
// is matched by its end (pathlist.Under).
func Covered(summary string) func(p string) (named, counted bool) {
	var names, dirs []string
	lines := strings.Split(summary, "\n")
	for _, line := range lines[min(1, len(lines)):] {
		line = strings.TrimSpace(line)
		names = append(names, pathlist.Expand(line)...)
		if dir, ok := pathlist.Counts(line); ok {
			dirs = append(dirs, dir) // its paths are counted, not named
		} else if i := strings.IndexAny(line, ":("); i > 0 { // a search's "file: 12, 40", "file (3 matches)"
			names = append(names, strings.TrimSpace(line[:i]))
		}
	}
	return func(p string) (named, counted bool) {
		for _, n := range names {
			if n != "" && pathlist.Under(p, n) {
				return true, true
			}
		}
		for _, d := range dirs {
			if pathlist.Under(p, d) {
				return false, true
			}
		}
		return false, false
	}
}
