package truncate

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// grouping is a region's paths or matches, grouped once, written within
// a budget as many times as fit needs.
type grouping interface {
	// lines are the grouped lines within budget bytes, one after the
	// other, and what the marker line says of them.
	lines(budget int) (lines, what string)
}

// grouped groups a region's paths or matches.
func (g region) grouped() grouping {
	if g.hits != nil {
		return newHitGroups(g.hits)
	}
	d := notPointing(pathlist.Group(g.paths))
	all := d.Lines()
	return &pathGroups{d: d, all: strings.Join(all, "\n"), count: textfmt.Plural(d.Len(), "path", "paths") + under(d)}
}

// fit writes what replaces the rest of a listing or a search (the marker
// line, the kept lines, the paths or matches grouped) with the most that
// keeps the cut within Max: a budget in bytes for the grouped lines,
// lowered by what the last try was over, twice as much at each try (the
// lines that fit a budget come in steps).
func (r Rules) fit(text string, c cut, g region, kept []keptLine) (string, bool) {
	size := textfmt.RuneCount
	if r.TokenMode {
		size = r.Counter.Count
	}
	fixed := size(text[:c.h]) + size(text[c.t:])
	// The marker line and the kept lines take their part first; what the
	// marker says of the lines takes at most the 200 reserved.
	budget := r.Max - fixed - size(c.insertGrouped(text, "", kept, "")) - 200
	if r.TokenMode {
		budget *= 3 // about the fewest bytes a token of paths holds
	}
	gr := g.grouped()
	var x string
	for try := 0; try < 8 && budget > 0; try++ {
		lines, what := gr.lines(budget)
		x = c.insertGrouped(text, what, kept, lines)
		over := fixed + size(x) - r.Max
		if over <= 0 {
			break
		}
		budget -= max(over*len(x)/max(size(x), 1), 1) << try
	}
	return x, x != ""
}

// pathGroups are a listing's paths by directory.
type pathGroups struct {
	d     pathlist.Dirs
	all   string // the lines that name every path
	count string // "N paths[ under DIR/]"
}

// lines name every path, or, past the budget, every directory with its
// count and as many names as fit.
func (p *pathGroups) lines(budget int) (string, string) {
	if len(p.all) < budget {
		return p.all, p.count + ", every one named below by directory"
	}
	lines, depth := p.d.Counted(budget)
	by := "directory"
	if depth >= 0 {
		by = "their directories of the first " + textfmt.Plural(depth, "level", "levels")
	}
	return strings.Join(lines, "\n"), p.count + ", counted below by " + by + " with " + textfmt.Int(named(lines)) + " of their names"
}

// hitGroups are a search's matches by file.
type hitGroups struct {
	hits     []pathlist.Hit
	groups   []*pathlist.FileHits
	d        pathlist.Dirs // the files by directory
	files    int
	numbered bool   // every match has its line number
	order    []int  // the matches one from each file in turn (inTurn)
	count    string // "N matches[ in F files[ under DIR/]]"
	shown    []bool
	matchLen []int // of each match's line (pathlist.MatchLine)
}

func newHitGroups(hits []pathlist.Hit) *hitGroups {
	h := &hitGroups{hits: hits, numbered: true, shown: make([]bool, len(hits)), matchLen: make([]int, len(hits))}
	var files []string
	seen := map[string]bool{}
	for i, x := range hits {
		h.matchLen[i] = pathlist.MatchLineLen(x)
		if !seen[x.File] && x.File != "" {
			files = append(files, x.File)
		}
		seen[x.File] = true
		h.numbered = h.numbered && x.Line > 0
	}
	h.files = len(files)
	h.d = notPointing(pathlist.Group(files))
	h.count = textfmt.Plural(len(hits), "match", "matches")
	if h.files > 0 {
		h.count += " in " + textfmt.Plural(h.files, "file", "files") + under(h.d)
	}
	h.groups, _ = pathlist.Hits{List: hits}.ByFile()
	h.order = inTurn(h.groups)
	return h
}

// lines name every file with the line numbers of its matches (or their
// count, when the numbers do not fit or the output gave none) and the
// text of as many matches as fit, taken from each file in turn; else the
// files counted by directory.
func (h *hitGroups) lines(budget int) (string, string) {
	clear(h.shown)
	counts := !h.numbered
	size := h.size(counts)
	if size > budget && !counts {
		counts = true
		size = h.size(counts)
	}
	if size > budget && h.files > 0 {
		lines, _ := h.d.Counted(budget)
		return strings.Join(lines, "\n"), h.count + ", the files counted below by directory with " + textfmt.Int(named(lines)) + " of their names"
	}
	// Each text shown costs its line and saves its number on its file's
	// line: an estimate (a number out of a range splits it), so the texts
	// kept are the most of those added that the rendered lines fit.
	var added []int
	est := size
	for _, i := range h.order {
		cost := h.matchLen[i] + 3
		if !counts {
			cost -= len(strconv.Itoa(h.hits[i].Line)) + 2
		}
		if est+cost <= budget {
			h.shown[i] = true
			added = append(added, i)
			est += cost
		}
	}
	if h.size(counts) > budget {
		n := sort.Search(len(added), func(k int) bool {
			h.show(added, k+1)
			return h.size(counts) > budget
		})
		h.show(added, n)
		added = added[:n]
	}
	s := h.render(counts)
	texts := " and the text of " + textfmt.Int(len(added)) + " of them"
	switch {
	case h.files == 0:
		return s, h.count + ", the line number of every one below" + texts
	case counts:
		return s, h.count + ", every file named below with its count of matches" + texts
	}
	return s, h.count + ", every file named below with the line numbers of its matches" + texts
}

// show shows the text of the first k matches added, and of no other.
func (h *hitGroups) show(added []int, k int) {
	for j, i := range added {
		h.shown[i] = j < k
	}
}

// size is the length of render's lines, without writing them.
func (h *hitGroups) size(counts bool) int {
	n := 0
	for _, fh := range h.groups {
		n += pathlist.FileHitsSize(fh, h.hits, h.shown, len(h.d.Under), counts, h.matchLen)
	}
	return max(n-1, 0) // the first line's newline
}

// render writes the files' lines and the texts shown.
func (h *hitGroups) render(counts bool) string {
	var b strings.Builder
	for _, fh := range h.groups {
		pathlist.WriteFileHits(&b, fh, h.hits, h.shown, len(h.d.Under), counts)
	}
	return strings.TrimPrefix(b.String(), "\n")
}

// inTurn orders the matches of the files one from each file in turn: the
// first of every file, then the second of every file, and so on.
func inTurn(groups []*pathlist.FileHits) []int {
	var out []int
	for k := 0; ; k++ {
		more := false
		for _, fh := range groups {
			if k < len(fh.Hits) {
				out = append(out, fh.Hits[k])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// named counts the paths that grouped or counted lines name.
func named(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(pathlist.Expand(l))
	}
	return n
}

// under is " under DIR/" for the directory every path is in.
func under(d pathlist.Dirs) string {
	if d.Under == "" {
		return ""
	}
	return " under " + d.Under
}

// notPointing names each directory whole when the directory the paths
// share would read as a pointer on the marker line ("call ID",
// docs/markers.md).
func notPointing(d pathlist.Dirs) pathlist.Dirs {
	if !strings.Contains(d.Under, "call ") || len(marker.Refs(marker.Line("truncate", d.Under))) == 0 {
		return d
	}
	for i := range d.Dirs {
		d.Dirs[i].Path = d.Under + d.Dirs[i].Path
	}
	d.Under = ""
	return d
}
