package truncate

import (
	"slices"
	"sort"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// A listing (ls, find, rg --files, git ls-files, Glob) or a search's
// matches (grep, rg) lose what the agent listed for when their middle is
// cut: the paths. Their cut keeps the head, and in place of the rest every
// path grouped by directory (internal/pathlist), or every file with the
// line numbers of its matches; past --max-chars (or --max-tokens), the
// directories with their counts. Lines of neither shape (a command's
// complaints, a tool's notes) are kept as they are, numbered.

// minPaths is the fewest lines of paths that make a command's output, of a
// kind that does not say it lists, a listing.
const minPaths = 10

// strayShare: a listing or a search holds at most one line of another
// shape for every strayShare of its paths or matches, or it is cut as a log.
const strayShare = 10

// region is what a listing's or a search's cut groups: the paths or the
// matches after the head, and the lines of neither shape there.
type region struct {
	paths []string       // a listing's entries
	hits  []pathlist.Hit // a search's matches
	notes []pathlist.Note
}

// shape is what a listing or a search printed, read whole.
type shape struct {
	listing *pathlist.Listing
	hits    *pathlist.Hits
}

// parse reads body as what a call of kind printed: a listing of a list
// call (and a search's list of files), a search's matches, or, of a call
// of another kind, a listing when every line is a path (isPathList).
// False when it is none of them.
func parse(kind tools.Kind, body string) (shape, bool) {
	switch kind {
	case tools.Read, tools.Edit, tools.Write, tools.Web, "":
		return shape{}, false // a file's or a page's text: its lines stay in their order
	case tools.Search:
		h := pathlist.ParseHits(body, "", nil)
		switch {
		case h.OnlyFiles:
		case len(h.Counts) > 0 || !ascending(h.List):
			return shape{}, false // grep -c's counts; a log's times read as line numbers
		default:
			return shape{hits: &h}, true
		}
	case tools.List:
		if strings.Count(body, "── ") >= 2 {
			return shape{}, false // tree's drawing
		}
	default:
		if !isPathList(body) {
			return shape{}, false
		}
	}
	l := pathlist.ParseListing(body, nil)
	return shape{listing: &l}, true
}

// ascending reports whether the line numbers of each file's matches go
// up, as a search prints them: "14:54:27 INFO …", a time at the start of
// each line of a log, reads as line 14 again and again.
func ascending(hits []pathlist.Hit) bool {
	last := map[string]int{}
	for _, x := range hits {
		if x.Line == 0 {
			continue
		}
		if x.Line <= last[x.File] {
			return false
		}
		last[x.File] = x.Line
	}
	return true
}

// isPathList reports whether every line of body is a path, each once,
// most of them with a directory: the output of a command that lists
// (git diff --name-only, a script's find) without saying so. A log whose
// lines look like paths (build steps, URLs, versions, module names) has
// spaces, colons, quotes or brackets, lines repeated, or most lines
// without a slash.
func isPathList(body string) bool {
	n, slashed := 0, 0
	seen := map[string]bool{}
	for rest := body; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		switch {
		case line == "":
			continue
		case strings.ContainsAny(line, " \t\"'<>(){}=,;:") || seen[line]:
			return false
		}
		seen[line] = true
		n++
		if strings.IndexByte(line, '/') >= 0 {
			slashed++
		}
	}
	return n >= minPaths && 2*slashed >= n
}

