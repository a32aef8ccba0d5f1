package playbook

import (
	"errors"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// How strongly the calls of a pattern are tied together. A pattern's
// confidence is its strength less decay for each call between the two
// calls that tie it (the first and the second, or the failure and the
// check after it): a pattern spread over many calls may be chance.
const (
	// exact: the second call's target is named by the first (the same
	// file; a file the first call's output lists, a line its output shows).
	exact = 0.95
	// strong: the second call's target is under the first's directory or
	// named by its command; the first is the last of its kind before it.
	strong = 0.85
	// weak: only the order of the calls ties them (a build, then tests).
	weak  = 0.80
	decay = 0.02
)

// ReflectOptions bound what the reflector takes for a pattern.
type ReflectOptions struct {
	// MinConfidence: patterns less sure than this are left out (the
	// design's 0.7).
	MinConfidence float64
	// Window is the most calls between the two calls that tie a pattern.
	Window int
}

// DefaultReflect are the design's bounds.
func DefaultReflect() ReflectOptions { return ReflectOptions{MinConfidence: 0.7, Window: 10} }

// Reflector reads the patterns of a transcript's tool calls (Reflect).
type Reflector struct {
	opts  ReflectOptions
	loops *loops.Detector // ctx-loops' definition of a loop, with its defaults
}

// NewReflector checks the options once.
func NewReflector(o ReflectOptions) (*Reflector, error) {
	switch {
	case o.MinConfidence < 0 || o.MinConfidence > 1 || math.IsNaN(o.MinConfidence):
		return nil, errors.New("the minimum confidence is from 0 to 1")
	case o.Window < 0:
		return nil, errors.New("the window is 0 calls or more")
	}
	d, err := loops.New(loops.Options{Min: loops.DefaultMin, Cycles: loops.DefaultCycles})
	if err != nil {
		return nil, err
	}
	return &Reflector{opts: o, loops: d}, nil
}

// inLoops returns the ids of the calls of t that are part of an error
// loop, as ctx-loops finds them.
func (r *Reflector) inLoops(t *transcript.Transcript) map[string]bool {
	steps := loops.Steps(t, t.Cwd)
	in := map[string]bool{}
	for _, l := range r.loops.Find(steps) {
		for _, i := range l.Steps {
			in[steps[i].CallID] = true
		}
	}
	return in
}

// Source names the transcript that evidence cites.
type Source struct {
	File string
	// Line is the transcript's line in File, for a JSONL of whole
	// transcripts; 0 when File is one transcript.
	Line int
	// Session is the session's id; "" takes the transcript's own.
	Session string
}

// own is the source with the transcript's session id where it names none,
// copied: evidence outlives the transcript, whose bytes the transcript's
// strings are views of.
func (s Source) own(t *transcript.Transcript) Source {
	if s.Session == "" {
		s.Session = t.SessionID
	}
	s.File, s.Session = strings.Clone(s.File), strings.Clone(s.Session)
	return s
}

// rule is one pattern the reflector knows, with the strategy it follows.
type rule struct {
	name, category, content string
	find                    func(s *session) []occurrence
}

// Rules are the patterns, in the design's categories. Each takes at least
// two calls; docs/playbook.md has the table.
var rules = []rule{
	{"list-before-read", FileOperations, "List the directory before reading a file in it, to confirm the file is there and its path is right.", listBeforeRead},
	{"read-before-edit", FileOperations, "Read a file before editing it, so that the edit matches its current content.", readBeforeEdit},
	{"related-reads", FileOperations, "Read the neighbouring files of the same directory before changing a file, to follow their conventions.", relatedReads},
	{"search-before-read", CodeNavigation, "Search for the code first, then read the files the search found.", searchBeforeRead},
	{"grep-then-read", CodeNavigation, "Search with line numbers, then read only the lines around a match instead of the whole file.", grepThenRead},
	{"test-after-change", Testing, "Run the tests after changing code, to confirm the change works.", testAfterChange},
	{"read-test-before-run", Testing, "Read a test file before running it, to know what it checks.", readTestBeforeRun},
	{"install-before-run", Shell, "Install the dependencies before running the program that needs them.", installBeforeRun},
	{"build-before-test", Shell, "Build before running the tests, so that compile errors show on their own.", buildBeforeTest},
	{"git-status-before-change", Shell, "Check git status before changing the repository (add, commit, checkout), to see what the change takes in.", gitStatusBeforeChange},
	{"list-after-missing", ErrorHandling, "After a file-not-found error, list the directory to find the right path before trying again.", listAfterMissing},
	{"inspect-after-failure", ErrorHandling, "After a command fails, check the environment (versions, installed packages, PATH) before retrying it.", inspectAfterFailure},
}

// RuleNames lists the rules, in order.
func RuleNames() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}

