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
	hitText     = 160 // the most characters of a match's text shown
)

// hit is one match line.
type hit struct {
	file string // as the summary names it; "" when the output names none
	line int    // its number in the file; 0 when the output does not say
	text string
}

// hits is what a search printed.
type hits struct {
	matches   int
	list      []hit          // the match lines, in order
	counts    map[string]int // grep -c's count of matches, by file
	files     []string       // the files, in order, each once
	onlyFiles bool           // a list of files (grep -l, Grep's files_with_matches)
}

// parseHits reads the output of grep, rg, git grep and search tools: lines
// "path:line:text", "path:text", "line:text" and bare lines (a search of
// one file, searched, "" when unknown), "path:count" (grep -c), rg's
// headings (a path, then its "line:text" lines), context lines
// "path-line-text" and "--" separators, or a list of files ("Found 11
// files" and a path a line). cwd shortens the paths.
func parseHits(body, cwd, searched string) hits {
	h := hits{counts: map[string]int{}}
	seen := map[string]bool{}
	file := func(p string) string {
		p = shortPath(p, cwd)
		if !seen[p] {
			seen[p] = true
			h.files = append(h.files, p)
		}
		return p
	}
	heading := "" // rg's heading: the file of the numbered lines under it
	listed := 0   // lines that are only a path
	eachLine(body, func(n int, line string) bool {
		if line == "" {
			heading = ""
			return true
		}
		if line == "--" || n == 0 && strings.HasPrefix(line, "Found ") {
			return true
		}
		p, num, text, ok := matchPrefix(line)
		switch {
		case ok && p == "" && isDigits(text):
			return true // a line number alone
		case ok && num == 0 && isDigits(text):
			c := atoi(text) // grep -c: path:count
			h.counts[file(p)] += c
			h.matches += c
			return true
		case !ok && isContext(line):
			return true
		case !ok && looksLikePath(line):
			heading = file(line) // a list of files, or rg's heading before its matches
			listed++
			return true
		case !ok:
			text = line // a bare line of grep on one file
		}
		f := heading
		switch {
		case p != "":
			f = file(p)
		case f == "" && searched != "":
			f = file(searched)
		}
		h.matches++
		h.list = append(h.list, hit{file: f, line: num, text: text})
		return true
	})
	h.onlyFiles = h.matches == 0 && listed > 0
	return h
}