// from is what the lines from the 0-based line from on hold; false when
// they are not a listing or a search's matches: too few paths or matches,
// or more than one line of another shape for every strayShare of them.
// The lines before from are read for what they say of those after (ls
// -R's "DIR:" headers, rg's file headings).
func (s shape) from(from int) (region, bool) {
	var g region
	if s.hits != nil {
		list := s.hits.List
		list = list[sort.Search(len(list), func(i int) bool { return list[i].N >= from }):]
		for _, x := range list {
			if x.File == "" && x.Line == 0 {
				g.notes = append(g.notes, pathlist.Note{N: x.N, Text: x.Text}) // a complaint, a bare line
			}
		}
		g.hits = list
		if g.notes != nil {
			g.hits = slices.DeleteFunc(slices.Clone(list), func(x pathlist.Hit) bool { return x.File == "" && x.Line == 0 })
		}
		return g, len(g.hits) > 1 && len(g.notes)*strayShare <= len(g.hits)
	}
	g.paths = make([]string, 0, len(s.listing.Entries))
	for _, e := range s.listing.Entries {
		switch {
		case e.N < from:
		case strings.ContainsAny(e.Path, " \t\"<>{}"):
			// A name with a space is a name, but kept as it is: ls's
			// columns, find -ls and a find -exec's output have them too.
			g.notes = append(g.notes, pathlist.Note{N: e.N, Text: e.Path})
		default:
			g.paths = append(g.paths, e.Path)
		}
	}
	for _, n := range s.listing.Notes {
		if n.N >= from {
			g.notes = append(g.notes, n)
		}
	}
	slices.SortFunc(g.notes, func(a, b pathlist.Note) int { return a.N - b.N })
	return g, len(g.paths) > 1 && len(g.notes)*strayShare <= len(g.paths)
}

// group cuts a listing or a search's output (by r.Kind and its shape):
// the head, then the marker line, the lines kept as they are, and the
// paths or matches of the rest grouped, the whole within Max; then what
// the format wraps the output in. False when the text is neither, or when
// the cut would not be shorter (the caller cuts it as a log).
func (r Rules) group(text string, total int) (string, bool) {
	if r.Kind == "" {
		return "", false
	}
	body := outcome.Body(text)
	bs := bodyStart(text, body)
	if body == "" || bs < 0 {
		return "", false
	}
	be := bs + len(body)
	sh, ok := parse(r.Kind, body)
	if !ok {
		return "", false
	}
	c := r.plan(text, total)
	// The head ends on a line's end, and holds the format's wrapper.
	c.h = max(strings.LastIndexByte(text[:c.h], '\n')+1, bs)
	if c.h >= be {
		return "", false
	}
	g, ok := sh.from(strings.Count(text[bs:c.h], "\n"))
	if !ok {
		return "", false
	}
	c.t = be
	c.headRunes = textfmt.RuneCount(text[:c.h])
	c.tailRunes = textfmt.RuneCount(text[be:])
	kept := r.keepListed(text, c, g, strings.Count(text[:bs], "\n")+1)
	x, ok := r.fit(text, c, g, kept)
	if !ok || c.headRunes+textfmt.RuneCount(x)+c.tailRunes >= c.total {
		return "", false
	}
	if r.Counter != nil && !fewerTokens(r.Counter, text, text[:c.h], text[c.h:c.t], x, text[c.t:], r.TokenMode) {
		return "", false
	}
	return text[:c.h] + x + text[c.t:], true
}

// bodyStart is where body, the output within text's wrapper
// (outcome.Body), starts in text: at its end (Codex's header), after the
// wrapper's first lines (mini-swe-agent's <output>), or at its start.
func bodyStart(text, body string) int {
	if strings.HasSuffix(text, body) {
		return len(text) - len(body)
	}
	if i := strings.Index(text, body[:min(len(body), 200)]); i >= 0 && strings.HasPrefix(text[i:], body) {
		return i
	}
	return strings.Index(text, body)
}

// keepListed is what the cut of a listing or a search keeps as it is from
// text[c.h:c.t], numbered: its notes (first is the number in text of the
// body's first line), and the lines that matter (keep): of a listing or a
// search, whose lines are paths and matches rather than what the command
// said, the --keep-pattern lines and a failed call's errors alone.
func (r Rules) keepListed(text string, c cut, g region, first int) []keptLine {
	kept := r.keep(text, c.h, c.t, r.Kind != tools.List && r.Kind != tools.Search)
	for _, n := range g.notes {
		kept = append(kept, keptLine{n: first + n.N, text: window(n.Text, 0)})
	}
	slices.SortStableFunc(kept, func(a, b keptLine) int { return a.n - b.n })
	return slices.CompactFunc(kept, func(a, b keptLine) bool { return a.n == b.n })
}
