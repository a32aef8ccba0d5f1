package summarize

import (
	"path"
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

const (
	// A search's summary shows the text of its first matches while its
	// lines take at most 1/searchShare of the output, and the texts at
	// most hitTexts bytes (every file and line is named while they take at
	// most 1/pathShare).
	searchShare = 6
	hitTexts    = 300
)

// parseHits reads a search's output (pathlist.ParseHits); cwd shortens
// the paths, searched is the file of the matches whose lines name none.
func parseHits(body, cwd, searched string) pathlist.Hits {
	return pathlist.ParseHits(body, searched, func(p string) string { return shortPath(p, cwd) })
}

// searchedFile is the file a search searched when its call names one: the
// file of the matches whose lines do not name it.
func searchedFile(p string) string {
	if p == "" || strings.HasSuffix(p, "/") || path.Ext(p) == "" || strings.ContainsAny(p, "*?[") {
		return ""
	}
	return p
}

// search names every file and line of the matches, grouped by file, with
// the text of as many matches as fit (the first ones); past half the
// output, every directory with its count of files. A list of files is
// named as a listing is.
func search(o output) ([]string, string, bool) {
	h := parseHits(o.body, o.cwd, searchedFile(o.call.Args.Path))
	switch {
	case h.OnlyFiles:
		facts, detail := o.paths(textfmt.Plural(len(h.Files), "file", "files")+" with matches", pathlist.Group(h.Files), "file")
		return facts, detail, true
	case h.Matches == 0:
		return other(o)
	}
	count := textfmt.Plural(h.Matches, "match", "matches")
	if len(h.Files) > 0 {
		count += " in " + textfmt.Plural(len(h.Files), "file", "files")
	}
	o.must.facts = append(o.must.facts, count)
	g := pathlist.Group(h.Files)
	groups, byFile := h.ByFile()
	shown := make([]bool, len(h.List))
	render := func() string {
		var b strings.Builder
		for _, fh := range groups {
			pathlist.WriteFileHits(&b, fh, h.List, shown, len(g.Under), false)
		}
		return b.String()
	}
	numbered := len(h.List) > 0
	for _, x := range h.List {
		numbered = numbered && x.Line > 0
	}
	what := "every file"
	if numbered {
		what = "every file and line"
	}
	under := count
	if len(h.Files) > 0 && g.Under != "" {
		under += " under " + g.Under
	}
	facts := []string{under, what + " shown"}
	detail := render()
	if len(h.Files) > 0 && len(detail) > max(len(o.body)/pathShare, pathFloor) {
		facts, detail := o.paths(count, g, "file") // too many files to name each: every directory, counted
		return facts, detail, true
	}
	o.must.paths = append(o.must.paths, h.Files...)

	// The text of the first matches, while the lines are within their
	// share: each shown costs its line, and saves its number on its file's
	// line.
	limit := min(len(o.body)/searchShare, len(detail)+hitTexts)
	n, est := 0, len(detail)
	for n < len(h.List) {
		x := h.List[n]
		cost := len(pathlist.MatchLine(x)) + 3
		if x.Line > 0 && !byFile[x.File].Counted(h.List) {
			cost -= len(strconv.Itoa(x.Line)) + 2
		}
		if est+cost > limit {
			break
		}
		est += cost
		shown[n] = true
		n++
	}
	for detail = render(); n > 0 && len(detail) > limit; detail = render() {
		n--
		shown[n] = false
	}
	switch {
	case n == len(h.List):
		facts = append(facts, "the text of every match")
	case n == 1:
		facts = append(facts, "the text of the first match")
	case n > 0:
		facts = append(facts, "the text of the first "+textfmt.Plural(n, "match", "matches"))
	}
	return facts, detail, true
}