// occurrence is one match of a rule.
type occurrence struct {
	acts     []int // the calls of the pattern, as indexes into session.acts, in order
	strength float64
	gap      int // calls between the two that tie it
	judge    int // the call whose outcome tags it; -1: none, neutral
}

// act is a call that did something and has a result: the unit of the
// patterns. A continuation (Codex's write_stdin) is part of the call it
// continues, not an act of its own.
type act struct {
	c        *transcript.Call
	file     string   // the path it is about, normalized: a read's file, a listing's directory
	files    []string // an edit's or write's files, normalized
	failed   bool
	purposes []tools.Purpose
	text     *string // the output, decoded on first use
}

func (a *act) is(p tools.Purpose) bool { return slices.Contains(a.purposes, p) }

func (a *act) output() string {
	if a.text == nil {
		s := outcome.Body(a.c.Result.Text())
		a.text = &s
	}
	return *a.text
}

func (a *act) changes() bool {
	return !a.failed && (a.c.Kind == tools.Edit || a.c.Kind == tools.Write)
}

// session is a transcript as the rules see it.
type session struct {
	acts   []*act
	window int
}

func newSession(t *transcript.Transcript, window int) *session {
	s := &session{window: window}
	for _, c := range t.Calls {
		if c.Result == nil || c.Continues != nil {
			continue
		}
		a := &act{c: c, failed: c.Result.Failed()}
		switch c.Kind {
		case tools.Read, tools.Search:
			a.file = c.Args.File(t.Cwd)
		case tools.List:
			a.file = c.Args.File(t.Cwd)
			if a.file == "" {
				a.file = "."
			}
		case tools.Edit, tools.Write:
			for _, p := range c.Args.Paths {
				a.files = append(a.files, tools.NormPath(p, c.Args.Dir, t.Cwd))
			}
		}
		if c.Args.Command != "" {
			a.purposes = tools.Purposes(c.Args.Command)
		}
		s.acts = append(s.acts, a)
	}
	return s
}

// back walks the acts before i within the window, nearest first, until f
// returns false.
func (s *session) back(i int, f func(j int, b *act) bool) {
	for j := i - 1; j >= 0 && i-j-1 <= s.window; j-- {
		if !f(j, s.acts[j]) {
			return
		}
	}
}

// pair is an occurrence of two acts.
func pair(j, i int, strength float64) occurrence {
	return occurrence{acts: []int{j, i}, strength: strength, gap: i - j - 1, judge: i}
}

