package summarize

import (
	"github.com/ctxkit/ctxkit/internal/lazyre"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

const (
	gitHead  = 300 // the first characters kept of a diff, log or show
	maxPaths = 30  // paths a summary names of a group (a status's, a diff's, an output's), then how many more
)

// gitSubcommand tells what a git call ran: status, diff, log or show, as
// internal/tools read it from the call, else from the output.
func gitSubcommand(c *transcript.Call, body string) string {
	switch c.Args.Subcommand {
	case "status", "diff", "log", "show":
		return c.Args.Subcommand
	}
	if strings.HasPrefix(body, "On branch ") || strings.HasPrefix(body, "HEAD detached") || strings.HasPrefix(body, "## ") {
		return "status"
	}
	return "log"
}

// status is what git status says.
type status struct {
	branch string
	// The paths by group, each with its one-letter state (M, A, D, R, U, ?).
	staged, unstaged, untracked, conflicts []string
}

// The long format's section headers and the states of its lines.
var (
	longSections = map[string]string{
		"Changes to be committed:":       "staged",
		"Changes not staged for commit:": "unstaged",
		"Untracked files:":               "untracked",
		"Unmerged paths:":                "conflicts",
	}
	longStates = map[string]string{
		"modified": "M", "new file": "A", "deleted": "D", "renamed": "R", "copied": "C", "typechange": "T",
		"both modified": "U", "both added": "U", "both deleted": "U", "added by us": "U", "added by them": "U",
		"deleted by us": "U", "deleted by them": "U",
	}
)

// parseStatus reads git status in the long format, the short and
// porcelain v1 formats (XY PATH, with -b's "## branch"), and porcelain v2
// ("1 XY …", "2 XY …", "u XY …", "? path", "# branch.head").
func parseStatus(body string) status {
	var s status
	section := ""
	eachLine(body, func(_ int, line string) bool {
		switch {
		case strings.HasPrefix(line, "On branch "):
			s.branch = strings.TrimPrefix(line, "On branch ")
		case strings.HasPrefix(line, "## "):
			s.branch, _, _ = strings.Cut(strings.TrimPrefix(line, "## "), "...")
		case strings.HasPrefix(line, "# branch.head "):
			s.branch = strings.TrimPrefix(line, "# branch.head ")
		case longSections[line] != "":
			section = longSections[line]
		case strings.HasPrefix(line, "\t") && section != "":
			s.addLong(section, strings.TrimPrefix(line, "\t"))
		case len(line) > 2 && line[1] == ' ' && (line[0] == '1' || line[0] == '2' || line[0] == 'u'):
			s.addV2(line)
		case strings.HasPrefix(line, "? "):
			s.untracked = append(s.untracked, strings.TrimPrefix(line, "? "))
		case len(line) > 3 && line[2] == ' ' && isStatusCode(line[0]) && isStatusCode(line[1]):
			s.addShort(line[0], line[1], line[3:])
		}
		return true
	})
	return s
}

func isStatusCode(c byte) bool { return strings.IndexByte(" MTADRCU?!", c) >= 0 }

// addLong adds a line of the long format: "modified:   a.go" or, for
// untracked files, the path alone.
func (s *status) addLong(section, line string) {
	state, p := "?", line
	if k, v, ok := strings.Cut(line, ":"); ok && longStates[k] != "" {
		state, p = longStates[k], strings.TrimSpace(v)
	}
	entry := state + " " + p
	switch section {
	case "staged":
		s.staged = append(s.staged, entry)
	case "unstaged":
		s.unstaged = append(s.unstaged, entry)
	case "untracked":
		s.untracked = append(s.untracked, p)
	case "conflicts":
		s.conflicts = append(s.conflicts, p)
	}
}

// addShort adds a line of the short format: X is the index's state, Y the
// work tree's.
func (s *status) addShort(x, y byte, p string) {
	switch {
	case x == '?':
		s.untracked = append(s.untracked, p)
	case x == '!':
	case x == 'U' || y == 'U' || x == 'A' && y == 'A' || x == 'D' && y == 'D':
		s.conflicts = append(s.conflicts, p)
	default:
		if x != ' ' {
			s.staged = append(s.staged, string(x)+" "+p)
		}
		if y != ' ' {
			s.unstaged = append(s.unstaged, string(y)+" "+p)
		}
	}
}

// addV2 adds a line of porcelain v2: "1 XY sub mH mI mW hH hI path",
// "2 XY sub mH mI mW hH hI Xscore path\torig", "u XY sub m1 m2 m3 mW h1 h2 h3 path".
func (s *status) addV2(line string) {
	fields := map[byte]int{'1': 8, '2': 9, 'u': 10}[line[0]]
	parts := strings.SplitN(line, " ", fields+1)
	if len(parts) <= fields || len(parts[1]) != 2 {
		return
	}
	p, _, _ := strings.Cut(parts[fields], "\t")
	if line[0] == 'u' {
		s.conflicts = append(s.conflicts, p)
		return
	}
	x, y := parts[1][0], parts[1][1]
	if x == '.' {
		x = ' '
	}
	if y == '.' {
		y = ' '
	}
	if isStatusCode(x) && isStatusCode(y) {
		s.addShort(x, y, p)
	}
}

// gitStatus gives the branch, the counts by group and the paths.
func gitStatus(o output) ([]string, string, bool) {
	s := parseStatus(o.body)
	var counts []string
	var detail strings.Builder
	for _, g := range []struct {
		name  string
		paths []string
	}{{"staged", s.staged}, {"modified", s.unstaged}, {"untracked", s.untracked}, {"conflicted", s.conflicts}} {
		if len(g.paths) == 0 {
			continue
		}
		counts = append(counts, textfmt.Int(len(g.paths))+" "+g.name)
		detail.WriteString("\n" + g.name + ": " + joinPaths(g.paths, maxPaths))
		for _, p := range g.paths[:min(len(g.paths), maxPaths)] {
			if g.name == "staged" || g.name == "modified" {
				p = p[2:] // without the state: "M a.go"
			}
			o.must.paths = append(o.must.paths, p)
		}
	}
	facts := []string{}
	if s.branch != "" {
		facts = append(facts, "on branch "+s.branch)
	}
	if len(counts) == 0 {
		if !strings.Contains(o.body, "nothing to commit") && s.branch == "" {
			return other(o)
		}
		counts = []string{"clean"}
	}
	facts = append(facts, strings.Join(counts, ", "))
	o.must.facts = append(o.must.facts, facts...)
	return facts, detail.String(), true
}

// joinPaths lists paths, at most max of them.
func joinPaths(paths []string, max int) string {
	if len(paths) <= max {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:max], ", ") + ", … (" + textfmt.Int(len(paths)-max) + " more)"
}

