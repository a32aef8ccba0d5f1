package changelog

import (
	"cmp"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ctxkit/ctxkit/internal/patch"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// measure is what a change did, as counted from its content.
type measure struct {
	added, removed int
	counted        bool
	loc            location
	diff           string
}

// measureFull diffs the whole content before and after a change of the
// file p (moved to to, if not "").
func measureFull(p, to string, action Action, before, after string, withDiff bool) measure {
	from, to := "a/"+p, "b/"+cmp.Or(to, p)
	switch action {
	case Create:
		from, before = "/dev/null", ""
	case Delete:
		to = "/dev/null"
	}
	u, err := udiff.ToUnifiedDiff(from, to, before, udiff.Lines(before, after), udiff.DefaultContextLines)
	if err != nil {
		return measure{} // cannot happen: the edits come from the same text
	}
	m := measure{counted: true}
	m.added, m.removed = countHunks(u.Hunks)
	if action == Edit || action == Move {
		m.loc = locateHunks(u.Hunks, patch.SplitLines(before), isMarkdown(p))
	}
	if withDiff {
		m.diff = u.String()
	}
	return m
}

// measurePieces diffs a change's own old and new text, when the content
// before it is not known.
func measurePieces(p, to string, action Action, pieces []piece, withDiff bool) measure {
	from, to := "a/"+p, "b/"+cmp.Or(to, p)
	if action == Create {
		from = "/dev/null"
	}
	md := isMarkdown(p)
	all := udiff.UnifiedDiff{From: from, To: to}
	m := measure{counted: true}
	for _, pc := range pieces {
		u, err := udiff.ToUnifiedDiff(from, to, pc.old, udiff.Lines(pc.old, pc.new), udiff.DefaultContextLines)
		if err != nil {
			continue
		}
		a, r := countHunks(u.Hunks)
		m.added += a
		m.removed += r
		if action == Edit || action == Move {
			loc := locateHunks(u.Hunks, patch.SplitLines(pc.old), md)
			if loc.empty() && pc.context != "" {
				if d := definition(pc.context, md); d != "" {
					loc.in = []string{d}
				}
			}
			m.loc.merge(loc)
		}
		all.Hunks = append(all.Hunks, u.Hunks...)
	}
	if withDiff {
		m.diff = all.String()
	}
	return m
}

func countHunks(hunks []*udiff.Hunk) (added, removed int) {
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return added, removed
}

// locateHunks finds where a change is from its diff's hunks and the text
// before it: each run of changed lines on its own.
func locateHunks(hunks []*udiff.Hunk, before []string, markdown bool) location {
	var loc location
	for _, h := range hunks {
		var removed, added []string
		first := -1
		flush := func() {
			if first >= 0 {
				loc.merge(locate(removed, added, before, first, markdown))
			}
			removed, added, first = nil, nil, -1
		}
		old := h.FromLine - 1 // 0-based index in before of the line at hand
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Equal:
				flush()
				old++
				continue
			case udiff.Delete:
				removed = append(removed, l.Content)
			case udiff.Insert:
				added = append(added, l.Content)
			}
			if first < 0 {
				first = old
			}
			if l.Kind == udiff.Delete {
				old++
			}
		}
		flush()
	}
	return loc
}

// counts formats lines added and removed: "+4 −1".
func counts(added, removed int) string {
	return "+" + textfmt.Int(added) + " \u2212" + textfmt.Int(removed)
}

// lines formats a number of lines: "1 line", "46 lines".
func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return textfmt.Int(n) + " lines"
}

// describeChange says what a change did, from the change itself.
func describeChange(c *Change, fc fileChange, beforeKnown bool, why string) string {
	switch c.Action {
	case Create:
		return "new file, " + lines(c.Added)
	case Write:
		if beforeKnown {
			return counts(c.Added, c.Removed) + ", the whole file rewritten"
		}
		return lines(c.Added) + " written; " + why
	case Delete:
		if c.Counted {
			return lines(c.Removed) + " removed"
		}
		return "the file removed"
	}
	var b strings.Builder
	if c.Action == Move {
		b.WriteString("to " + c.To)
		if !c.Counted || c.Added+c.Removed == 0 {
			return b.String()
		}
		b.WriteString(", ")
	}
	if o, ok := fc.op.(linesOp); ok && !c.Counted {
		return fmt.Sprintf("lines %d-%d replaced by %s; %s", o.from, o.to, lines(patch.CountLines(o.text)), why)
	}
	if !c.Counted {
		b.WriteString("lines changed not known: " + why)
		return b.String()
	}
	if _, ok := fc.op.(undoOp); ok {
		b.WriteString("undid the last edit, ")
	}
	b.WriteString(counts(c.Added, c.Removed))
	switch o := fc.op.(type) {
	case appendOp:
		b.WriteString(" at the end")
	case insertOp:
		b.WriteString(" after line " + textfmt.Int(o.line))
	}
	if len(c.In) > 0 {
		b.WriteString(" in " + someOf(c.In))
	}
	if len(c.Adds) > 0 {
		b.WriteString(", adds " + someOf(c.Adds))
	}
	if len(c.Removes) > 0 {
		b.WriteString(", removes " + someOf(c.Removes))
	}
	if fc.all {
		b.WriteString(", every occurrence")
	}
	return b.String()
}

// someOf lists the first two names and counts the rest.
func someOf(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, " and ")
	}
	return strings.Join(names[:2], ", ") + " and " + textfmt.Int(len(names)-2) + " more"
}