// Reflect returns what the rules find in a transcript: one observation for
// each occurrence of a pattern at least MinConfidence sure, citing its
// calls, and tagged by how the call that closes it ended (helpful,
// harmful, or neutral when the transcript does not show it), or harmful
// when one of its calls is part of an error loop (internal/loops, as
// ctx-loops finds them). A transcript with fewer than two calls has none.
func (r *Reflector) Reflect(t *transcript.Transcript, src Source) []Observation {
	s := newSession(t, r.opts.Window)
	if len(s.acts) < 2 {
		return nil
	}
	src = src.own(t)
	looped := r.inLoops(t)
	var out []Observation
	for _, ru := range rules {
		for _, oc := range ru.find(s) {
			conf := math.Round((oc.strength-decay*float64(oc.gap))*100) / 100
			if conf < r.opts.MinConfidence {
				continue
			}
			ids := make([]string, len(oc.acts))
			for k, i := range oc.acts {
				// A copy: the observation outlives the transcript, whose
				// bytes the id is a view of.
				ids[k] = strings.Clone(s.acts[i].c.ID)
			}
			if len(ids) < 2 || slices.Contains(ids, "") {
				continue // evidence must name its calls
			}
			tag := Neutral
			if oc.judge >= 0 {
				tag = Helpful
				if s.acts[oc.judge].failed {
					tag = Harmful
				}
			}
			if slices.ContainsFunc(ids, func(id string) bool { return looped[id] }) {
				tag = Harmful // the pattern is part of an error loop
			}
			out = append(out, Observation{Rule: ru.name, Category: ru.category, Content: ru.content, Confidence: conf,
				Evidence: Evidence{File: src.File, Line: src.Line, Session: src.Session, Calls: ids, Tag: tag}})
		}
	}
	return out
}

// under reports whether file lies in dir (or below it); "." is the
// session's directory, which holds every relative path.
func under(file, dir string) bool {
	switch {
	case dir == "" || file == "":
		return false
	case dir == ".":
		return !path.IsAbs(file)
	case dir == "/":
		return path.IsAbs(file)
	}
	return strings.HasPrefix(file, strings.TrimSuffix(dir, "/")+"/")
}

// names reports whether an output names a file: its path, or its base name
// when that is long enough not to be a chance match.
func names(out, file string) bool {
	if file == "" {
		return false
	}
	if strings.Contains(out, file) {
		return true
	}
	base := path.Base(file)
	return len(base) >= 4 && strings.Contains(out, base)
}

// firstReads calls f with each act that first reads a file.
func (s *session) firstReads(f func(i int, a *act)) {
	seen := map[string]bool{}
	for i, a := range s.acts {
		if a.c.Kind != tools.Read || a.file == "" || seen[a.file] {
			continue
		}
		seen[a.file] = true
		f(i, a)
	}
}

// listBeforeRead: a listing, then the first read of a file it lists (exact)
// or of a file right in its directory (strong).
func listBeforeRead(s *session) []occurrence {
	var out []occurrence
	s.firstReads(func(i int, a *act) {
		s.back(i, func(j int, b *act) bool {
			if b.c.Kind != tools.List || b.failed {
				return true
			}
			switch {
			case under(a.file, b.file) && names(b.output(), a.file):
				out = append(out, pair(j, i, exact))
			case path.Dir(a.file) == b.file:
				out = append(out, pair(j, i, strong))
			default:
				return true
			}
			return false
		})
	})
	return out
}

// searchBeforeRead: a search, then the first read of a file its output
// names (exact) or of a file under the directory it searched (strong).
func searchBeforeRead(s *session) []occurrence {
	var out []occurrence
	s.firstReads(func(i int, a *act) {
		s.back(i, func(j int, b *act) bool {
			if b.c.Kind != tools.Search || b.failed {
				return true
			}
			switch {
			case names(b.output(), a.file):
				out = append(out, pair(j, i, exact))
			case b.file != "" && b.file != "." && under(a.file, b.file):
				out = append(out, pair(j, i, strong))
			default:
				return true
			}
			return false
		})
	})
	return out
}

// grepThenRead: a search whose output shows a line of a file, then a read
// of a range of that file holding the line.
func grepThenRead(s *session) []occurrence {
	var out []occurrence
	for i, a := range s.acts {
		r := a.c.Args.Range
		if a.c.Kind != tools.Read || a.file == "" || r.Whole() || r.Last > 0 {
			continue
		}
		s.back(i, func(j int, b *act) bool {
			if b.c.Kind != tools.Search || b.failed || !hitInRange(b, a.file, r) {
				return true
			}
			out = append(out, pair(j, i, exact))
			return false
		})
	}
	return out
}