// matchPrefix splits a match line into its path ("" for "12:text", a
// match in the one file searched), its line number (0 for "path:text")
// and the text.
func matchPrefix(line string) (path string, num int, text string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i < 0 {
		return "", 0, "", false
	}
	first, after := line[:i], line[i+1:]
	if isDigits(first) {
		n, _ := strconv.Atoi(first)
		return "", n, after, true // 12:text
	}
	if !looksLikePath(first) {
		return "", 0, "", false
	}
	if j := strings.IndexByte(after, ':'); j > 0 && isDigits(after[:j]) {
		n, _ := strconv.Atoi(after[:j])
		return first, n, after[j+1:], true // path:12:text
	}
	return first, 0, after, true
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

// searchedFile is the file a search searched when its call names one: the
// file of the matches whose lines do not name it.
func searchedFile(p string) string {
	if p == "" || strings.HasSuffix(p, "/") || path.Ext(p) == "" || strings.ContainsAny(p, "*?[") {
		return ""
	}
	return p
}

// fileHits are the matches of one file.
type fileHits struct {
	file  string
	hits  []int // indexes in hits.list
	count int   // grep -c's count, when it gave one
}

// search names every file and line of the matches, grouped by file, with
// the text of as many matches as fit (the first ones); past half the
// output, every directory with its count of files. A list of files is
// named as a listing is.
func search(o output) ([]string, string, bool) {
	h := parseHits(o.body, o.cwd, searchedFile(o.call.Args.Path))
	switch {
	case h.onlyFiles:
		facts, detail := o.paths(textfmt.Plural(len(h.files), "file", "files")+" with matches", pathlist.Group(h.files), "file")
		return facts, detail, true
	case h.matches == 0:
		return other(o)
	}
	count := textfmt.Plural(h.matches, "match", "matches")
	if len(h.files) > 0 {
		count += " in " + textfmt.Plural(len(h.files), "file", "files")
	}
	o.must.facts = append(o.must.facts, count)
	g := pathlist.Group(h.files)
	var groups []*fileHits
	byFile := map[string]*fileHits{}
	group := func(f string) *fileHits {
		if byFile[f] == nil {
			byFile[f] = &fileHits{file: f}
			groups = append(groups, byFile[f])
		}
		return byFile[f]
	}
	for i, x := range h.list {
		fh := group(x.file)
		fh.hits = append(fh.hits, i)
	}
	for _, f := range h.files {
		group(f).count = h.counts[f]
	}
	shown := make([]bool, len(h.list))
	render := func() string {
		var b strings.Builder
		for _, fh := range groups {
			writeFileHits(&b, fh, h.list, shown, len(g.Under))
		}
		return b.String()
	}
	numbered := len(h.list) > 0
	for _, x := range h.list {
		numbered = numbered && x.line > 0
	}
	what := "every file"
	if numbered {
		what = "every file and line"
	}
	under := count
	if len(h.files) > 0 && g.Under != "" {
		under += " under " + g.Under
	}
	facts := []string{under, what + " shown"}
	detail := render()
	if len(h.files) > 0 && len(detail) > max(len(o.body)/pathShare, pathFloor) {
		facts, detail := o.paths(count, g, "file") // too many files to name each: every directory, counted
		return facts, detail, true
	}
	o.must.paths = append(o.must.paths, h.files...)

	// The text of the first matches, while the lines are within their
	// share: each shown costs its line, and saves its number on its file's
	// line.
	limit := min(len(o.body)/searchShare, len(detail)+hitTexts)
	n, est := 0, len(detail)
	for n < len(h.list) {
		x := h.list[n]
		cost := len(matchLine(x)) + 3
		if x.line > 0 && !byFile[x.file].counted(h.list) {
			cost -= len(strconv.Itoa(x.line)) + 2
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
	case n == len(h.list):
		facts = append(facts, "the text of every match")
	case n == 1:
		facts = append(facts, "the text of the first match")
	case n > 0:
		facts = append(facts, "the text of the first "+textfmt.Plural(n, "match", "matches"))
	}
	return facts, detail, true
}

// counted reports whether a file's line counts its matches rather than
// listing their numbers: grep -c counted them, or they have none.
func (fh *fileHits) counted(list []hit) bool {
	if fh.count > 0 || len(fh.hits) == 0 {
		return true
	}
	for _, i := range fh.hits {
		if list[i].line == 0 {
			return true
		}
	}
	return false
}

// lineRanges writes line numbers, a run of consecutive ones as a range:
// "3, 12-14, 40".
func lineRanges(nums []int) string {
	var b strings.Builder
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(nums[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(nums[j]))
		}
		i = j + 1
	}
	return b.String()
}

// matchLine is how a match is shown: its number and its text, clipped.
func matchLine(x hit) string {
	line := strings.TrimSpace(x.text)
	if x.line > 0 {
		line = strconv.Itoa(x.line) + ": " + line
	}
	return textfmt.Clip(line, hitText)
}

// writeFileHits writes the line of one file (its path, relative to the
// directory the files share, under bytes of it, and the numbers of its
// matches whose text is not shown, or their count) and the matches whose
// text is shown, indented, each with its number.
func writeFileHits(b *strings.Builder, fh *fileHits, list []hit, shown []bool, under int) {
	var nums []int
	for _, i := range fh.hits {
		if !shown[i] && list[i].line > 0 {
			nums = append(nums, list[i].line)
		}
	}
	name := fh.file[min(under, len(fh.file)):]
	switch {
	case fh.file == "":
	case fh.counted(list):
		b.WriteString("\n" + name + " (" + textfmt.Plural(max(fh.count, len(fh.hits)), "match", "matches") + ")")
	case len(nums) == 0: // every match's text is shown
		b.WriteString("\n" + name + ":")
	default:
		b.WriteString("\n" + name + ": " + lineRanges(nums))
	}
	indent := "  "
	if fh.file == "" {
		indent = ""
	}
	for _, i := range fh.hits {
		if shown[i] {
			b.WriteString("\n" + indent + matchLine(list[i]))
		}
	}
}
