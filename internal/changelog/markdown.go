package changelog

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// WriteMarkdown writes the report for people (and stays stable for
// scripts): a section per session, then per file, a line per change.
func (r Report) WriteMarkdown(w io.Writer) error {
	mw := &mdWriter{w: w}
	for i, cl := range r.Changelogs {
		if i > 0 {
			mw.line("")
		}
		if r.File != "" {
			mw.timeline(cl)
		} else {
			mw.changelog(cl)
		}
	}
	if len(r.Changelogs) > 1 {
		mw.line("")
		mw.line("# Total")
		mw.line("")
		mw.line("%s: %s", textfmt.Plural(len(r.Changelogs), "session", "sessions"), totalsLine(r.Totals, r.File != ""))
	}
	return mw.err
}

type mdWriter struct {
	w   io.Writer
	err error
	gap bool // a blank line is due before the next line that is not blank
}

func (m *mdWriter) line(format string, args ...any) {
	if format == "" {
		m.gap = true
		return
	}
	if m.err == nil && m.gap {
		_, m.err = io.WriteString(m.w, "\n")
	}
	m.gap = false
	if m.err == nil {
		// Paths, intents and diffs come from the transcript: no control
		// character of theirs reaches a terminal.
		_, m.err = io.WriteString(m.w, textfmt.Escape(fmt.Sprintf(format, args...))+"\n")
	}
}

// heading opens a changelog: the session's id (or its file), or the list
// of the sessions merged.
func (m *mdWriter) heading(title string, cl Changelog) {
	if len(cl.Sessions) == 1 {
		s := cl.Sessions[0]
		m.line("# %s%s", title, sessionTitle(s))
		m.line("")
		where := s.Format
		if s.Cwd != "" {
			where += ", in " + s.Cwd
		}
		m.line("%s (%s): %s", s.Source, where, totalsLine(cl.Totals, false))
		return
	}
	m.line("# %s%d sessions merged", title, len(cl.Sessions))
	m.line("")
	for _, s := range cl.Sessions {
		m.line("- %s: %s (%s)", shortName(s), s.Source, s.Format)
	}
	m.line("")
	m.line("%s", totalsLine(cl.Totals, false))
}

func sessionTitle(s Session) string {
	if s.ID != "" {
		return "session " + s.ID
	}
	return s.Source
}

func (m *mdWriter) changelog(cl Changelog) {
	m.heading("Changes in ", cl)
	if n := cl.Totals.NotApplied(); n > 0 && cl.NotApplied == nil {
		them := "them"
		if n == 1 {
			them = "it"
		}
		m.line("%s that changed nothing left out (%s; --include-failed lists %s).", textfmt.Plural(n, "call", "calls"), notAppliedLine(cl.Totals), them)
	}
	for _, f := range cl.Files {
		m.line("")
		if f.Temporary {
			m.line("## %s (created and removed)", f.Path)
		} else {
			m.line("## %s", f.Path)
		}
		m.line("")
		m.line("%s.", changesLine(f.Totals))
		m.line("")
		for _, c := range f.Changes {
			m.change(c, false)
		}
	}
	if len(cl.NotApplied) > 0 {
		m.line("")
		m.line("## Not made")
		m.line("")
		for _, c := range cl.NotApplied {
			m.change(c, true)
		}
	}
}

func (m *mdWriter) timeline(cl Changelog) {
	f := cl.Files[0]
	m.line("# Timeline of %s in %s", f.Path, sessionNames(cl.Sessions))
	m.line("")
	m.line("%s", totalsLine(f.Totals, true))
	m.line("")
	for _, c := range f.Changes {
		m.change(c, false)
	}
}

func sessionNames(ss []Session) string {
	if len(ss) == 1 {
		return sessionTitle(ss[0])
	}
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = shortName(s)
	}
	return textfmt.Plural(len(ss), "session", "sessions") + " (" + strings.Join(names, ", ") + ")"
}