// hitInRange reports whether a search's output shows a line of file inside
// r: "path:N:" lines, or "N:" lines when the search looked in that one file.
func hitInRange(b *act, file string, r tools.Range) bool {
	oneFile := b.file != "" && (b.file == file || strings.HasSuffix(file, "/"+b.file) || strings.HasSuffix(b.file, "/"+file))
	for line := range strings.Lines(b.output()) {
		name, n, ok := hitLine(line)
		switch {
		case !ok:
			continue
		case name == "" && !oneFile:
			continue
		case name != "" && name != file && !strings.HasSuffix(name, "/"+file) && !strings.HasSuffix(file, "/"+strings.TrimPrefix(name, "./")):
			continue
		}
		if r.Contains(tools.Range{Start: n, End: n}) {
			return true
		}
	}
	return false
}

// hitLine reads grep -n's "path:N:text" or "N:text" (and "N-text", a
// context line).
func hitLine(line string) (name string, n int, ok bool) {
	if n, ok := leadingNumber(line); ok {
		return "", n, true
	}
	name, rest, found := strings.Cut(line, ":")
	if !found || name == "" {
		return "", 0, false
	}
	if n, ok = leadingNumber(rest); !ok {
		return "", 0, false
	}
	return name, n, true
}

// leadingNumber reads the line number that starts s, followed by ':' or '-'.
func leadingNumber(s string) (int, bool) {
	n, i := 0, 0
	for ; i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if i == 0 || i == len(s) || s[i] != ':' && s[i] != '-' {
		return 0, false
	}
	return n, true
}

// readBeforeEdit: a read of a file, then an edit of it with no other
// change of it in between.
func readBeforeEdit(s *session) []occurrence {
	var out []occurrence
	for i, a := range s.acts {
		if a.c.Kind != tools.Edit {
			continue
		}
	files:
		for _, f := range a.files {
			found := false
			s.back(i, func(j int, b *act) bool {
				switch {
				case b.c.Kind == tools.Read && b.file == f && !b.failed:
					out = append(out, pair(j, i, exact))
					found = true
					return false
				case (b.c.Kind == tools.Edit || b.c.Kind == tools.Write) && slices.Contains(b.files, f):
					return false // this edit follows an edit, not a read
				}
				return true
			})
			if found {
				break files
			}
		}
	}
	return out
}

// relatedReads: reads of other files of a directory, then the first change
// of a file in it. The pattern cites up to three of those reads.
func relatedReads(s *session) []occurrence {
	var out []occurrence
	changed := map[string]bool{}
	for i, a := range s.acts {
		if a.c.Kind != tools.Edit && a.c.Kind != tools.Write || len(a.files) == 0 {
			continue
		}
		f := a.files[0]
		if changed[f] {
			continue
		}
		changed[f] = true
		var reads []int
		seen := map[string]bool{}
		s.back(i, func(j int, b *act) bool {
			if b.c.Kind == tools.Read && !b.failed && b.file != f && !seen[b.file] && path.Dir(b.file) == path.Dir(f) {
				seen[b.file] = true
				reads = append([]int{j}, reads...)
			}
			return len(reads) < 3
		})
		if len(reads) > 0 {
			last := reads[len(reads)-1]
			out = append(out, occurrence{acts: append(reads, i), strength: strong, gap: i - last - 1, judge: i})
		}
	}
	return out
}

// testAfterChange: changes, then a test run: the last change before each
// test run that follows one.
func testAfterChange(s *session) []occurrence {
	var out []occurrence
	last := -1
	for i, a := range s.acts {
		switch {
		case a.is(tools.Test):
			if last >= 0 && i-last-1 <= s.window {
				out = append(out, pair(last, i, strong))
			}
			last = -1
		case a.changes():
			last = i
		}
	}
	return out
}