// change is one file of a diff.
type change struct {
	path           string
	added, removed int
	binary         bool
}

// history is what git diff, log and show printed.
type history struct {
	commits int
	files   []change
}

var (
	fullCommit  = lazyre.New(`^commit [0-9a-f]{7,64}\b`)
	shortCommit = lazyre.New(`^[*|\\/ ]*[0-9a-f]{7,40} \S`)
	statLine    = lazyre.New(`^ (\S.*?)\s+\|\s+(?:(\d+) ?([+-]*)|Bin\b)`)
)

// parseHistory reads a diff (git's patch format, or --stat), a log (full,
// --oneline, --graph) or a show: the commits and the files changed with
// their added and removed lines.
func parseHistory(body string) history {
	var h history
	var cur *change
	inPatch := false
	eachLine(body, func(_ int, line string) bool {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			h.files = append(h.files, change{path: diffPath(line)})
			cur, inPatch = &h.files[len(h.files)-1], true
		case fullCommit.MatchString(line):
			h.commits++
			inPatch = false
		case cur != nil && inPatch && strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++ "):
			cur.added++
		case cur != nil && inPatch && strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "--- "):
			cur.removed++
		case cur != nil && inPatch && strings.HasPrefix(line, "Binary files "):
			cur.binary = true
		case !inPatch && shortCommit.MatchString(line):
			h.commits++
		case !inPatch && strings.Contains(line, "|"):
			if m := statLine.FindStringSubmatch(line); m != nil {
				c := change{path: strings.TrimSpace(m[1]), binary: m[2] == ""}
				if n := atoi(m[2]); n > 0 {
					// --stat scales its bar; the count is exact, the bar's
					// share of + and - gives the split.
					plus := strings.Count(m[3], "+")
					if bar := len(m[3]); bar > 0 {
						c.added = n * plus / bar
						c.removed = n - c.added
					}
				}
				h.files = append(h.files, c)
			}
		}
		return true
	})
	return h
}

// diffPath is the path of "diff --git a/P b/P" (the new one).
func diffPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// gitHistory gives the commits, the files changed with their +/- counts,
// and the first characters of the output.
func gitHistory(o output) ([]string, string, bool) {
	h := parseHistory(o.body)
	var facts []string
	if h.commits > 0 {
		facts = append(facts, textfmt.Plural(h.commits, "commit", "commits"))
	}
	detail := ""
	if len(h.files) > 0 {
		added, removed := 0, 0
		names := make([]string, len(h.files))
		for i, c := range h.files {
			added += c.added
			removed += c.removed
			names[i] = c.path + " " + counts(c)
		}
		facts = append(facts, textfmt.Plural(len(h.files), "file", "files")+" changed, +"+textfmt.Int(added)+" -"+textfmt.Int(removed))
		detail = "\n" + joinPaths(names, maxPaths)
		for _, c := range h.files[:min(len(h.files), maxPaths)] {
			o.must.paths = append(o.must.paths, c.path)
		}
	}
	o.must.facts = append(o.must.facts, facts...)
	facts = append(facts, size(o.body), "the first "+textfmt.Int(gitHead)+" chars shown")
	return facts, detail + firstChars(o.body, gitHead), true
}

func counts(c change) string {
	if c.binary && c.added+c.removed == 0 {
		return "(binary)"
	}
	return "+" + textfmt.Int(c.added) + " -" + textfmt.Int(c.removed)
}
