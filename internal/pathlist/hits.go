package pathlist

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// HitText is the most characters of a match's text shown (MatchLine).
const HitText = 160

// Hit is one match line of a search.
type Hit struct {
	File string // as the caller names it; "" when the output names none
	Line int    // its number in the file; 0 when the output does not say
	Text string
	N    int // its 0-based line in the output
}

// Hits is what a search printed.
type Hits struct {
	Matches   int
	List      []Hit          // the match lines, in order
	Counts    map[string]int // grep -c's count of matches, by file
	Files     []string       // the files, in order, each once
	OnlyFiles bool           // a list of files (grep -l, Grep's files_with_matches)
}

// ParseHits reads the output of grep, rg, git grep and search tools: lines
// "path:line:text", "path:text", "line:text" and bare lines (a search of
// one file, searched, "" when unknown), "path:count" (grep -c), rg's
// headings (a path, then its "line:text" lines), context lines
// "path-line-text" and "--" separators, or a list of files ("Found 11
// files" and a path a line). norm rewrites each path as the caller names
// it; nil keeps it as printed.
func ParseHits(body, searched string, norm func(string) string) Hits {
	h := Hits{Counts: map[string]int{}, List: make([]Hit, 0, strings.Count(body, "\n")+1)}
	seen := map[string]bool{}
	file := func(p string) string {
		if norm != nil {
			p = norm(p)
		}
		if !seen[p] {
			seen[p] = true
			h.Files = append(h.Files, p)
		}
		return p
	}
	heading := "" // rg's heading: the file of the numbered lines under it
	listed := 0   // lines that are only a path
	eachLine(body, func(n int, line string) {
		if line == "" {
			heading = ""
			return
		}
		if line == "--" || n == 0 && strings.HasPrefix(line, "Found ") {
			return
		}
		p, num, text, ok := matchPrefix(line)
		switch {
		case ok && p == "" && isDigits(text):
			return // a line number alone
		case ok && num == 0 && isDigits(text):
			c, _ := strconv.Atoi(text) // grep -c: path:count
			h.Counts[file(p)] += c
			h.Matches += c
			return
		case !ok && isContext(line):
			return
		case !ok && LooksLikePath(line):
			heading = file(line) // a list of files, or rg's heading before its matches
			listed++
			return
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
		h.Matches++
		h.List = append(h.List, Hit{File: f, Line: num, Text: text, N: n})
	})
	h.OnlyFiles = h.Matches == 0 && listed > 0
	if len(h.List) == 0 {
		h.List = nil
	}
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
	if !LooksLikePath(first) {
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

// LooksLikePath reports whether s can be a file path: no spaces, quotes,
// brackets or separators of a list, and a slash or a dot.
func LooksLikePath(s string) bool {
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

// FileHits are the matches of one file.
type FileHits struct {
	File  string
	Hits  []int // indexes in Hits.List
	Count int   // grep -c's count, when it gave one
}

// ByFile groups the matches by file, in the order of each file's first
// line, and gives each file's group by its name.
func (h Hits) ByFile() ([]*FileHits, map[string]*FileHits) {
	var groups []*FileHits
	byFile := map[string]*FileHits{}
	group := func(f string) *FileHits {
		if byFile[f] == nil {
			byFile[f] = &FileHits{File: f}
			groups = append(groups, byFile[f])
		}
		return byFile[f]
	}
	for i, x := range h.List {
		fh := group(x.File)
		fh.Hits = append(fh.Hits, i)
	}
	for _, f := range h.Files {
		group(f).Count = h.Counts[f]
	}
	return groups, byFile
}

// Counted reports whether a file's line counts its matches rather than
// listing their numbers: grep -c counted them, or they have none.
func (fh *FileHits) Counted(list []Hit) bool {
	if fh.Count > 0 || len(fh.Hits) == 0 {
		return true
	}
	for _, i := range fh.Hits {
		if list[i].Line == 0 {
			return true
		}
	}
	return false
}

// LineRanges writes line numbers, a run of consecutive ones as a range:
// "3, 12-14, 40".
func LineRanges(nums []int) string {
	var b strings.Builder
	writeRanges(&b, nums)
	return b.String()
}

func writeRanges(b *strings.Builder, nums []int) {
	var buf [20]byte
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(strconv.AppendInt(buf[:0], int64(nums[i]), 10))
		if j > i {
			b.WriteByte('-')
			b.Write(strconv.AppendInt(buf[:0], int64(nums[j]), 10))
		}
		i = j + 1
	}
}

// MatchLine is how a match is shown: its number and its text, clipped to
// HitText characters in all.
func MatchLine(x Hit) string {
	text := strings.TrimSpace(x.Text)
	if x.Line == 0 {
		return textfmt.Clip(text, HitText)
	}
	var num [20]byte
	n := strconv.AppendInt(num[:0], int64(x.Line), 10)
	text = textfmt.Clip(text, HitText-len(n)-len(": ")) // the number is ASCII: a char a byte
	var b strings.Builder
	b.Grow(len(n) + 2 + len(text))
	b.Write(n)
	b.WriteString(": ")
	b.WriteString(text)
	return b.String()
}

// MatchLineLen is len(MatchLine(x)), without making the line.
func MatchLineLen(x Hit) int {
	text := strings.TrimSpace(x.Text)
	limit, n := HitText, 0
	if x.Line > 0 {
		n = digits(x.Line) + len(": ")
		limit -= n
	}
	if i := textfmt.RuneOffset(text, limit); i < len(text) {
		return n + textfmt.RuneOffset(text, limit-1) + len("…")
	}
	return n + len(text)
}

// WriteFileHits writes, each on a line that starts with a newline, the
// line of one file (its path without its first under bytes, the directory
// the files share; then the numbers of its matches whose text is not
// shown, or, when counts is set or they have no numbers, their count) and
// the matches whose text is shown, indented, each with its number. The
// matches of no file named (a search of one file) have a line "lines 3,
// 12-14" for those whose text is not shown, and theirs unindented.
func WriteFileHits(b *strings.Builder, fh *FileHits, list []Hit, shown []bool, under int, counts bool) {
	var nums []int
	for _, i := range fh.Hits {
		if !shown[i] && list[i].Line > 0 {
			nums = append(nums, list[i].Line)
		}
	}
	name := fh.File[min(under, len(fh.File)):]
	switch {
	case fh.File == "" && len(nums) > 0 && !counts:
		b.WriteString("\nlines ")
		writeRanges(b, nums)
	case fh.File == "":
	case counts || fh.Counted(list):
		b.WriteString("\n")
		b.WriteString(name)
		b.WriteString(" (")
		b.WriteString(textfmt.Plural(max(fh.Count, len(fh.Hits)), "match", "matches"))
		b.WriteString(")")
	case len(nums) == 0: // every match's text is shown
		b.WriteString("\n")
		b.WriteString(name)
		b.WriteString(":")
	default:
		b.WriteString("\n")
		b.WriteString(name)
		b.WriteString(": ")
		writeRanges(b, nums)
	}
	indent := "\n  "
	if fh.File == "" {
		indent = "\n"
	}
	for _, i := range fh.Hits {
		if shown[i] {
			b.WriteString(indent)
			b.WriteString(MatchLine(list[i]))
		}
	}
}

// FileHitsSize is the length of what WriteFileHits writes, without
// writing it: matchLen[i] is len(MatchLine(list[i])), made once by the
// caller, which sizes the lines many times to fit them in a budget.
func FileHitsSize(fh *FileHits, list []Hit, shown []bool, under int, counts bool, matchLen []int) int {
	// The unshown numbers, and the length of their ranges (LineRanges).
	nums, n, first, last := 0, 0, 0, 0
	for _, i := range fh.Hits {
		l := list[i].Line
		switch {
		case shown[i] || l == 0:
			continue
		case nums > 0 && l == last+1:
			last = l
			nums++
			continue
		case nums > 0:
			n += rangeLen(first, last) + len(", ")
		}
		first, last = l, l
		nums++
	}
	if nums > 0 {
		n += rangeLen(first, last)
	}
	name := len(fh.File) - min(under, len(fh.File))
	size := 0
	switch {
	case fh.File == "" && nums > 0 && !counts:
		size = len("\nlines ") + n
	case fh.File == "":
	case counts || fh.Counted(list):
		size = 1 + name + len(" (") + len(textfmt.Plural(max(fh.Count, len(fh.Hits)), "match", "matches")) + len(")")
	case nums == 0:
		size = 1 + name + len(":")
	default:
		size = 1 + name + len(": ") + n
	}
	indent := 3 // "\n  "
	if fh.File == "" {
		indent = 1
	}
	for _, i := range fh.Hits {
		if shown[i] {
			size += indent + matchLen[i]
		}
	}
	return size
}

// rangeLen is the length of a range of line numbers as LineRanges writes
// it: "3", or "12-14".
func rangeLen(first, last int) int {
	if last > first {
		return digits(first) + 1 + digits(last)
	}
	return digits(first)
}

// digits is the length of a positive number written out.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}
