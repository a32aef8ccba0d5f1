package summarize

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// pathShare is the most of an output, in bytes, that the summary of a
// listing (or of a search's files) may take to name every path: past it,
// every directory is named with its count, and as many paths as fit.
const pathShare = 2

// paths names the paths of a listing, or the files of a search: every one,
// grouped by directory (pathlist), while the lines that name them take at
// most 1/pathShare of the output; past that, every directory with its
// count of entries and as many of its paths as fit, and the facts say
// which. count is the fact
// that counts them; it gets the directory they share (" under DIR/").
// Every path named is one a model's summary must keep.
func (o output) paths(count string, g pathlist.Dirs, noun string) (facts []string, detail string) {
	if g.Under != "" {
		count += " under " + g.Under
	}
	limit := len(o.body) / pathShare
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