// readTestBeforeRun: a read of a test file, then a test run whose command
// names it (exact) or its directory (strong).
func readTestBeforeRun(s *session) []occurrence {
	var out []occurrence
	for i, a := range s.acts {
		if !a.is(tools.Test) {
			continue
		}
		cmd := a.c.Args.Command
		s.back(i, func(j int, b *act) bool {
			if b.c.Kind != tools.Read || b.failed || !tools.IsTestFile(b.file) {
				return true
			}
			dir := path.Dir(b.file)
			switch {
			case strings.Contains(cmd, b.file) || strings.Contains(cmd, b.c.Args.Path) || strings.Contains(cmd, path.Base(b.file)):
				out = append(out, pair(j, i, exact))
			case dir != "." && dir != "/" && strings.Contains(cmd, dir):
				out = append(out, pair(j, i, strong))
			default:
				return true
			}
			return false
		})
	}
	return out
}

// installBeforeRun: an install, then the next command that runs something
// (not another install, not a look at the environment).
func installBeforeRun(s *session) []occurrence {
	var out []occurrence
	for j, b := range s.acts {
		if !b.is(tools.Install) || b.failed {
			continue
		}
		for i := j + 1; i < len(s.acts) && i-j-1 <= s.window; i++ {
			a := s.acts[i]
			if a.c.Kind != tools.Shell || a.c.Args.Command == "" {
				continue
			}
			if !a.is(tools.Install) && !a.is(tools.Inspect) {
				out = append(out, pair(j, i, weak))
			}
			break // another install: the pattern is that one's
		}
	}
	return out
}

// buildBeforeTest: a build, then a test run with no change in between.
func buildBeforeTest(s *session) []occurrence {
	var out []occurrence
	for i, a := range s.acts {
		if !a.is(tools.Test) {
			continue
		}
		s.back(i, func(j int, b *act) bool {
			switch {
			case b.is(tools.Build) && !b.failed:
				out = append(out, pair(j, i, weak))
				return false
			case b.changes() || b.is(tools.Test):
				return false
			}
			return true
		})
	}
	return out
}

// gitStatusBeforeChange: git status, then the first command that changes
// the repository.
func gitStatusBeforeChange(s *session) []occurrence {
	var out []occurrence
	for i, a := range s.acts {
		if !a.is(tools.GitChange) {
			continue
		}
		s.back(i, func(j int, b *act) bool {
			switch {
			case b.c.Kind == tools.Git && b.c.Args.Subcommand == "status" && !b.failed:
				out = append(out, pair(j, i, strong))
				return false
			case b.is(tools.GitChange):
				return false
			}
			return true
		})
	}
	return out
}

// afterFailure finds a check right after a failure (at most one call
// between) and the next call after the check that is not one (the retry),
// which tags the pattern; none leaves it neutral.
func (s *session) afterFailure(failure func(a *act) bool, check func(a *act) bool, strength float64) []occurrence {
	var out []occurrence
	for f, a := range s.acts {
		if !a.failed || !failure(a) {
			continue
		}
		for l := f + 1; l < len(s.acts) && l-f-1 <= 1; l++ {
			if !check(s.acts[l]) {
				continue
			}
			oc := occurrence{acts: []int{f, l}, strength: strength, gap: l - f - 1, judge: -1}
			for x := l + 1; x < len(s.acts) && x-l-1 <= s.window; x++ {
				if !check(s.acts[x]) {
					oc.acts, oc.judge = append(oc.acts, x), x
					break
				}
			}
			out = append(out, oc)
			break
		}
	}
	return out
}

// listAfterMissing: a call that failed because a path is not there, then a
// listing.
func listAfterMissing(s *session) []occurrence {
	return s.afterFailure(
		func(a *act) bool { return outcome.SaysMissing(a.c.Result.Text()) },
		func(a *act) bool { return a.c.Kind == tools.List && !a.failed },
		strong)
}

// inspectAfterFailure: a failed command, then a look at the environment
// (versions, packages, PATH).
func inspectAfterFailure(s *session) []occurrence {
	return s.afterFailure(
		func(a *act) bool { return a.c.Kind == tools.Shell && a.c.Args.Command != "" },
		func(a *act) bool { return a.is(tools.Inspect) && !a.failed },
		weak)
}
