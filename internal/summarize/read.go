package summarize

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/outline"
	"github.com/ctxkit/ctxkit/internal/pathlist"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
)

const (
	// readRoom is the lines a read's summary is filled up to with the
	// file's first lines.
	readRoom = 10
	// outlineLines is the most definitions shown each on its line.
	outlineLines = 20
	// outlineLine is the most characters of a definition's line shown.
	outlineLine = 120
	// outlineShare: an outline whose lines take more than 1/outlineShare
	// of the read names the definitions and their lines only.
	outlineShare = 3
	// outlineWidth is the most characters of a line of names.
	outlineWidth = 160
)

// read outlines a read: the definitions the file holds, each on its line
// with its number in the file (or, when they are many, their names and
// lines); for a file in no language the outline knows (a log, data, a
// command's saved output), every line that says what went wrong; then the
// file's first lines (a tail's last lines) while there is room.
func read(o output) ([]string, string, bool) {
	lines, first, lang, defs := o.readOutline()
	text := strings.Join(lines, "\n")
	facts := []string{size(o.body)}
	var shown []string
	var pieces []piece
	names := ""
	if len(defs) > 0 {
		facts = append(facts, lang+": "+kinds(defs))
		pieces, names = o.outline(defs, lines, first)
		switch {
		case names == "" && len(defs) == 1:
			shown = append(shown, "its line")
		case names == "":
			shown = append(shown, "their lines")
		case first > 0:
			shown = append(shown, "their names and lines")
		default:
			shown = append(shown, "their names")
		}
	}
	if lang == "" {
		for _, l := range outcome.ErrorLines(text) {
			pieces = append(pieces, piece{l.N - 1, l.Text})
		}
		if len(pieces) > 0 {
			shown = append(shown, textfmt.Plural(len(pieces), "error line", "error lines"))
		}
	}
	if room := readRoom - len(pieces); room > 0 && names == "" {
		ends, which := head(text, room), "first"
		if o.call.Args.Range.Last > 0 {
			ends, which = tail(text, room, len(lines)), "last"
		}
		if len(merge(pieces, ends)) > len(pieces) {
			shown = append(shown, "the "+which+" "+textfmt.Plural(len(ends), "line", "lines"))
		}
		pieces = merge(pieces, ends)
	}
	facts = append(facts, strings.Join(shown, " and ")+" shown", "read the file again for the rest")
	switch {
	case names != "":
		return facts, names, true
	case first > 0:
		return facts, numbered(pieces, first), true
	}
	return facts, excerpt(text, len(lines), pieces), true
}

// readOutline reads a read: the file's lines it shows, the number of the
// first (0: unknown), the file's language and the definitions in them.
func (o output) readOutline() (lines []string, first int, lang string, defs []outline.Def) {
	if o.call.Continues != nil {
		// More output of a running read (a Codex write_stdin): its lines
		// do not start where the read's range does.
		lines, first = outcome.ReadLines(o.body)
	} else {
		lines, first = outcome.FileLines(o.body, o.call.Args.Range.Start, o.call.Args.Range.Last != 0)
	}
	if len(lines) > 0 {
		lang = outline.Lang(o.call.Args.File(o.cwd), lines[0])
	}
	return lines, first, lang, outline.Find(lang, lines, max(first, 1))
}

// clearNames is the most characters of the names a clear keeps.
const clearNames = 600

// named is what a clear of the output keeps of what the agent would read
// or list again for, after the marker line: the names a read's file
// defines, on a line "Defines: Store, Get, Put" (a page's headings:
// "Headings: …"), up to clearNames characters; the paths a listing or a
// search showed, grouped by directory, on the lines after "Paths[ under
// DIR/]:", or past clearNames characters, every directory with its count.
func (o output) named() string {
	switch o.call.Kind {
	case tools.Read:
		_, _, _, defs := o.readOutline()
		var names []string
		seen := map[string]bool{}
		size := 0
		for _, d := range defs {
			if seen[d.Name] {
				continue
			}
			seen[d.Name] = true
			if size <= clearNames {
				names = append(names, textfmt.Clip(d.Name, outlineLine))
				size += len(d.Name) + 2
			}
		}
		if more := len(seen) - len(names); more > 0 {
			names = append(names, "… ("+textfmt.Int(more)+" more)")
		}
		label := "Defines: "
		if defs != nil && defs[0].Kind == outline.Heading {
			label = "Headings: " // a page's; only Markdown has them
		}
		if len(names) > 0 {
			return "\n" + label + strings.Join(names, ", ")
		}
	case tools.List, tools.Search:
		g := pathlist.Group(ShownPaths(o.call, o.body, o.cwd))
		lines := g.Lines()
		if pathlist.Size(lines) > clearNames {
			lines, _ = g.Counted(clearNames)
		}
		if len(lines) > 0 {
			under := ""
			if g.Under != "" {
				under = " under " + g.Under
			}
			return "\nPaths" + under + ":\n" + strings.Join(lines, "\n")
		}
	}
	return ""
}

