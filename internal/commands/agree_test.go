package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/changelog"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/changelogcmd"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
	"github.com/ctxkit/ctxkit/internal/commands/loopscmd"
	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/sessionpage"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// TestReportsAgree runs ctx-count --json, ctx-loops --json and
// ctx-changelog --json, and builds the page of ctx-count --html, on every
// fixture, scenario and corpus file, and checks that they tell the same
// truth of the session: the calls and how many failed, were denied or
// were cancelled; the reads of each file; the edits and writes that
// changed a file, and how each that did not ended.
func TestReportsAgree(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	files := append(testutil.Fixtures(t), testutil.Scenarios(t)...)
	files = append(files, testutil.CorpusIfPresent(t)...)
	var seen ends
	for _, path := range files {
		t.Run(testutil.Name(path), func(t *testing.T) {
			var c count.Summary
			runJSON(t, countcmd.Command, &c, "--encoding", "approx", path)
			var l loops.Summary
			runJSON(t, loopscmd.Command, &l, path)
			var ch changelog.Report
			runJSON(t, changelogcmd.Command, &ch, "--include-failed", path)
			tr := transcripttest.Load(t, path)
			page := sessionpage.Build(tr, sessionpage.Options{Name: path, Counter: ctr})

			cr, lr := c.Files[0], l.Files[0]
			got := map[string]ends{
				"ctx-count":          {cr.ToolCalls, cr.Errors, cr.Denied, cr.Cancelled},
				"ctx-loops":          {lr.Calls, lr.Failed, lr.Denied, lr.Cancelled},
				"the page":           {page.Calls, page.Failed, page.Denied, page.Cancelled},
				"the timeline":       timelineEnds(page.Timeline),
				"the table of tools": toolEnds(cr.Tools, cr),
			}
			for name, e := range got {
				if e != got["ctx-count"] {
					t.Errorf("%s: %v; ctx-count: %v", name, e, got["ctx-count"])
				}
			}
			seen = seen.add(got["ctx-count"])
			agreeOnReads(t, changelog.Analyze(tr, path, changelog.Options{}), cr.FilesRead, page.Timeline)
			agreeOnChanges(t, ch, page.Timeline)
		})
	}
	if seen.failed == 0 || seen.denied == 0 || seen.cancelled == 0 {
		t.Errorf("the files hold %v: the test checks too little", seen)
	}
}

// ends are the calls, and how many failed, were denied, were cancelled.
type ends struct{ calls, failed, denied, cancelled int }

func (e ends) String() string {
	return fmt.Sprintf("%d calls, %d failed, %d denied, %d cancelled", e.calls, e.failed, e.denied, e.cancelled)
}

func (e ends) add(o ends) ends {
	return ends{e.calls + o.calls, e.failed + o.failed, e.denied + o.denied, e.cancelled + o.cancelled}
}

// timelineEnds counts the page's timeline of calls by their status.
func timelineEnds(tl []sessionpage.Call) ends {
	e := ends{calls: len(tl)}
	for _, c := range tl {
		switch c.Status {
		case "failed":
			e.failed++
		case "denied":
			e.denied++
		case "cancelled":
			e.cancelled++
		}
	}
	return e
}

// toolEnds sums ctx-count's table of tools: its calls and failures are
// the report's, and it has no denials of its own.
func toolEnds(ts []count.Tool, r count.Report) ends {
	e := ends{denied: r.Denied, cancelled: r.Cancelled}
	for _, x := range ts {
		e.calls += x.Calls
		e.failed += x.Errors
	}
	return e
}

// agreeOnReads checks the reads of each file: ctx-count's files read, the
// page's reads, and ctx-changelog's timeline of each file (what --file
// prints, made from one reading of the transcript).
func agreeOnReads(t *testing.T, h *changelog.History, fr []count.FileRead, tl []sessionpage.Call) {
	t.Helper()
	fromCount := map[string]int{}
	for _, f := range fr {
		fromCount[f.Path] = f.Reads
	}
	fromPage := map[string]int{}
	for _, c := range tl {
		if c.Path != "" {
			fromPage[c.Path]++
		}
	}
	if !maps.Equal(fromCount, fromPage) {
		t.Errorf("reads per file: ctx-count %v, the page %v", fromCount, fromPage)
	}
	for _, p := range slices.Sorted(maps.Keys(fromCount)) {
		timeline, err := changelog.NewTimeline([]*changelog.History{h}, p, changelog.ReportOptions{})
		if err != nil {
			t.Fatalf("ctx-changelog --file %s: %v", p, err)
		}
		if n := timeline.Totals.Reads; n != fromCount[p] {
			t.Errorf("reads of %s: ctx-changelog --file %d, ctx-count %d", p, n, fromCount[p])
		}
	}
}

// agreeOnChanges checks the edits and writes: every change that
// ctx-changelog lists ended as the page says its call ended, and every
// edit or write call of the page is in the changelog, made or not.
func agreeOnChanges(t *testing.T, rep changelog.Report, tl []sessionpage.Call) {
	t.Helper()
	status := map[string][]string{} // by call id: ids repeat in some transcripts
	for _, c := range tl {
		status[c.ID] = append(status[c.ID], c.Status)
	}
	inChangelog := map[string]bool{}
	cl := rep.Changelogs[0]
	files := map[string]bool{}
	changes := slices.Clone(cl.NotApplied)
	for _, f := range cl.Files {
		changes = append(changes, f.Changes...)
		if !f.Temporary {
			files[f.Path] = true
		}
	}
	for _, c := range changes {
		inChangelog[c.CallID] = true
		if !slices.Contains(status[c.CallID], c.End.String()) {
			t.Errorf("call %s: ctx-changelog says %v, the page %v", c.CallID, c.End, status[c.CallID])
		}
	}
	for _, c := range tl {
		if (c.Kind == tools.Edit || c.Kind == tools.Write) && !inChangelog[c.ID] {
			t.Errorf("call %s (%s, %s) is not in the changelog", c.ID, c.Tool, c.Status)
		}
	}
	if len(files) != cl.Totals.Files || cl.Totals.Files != rep.Totals.Files {
		t.Errorf("files changed: %d listed, totals %d and %d", len(files), cl.Totals.Files, rep.Totals.Files)
	}
}

// runJSON runs a command with --json on args and decodes what it prints.
func runJSON(t *testing.T, cmd cli.Command, v any, args ...string) {
	t.Helper()
	var out, errOut bytes.Buffer
	argv := append([]string{cmd.Name, "--json"}, args...)
	if code := cli.Run(cmd, argv, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(argv, " "), code, errOut.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
}