// change writes one change's line, and its context and diff under it;
// withPath names the file, for a list of several files' changes.
func (m *mdWriter) change(c Change, withPath bool) {
	var b strings.Builder
	b.WriteString("- " + verb(c) + " ")
	if withPath {
		b.WriteString("of " + c.Path + " ")
	}
	b.WriteString("(")
	if c.Session != "" {
		b.WriteString("session " + short(c.Session) + ", ")
	}
	fmt.Fprintf(&b, "call %s, turn %d): ", c.CallID, c.Turn)
	if !c.Applied() {
		b.WriteString(c.Error)
	} else {
		b.WriteString(c.Description)
	}
	if c.Intent != "" {
		b.WriteString(` — intent: "` + oneLine(c.Intent) + `"`)
	}
	m.line("%s", b.String())
	if c.Context != "" {
		m.line("  > %s", textfmt.Clip(oneLine(c.Context), 300))
	}
	if c.Diff != "" {
		m.line("")
		m.line("  ```diff")
		for _, l := range strings.SplitAfter(strings.TrimSuffix(c.Diff, "\n"), "\n") {
			m.line("  %s", strings.TrimSuffix(l, "\n"))
		}
		m.line("  ```")
		m.line("")
	}
}

func verb(c Change) string {
	if !c.Applied() {
		noun := map[Action]string{Read: "read", Create: "write", Write: "write", Edit: "edit", Delete: "delete", Move: "move"}[c.Action]
		switch c.End {
		case outcome.NoResult:
			return strings.ToUpper(noun[:1]) + noun[1:] + " without a result"
		case outcome.Cancelled:
			return "Cancelled " + noun
		case outcome.Denied:
			return "Denied " + noun
		}
		return "Failed " + noun
	}
	return map[Action]string{Read: "Read", Create: "Created", Write: "Wrote", Edit: "Edited", Delete: "Deleted", Move: "Moved"}[c.Action]
}

// notAppliedLine counts the calls that made no change by how they ended:
// "3 failed, 1 denied".
func notAppliedLine(t Totals) string {
	var parts []string
	for _, n := range []struct {
		n    int
		what string
	}{{t.Failed, "failed"}, {t.Denied, "denied"}, {t.Cancelled, "cancelled"}, {t.NoResult, "without a result"}} {
		if n.n > 0 {
			parts = append(parts, textfmt.Int(n.n)+" "+n.what)
		}
	}
	return strings.Join(parts, ", ")
}

// totalsLine sums up a changelog: "3 files changed: 12 changes, +40 −12."
func totalsLine(t Totals, timeline bool) string {
	if timeline {
		s := textfmt.Plural(t.Reads, "read", "reads") + ", " + changesLine(t)
		if n := t.NotApplied(); n > 0 {
			s += ", " + textfmt.Plural(n, "call", "calls") + " that changed nothing (" + notAppliedLine(t) + ")"
		}
		return s + "."
	}
	s := "no file changed"
	if t.Changes > 0 {
		s = textfmt.Plural(t.Files, "file", "files") + " changed: " + changesLine(t)
	}
	if t.Temporary > 0 {
		s += "; " + textfmt.Plural(t.Temporary, "file", "files") + " created and removed"
	}
	return s + "."
}

// changesLine counts changes: "12 changes, +40 −12", and those whose lines
// are not known.
func changesLine(t Totals) string {
	s := textfmt.Plural(t.Changes, "change", "changes")
	switch {
	case t.Uncounted > 0 && t.Uncounted == t.Changes:
		s += ", lines not counted"
	case t.Uncounted > 0:
		s += ", " + counts(t.Added, t.Removed) + " (" + textfmt.Int(t.Uncounted) + " not counted)"
	case t.Changes > 0:
		s += ", " + counts(t.Added, t.Removed)
	}
	return s
}

// shortName names a session in a merged report: the start of its id (ids
// are UUIDs), else its source.
func shortName(s Session) string { return short(s.Name()) }

func short(name string) string {
	if len(name) >= 32 && strings.Count(name, "-") >= 4 {
		return name[:8]
	}
	return name
}

// oneLine joins a text's lines and runs of white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
