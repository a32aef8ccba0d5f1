package changelog

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ctxkit/ctxkit/internal/tools"
)

// ReportOptions shape a report.
type ReportOptions struct {
	Merge         bool // one changelog (or timeline) for all the sessions
	IncludeFailed bool // list the edits and writes not made apart
}

// NewChangelog gathers the successful edits and writes of each history by
// file, files in the order of their first change: a changelog per
// session, or one for all when merged.
func NewChangelog(hs []*History, opts ReportOptions) Report {
	rep := Report{Version: SchemaVersion, Changelogs: []Changelog{}}
	for _, group := range groups(hs, opts.Merge) {
		cl := Changelog{Sessions: []Session{}, Files: []File{}}
		byPath := map[string]int{}
		for _, h := range group {
			cl.Sessions = append(cl.Sessions, h.Session)
			for _, c := range h.Changes {
				if c.Action == Read {
					continue
				}
				if opts.Merge {
					c.Session = h.Session.Name()
					c.Path, c.To = mergedPath(group, h, c.Path), mergedPath(group, h, c.To)
				}
				if !c.Applied() {
					cl.Totals.add(c)
					if opts.IncludeFailed {
						cl.NotApplied = append(cl.NotApplied, c)
					}
					continue
				}
				i, ok := byPath[c.Path]
				if !ok {
					i = len(cl.Files)
					byPath[c.Path] = i
					cl.Files = append(cl.Files, File{Path: c.Path, Totals: Totals{Files: 1}})
				}
				cl.Files[i].Changes = append(cl.Files[i].Changes, c)
				cl.Files[i].Totals.add(c)
				cl.Totals.add(c)
			}
		}
		cl.settle()
		rep.Totals.merge(cl.Totals)
		rep.Changelogs = append(rep.Changelogs, cl)
	}
	return rep
}

// settle marks the files that the session created and removed, whose
// changes left nothing, and takes them out of the totals of the files
// changed.
func (cl *Changelog) settle() {
	for i := range cl.Files {
		f := &cl.Files[i]
		first, last := f.Changes[0], f.Changes[len(f.Changes)-1]
		if first.Action != Create || last.Action != Delete {
			continue
		}
		f.Temporary = true
		cl.Totals.Temporary++
		cl.Totals.Changes -= f.Totals.Changes
		cl.Totals.Added -= f.Totals.Added
		cl.Totals.Removed -= f.Totals.Removed
		cl.Totals.Uncounted -= f.Totals.Uncounted
	}
	cl.Totals.Files = len(cl.Files) - cl.Totals.Temporary
}

// NewTimeline lists every read, edit and write of the file p (as the user
// names it: see Resolve), failed ones too, in each history that has it.
func NewTimeline(hs []*History, p string, opts ReportOptions) (Report, error) {
	rep := Report{Version: SchemaVersion, File: p, Changelogs: []Changelog{}}
	var errs []string
	for _, group := range groups(hs, opts.Merge) {
		cl := Changelog{Sessions: []Session{}, Files: []File{}}
		var f *File
		for _, h := range group {
			resolved, err := h.Resolve(p)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			cl.Sessions = append(cl.Sessions, h.Session)
			if f == nil {
				cl.Files = append(cl.Files, File{Path: resolved, Totals: Totals{Files: 1}})
				f = &cl.Files[0]
			}
			for _, c := range h.Changes {
				if c.Path != resolved && c.To != resolved {
					continue
				}
				if opts.Merge {
					c.Session = h.Session.Name()
				}
				f.Changes = append(f.Changes, c)
				f.Totals.add(c)
			}
		}
		if f == nil {
			continue
		}
		cl.Totals = f.Totals
		rep.Totals.merge(cl.Totals)
		rep.Changelogs = append(rep.Changelogs, cl)
	}
	if len(rep.Changelogs) == 0 {
		return rep, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return rep, nil
}

// groups splits the histories into one group each, or one for all.
func groups(hs []*History, merge bool) [][]*History {
	if merge {
		return [][]*History{hs}
	}
	out := make([][]*History, len(hs))
	for i, h := range hs {
		out[i] = []*History{h}
	}
	return out
}

// mergedPath is a path in a merged report: as its session names it when
// every session has the same working directory, else absolute, so that
// two projects' README.md stay apart.
func mergedPath(group []*History, h *History, p string) string {
	if p == "" || path.IsAbs(p) || h.Session.Cwd == "" {
		return p
	}
	for _, o := range group {
		if o.Session.Cwd != h.Session.Cwd {
			return path.Join(h.Session.Cwd, p)
		}
	}
	return p
}

// Resolve finds the file a user names in the history: the path as the
// session names it (relative to its working directory, or absolute), or
// the end of exactly one such path (store.go for internal/store/store.go).
func (h *History) Resolve(name string) (string, error) {
	want := tools.NormPath(name, "", h.Session.Cwd)
	seen := map[string]bool{}
	var suffixed []string
	suffix := "/" + strings.TrimPrefix(path.Clean(name), "./")
	for _, c := range h.Changes {
		for _, p := range []string{c.Path, c.To} {
			switch {
			case p == "" || seen[p]:
			case p == want:
				return p, nil
			case strings.HasSuffix(p, suffix):
				suffixed = append(suffixed, p)
			}
			seen[p] = true
		}
	}
	switch len(suffixed) {
	case 0:
		return "", fmt.Errorf("%s: no read, edit or write of %s", h.Session.Source, name)
	case 1:
		return suffixed[0], nil
	}
	sort.Strings(suffixed)
	return "", fmt.Errorf("%s: %s names %d files (%s): give more of its path", h.Session.Source, name, len(suffixed), strings.Join(suffixed, ", "))
}

// PathsOf lists the files a call reads, edits or writes, in order.
func (h *History) PathsOf(callID string) []string {
	var out []string
	for _, c := range h.Changes {
		if c.CallID == callID {
			out = append(out, c.Path)
		}
	}
	return out
}