// outline is the outline of a read whose lines (the first of which is
// line first of the file, 0: unknown) hold defs: each definition's line,
// or, when they are more than outlineLines or take more than
// 1/outlineShare of the read, their names and lines (names). Their names
// and the outline are what a model's summary must keep.
func (o output) outline(defs []outline.Def, lines []string, first int) (pieces []piece, names string) {
	named := map[string]bool{}
	for _, d := range defs {
		if !named[d.Name] {
			named[d.Name] = true
			o.must.names = append(o.must.names, d.Name)
		}
	}
	chars, content := 0, 0
	for _, d := range defs {
		i := d.Line - max(first, 1) // its index in lines
		text := textfmt.Clip(strings.TrimRight(lines[i], " \t\r"), outlineLine)
		pieces = append(pieces, piece{i, text})
		chars += len(text) + 8
	}
	for _, l := range lines {
		content += len(l) + 1
	}
	switch {
	case len(defs) > outlineLines || chars > content/outlineShare:
		names = nameLines(defs, first > 0)
		o.must.outline = names
		return nil, names
	case first > 0:
		o.must.outline = numbered(pieces, first)
	default:
		o.must.outline = excerpt(strings.Join(lines, "\n"), len(lines), pieces)
	}
	return pieces, ""
}

// numbered writes kept lines of a file each with its number in the file,
// right-aligned: "  12: func main() {".
func numbered(pieces []piece, first int) string {
	width := len(strconv.Itoa(first + pieces[len(pieces)-1].n))
	var b strings.Builder
	for _, p := range pieces {
		num := strconv.Itoa(first + p.n)
		b.WriteString("\n" + strings.Repeat(" ", width-len(num)) + num + ": " + clipLine(p.text))
	}
	return b.String()
}

// nameLines names the definitions and their lines (lines says whether
// the numbers are the file's): each name once with every line that defines
// it ("handle_event 101, 112"), a top-level definition's nested ones after
// it, on the lines after it ("Store 12:", "  Get 20; Put 31"), the
// top-level ones without any together, on lines of at most outlineWidth
// characters (but for a name whose lines alone are more).
func nameLines(defs []outline.Def, lines bool) string {
	type item struct {
		name string
		at   []string
		top  bool
	}
	var items []*item
	byName := map[[2]string]*item{} // a name, and the top-level definition it is in
	top := ""
	for _, d := range defs {
		key := [2]string{top, d.Name}
		if d.Depth == 0 {
			top, key[0] = d.Name, ""
		}
		it := byName[key]
		if it == nil {
			it = &item{name: textfmt.Clip(d.Name, outlineLine), top: d.Depth == 0}
			byName[key] = it
			items = append(items, it)
		}
		it.at = append(it.at, strconv.Itoa(d.Line))
	}
	var b strings.Builder
	width := 0
	for i, it := range items {
		text := it.name
		if lines {
			text += " " + strings.Join(it.at, ", ")
		}
		nested := i+1 < len(items) && !items[i+1].top
		switch {
		case it.top && (i == 0 || nested || !items[i-1].top):
			// A new line: the first, a definition with nested ones, or the
			// first after another's nested ones.
			b.WriteString("\n" + text)
			width = len(text)
		case width > 0 && width+len(text)+2 <= outlineWidth:
			b.WriteString("; " + text)
			width += len(text) + 2
		default:
			b.WriteString("\n  " + text)
			width = len(text) + 2
		}
		if it.top && nested {
			b.WriteString(":")
			width = outlineWidth // its nested ones start on the next line
		}
	}
	return b.String()
}

// kinds counts definitions by kind: "1 module, 3 functions".
func kinds(defs []outline.Def) string {
	n := map[outline.Kind]int{}
	for _, d := range defs {
		n[d.Kind]++
	}
	var out []string
	for _, k := range []struct {
		kind      outline.Kind
		one, many string
	}{{outline.Module, "module", "modules"}, {outline.Class, "class", "classes"}, {outline.Type, "type", "types"},
		{outline.Func, "function", "functions"}, {outline.Method, "method", "methods"}, {outline.Test, "test", "tests"},
		{outline.Heading, "heading", "headings"}} {
		if n[k.kind] > 0 {
			out = append(out, textfmt.Plural(n[k.kind], k.one, k.many))
		}
	}
	return strings.Join(out, ", ")
}
