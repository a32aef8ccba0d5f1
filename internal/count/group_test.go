package count

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// inUTC runs the test with the local time zone set to UTC, so that days do
// not depend on the machine's zone.
func inUTC(t *testing.T) {
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
}

func TestParseBy(t *testing.T) {
	for _, c := range []struct {
		in   string
		want By
		ok   bool
	}{{"project", ByProject, true}, {" Day ", ByDay, true}, {"MODEL", ByModel, true}, {"kind", ByKind, true}, {"role", "", false}, {"", "", false}} {
		got, err := ParseBy(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseBy(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestWindow(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	jan, feb := at("2026-01-01T00:00:00Z"), at("2026-02-01T00:00:00Z")
	for _, c := range []struct {
		w    Window
		t    time.Time
		want bool
	}{
		{Window{}, time.Time{}, true}, // no bound: everything, timestamps or not
		{Window{}, jan, true},
		{Window{Since: jan}, time.Time{}, false}, // a bound: a message without a time is out
		{Window{Since: jan}, jan, true},          // since is inclusive
		{Window{Since: jan}, jan.Add(-time.Second), false},
		{Window{Until: feb}, feb, false}, // until is exclusive
		{Window{Until: feb}, feb.Add(-time.Nanosecond), true},
		{Window{Since: jan, Until: feb}, at("2026-01-15T12:00:00Z"), true},
		{Window{Since: jan, Until: feb}, at("2026-02-15T12:00:00Z"), false},
	} {
		if got := c.w.Has(c.t); got != c.want {
			t.Errorf("%+v.Has(%v) = %v, want %v", c.w, c.t, got, c.want)
		}
	}
}

// session is a Claude Code session over two days and two models: a user
// turn, a read (read twice), a Bash call that fails, and a final answer.
const session = `{"type":"user","cwd":"/p","sessionId":"s1","timestamp":"2026-03-01T23:59:00Z","message":{"role":"user","content":"fix it"}}
{"type":"assistant","cwd":"/p","sessionId":"s1","timestamp":"2026-03-01T23:59:30Z","message":{"role":"assistant","model":"m-a","content":[{"type":"text","text":"I will read the file."},{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/p/a.go"}}]}}
{"type":"user","cwd":"/p","sessionId":"s1","timestamp":"2026-03-01T23:59:31Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r1","content":"package a\n\nfunc A() int { return 1 }\n"}]}}
{"type":"assistant","cwd":"/p","sessionId":"s1","timestamp":"2026-03-02T00:00:10Z","message":{"role":"assistant","model":"m-b","content":[{"type":"tool_use","id":"r2","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","cwd":"/p","sessionId":"s1","timestamp":"2026-03-02T00:00:11Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r2","content":"package a\n\nfunc A() int { return 1 }\n"}]}}
{"type":"assistant","cwd":"/p","sessionId":"s1","timestamp":"2026-03-02T00:01:00Z","message":{"role":"assistant","model":"m-b","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"go test ./..."}}]}}
{"type":"user","cwd":"/p","sessionId":"s1","timestamp":"2026-03-02T00:01:09Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"--- FAIL: TestA\nFAIL","is_error":true}]}}
{"type":"assistant","cwd":"/p","sessionId":"s1","timestamp":"2026-03-02T00:02:00Z","message":{"role":"assistant","model":"m-b","content":[{"type":"text","text":"Done."}]}}
`

// TestGroupTokens: the groups of one session by every grouping, against
// the numbers counted by hand from the session's pieces.
func TestGroupTokens(t *testing.T) {
	inUTC(t)
	approx, _ := tokens.New(tokens.Approx)
	tr := transcripttest.Parse(t, []byte(session))
	n := func(s string) int { return approx.Count(s) }
	var (
		user    = n("fix it")
		say     = n("I will read the file.")
		done    = n("Done.")
		read1   = n(`{"file_path":"/p/a.go"}`)
		read2   = n(`{"file_path":"a.go"}`)
		bash    = n(`{"command":"go test ./..."}`)
		content = n("package a\n\nfunc A() int { return 1 }\n")
		fail    = n("--- FAIL: TestA\nFAIL")
		total   = user + say + done + read1 + read2 + bash + 2*content + fail
	)
	type row struct {
		key                         string
		tokens, output, calls, errs int
		reread                      int
	}
	for _, c := range []struct {
		by   By
		w    Window
		want []row
	}{
		{ByProject, Window{}, []row{{"/p", total, 2*content + fail, 3, 1, content}}},
		{BySession, Window{}, []row{{"s1", total, 2*content + fail, 3, 1, content}}},
		{ByFile, Window{}, []row{{"s.jsonl", total, 2*content + fail, 3, 1, content}}},
		{ByDay, Window{}, []row{ // most tokens first
			{"2026-03-02", read2 + content + bash + fail + done, content + fail, 2, 1, content},
			{"2026-03-01", user + say + read1 + content, content, 1, 0, 0},
		}},
		{ByModel, Window{}, []row{ // the user's turn before the first model goes to it
			{"m-b", read2 + content + bash + fail + done, content + fail, 2, 1, content},
			{"m-a", user + say + read1 + content, content, 1, 0, 0},
		}},
		{ByTool, Window{}, []row{
			{"Read", read1 + read2 + 2*content, 2 * content, 2, 0, content},
			{"Bash", bash + fail, fail, 1, 1, 0},
			{NoTool, user + say + done, 0, 0, 0, 0},
		}},
		{ByKind, Window{}, []row{
			{"read", read1 + read2 + 2*content, 2 * content, 2, 0, content},
			{"shell", bash + fail, fail, 1, 1, 0},
			{NoTool, user + say + done, 0, 0, 0, 0},
		}},
		{ByDay, Window{Since: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}, []row{
			{"2026-03-02", read2 + content + bash + fail + done, content + fail, 2, 1, content},
		}},
		{ByProject, Window{Until: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}, []row{
			{"/p", user + say + read1 + content, content, 1, 0, 0},
		}},
	} {
		g := NewGrouped(approx.Name(), c.by, c.w)
		g.Add(GroupTokens(tr, approx, c.by, c.w, "s.jsonl"))
		g.Finish()
		sum := 0
		for _, r := range c.want {
			sum += r.tokens
		}
		if len(g.Groups) != len(c.want) {
			t.Errorf("by %s %+v: %d groups %+v, want %d", c.by, c.w, len(g.Groups), g.Groups, len(c.want))
			continue
		}
		for i, w := range c.want {
			x := g.Groups[i]
			got := row{x.Key, x.Tokens, x.ToolOutputTokens, x.ToolCalls, x.Errors, x.RereadTokens}
			if got != w {
				t.Errorf("by %s %+v: group %d = %+v, want %+v", c.by, c.w, i, got, w)
			}
			if x.Sessions != 1 {
				t.Errorf("by %s: group %s has %d sessions, want 1", c.by, x.Key, x.Sessions)
			}
		}
		if g.Total.Tokens != sum || g.Sessions != 1 || g.Skipped != 0 {
			t.Errorf("by %s %+v: total %d tokens, %d sessions, %d skipped; want %d, 1, 0", c.by, c.w, g.Total.Tokens, g.Sessions, g.Skipped, sum)
		}
	}
}

// TestGroupWindowSkips: a transcript with nothing in the window, or
// without timestamps when the window has a bound, is skipped, not counted.
func TestGroupWindowSkips(t *testing.T) {
	approx, _ := tokens.New(tokens.Approx)
	timed := transcripttest.Parse(t, []byte(session))
	untimed := transcripttest.Parse(t, []byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]`))
	later := Window{Since: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	any := Window{Since: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := NewGrouped(approx.Name(), ByProject, later)
	g.Add(GroupTokens(timed, approx, ByProject, later, "a"))
	g.Add(GroupTokens(untimed, approx, ByProject, later, "b"))
	g.Finish()
	if g.Sessions != 0 || g.Skipped != 2 || len(g.Groups) != 0 || g.Total.Tokens != 0 {
		t.Errorf("later: %d sessions, %d skipped, %d groups, %d tokens; want 0, 2, 0, 0", g.Sessions, g.Skipped, len(g.Groups), g.Total.Tokens)
	}
	g = NewGrouped(approx.Name(), ByProject, any)
	g.Add(GroupTokens(timed, approx, ByProject, any, "a"))
	g.Add(GroupTokens(untimed, approx, ByProject, any, "b"))
	g.Finish()
	if g.Sessions != 1 || g.Skipped != 1 {
		t.Errorf("since 2000: %d sessions, %d skipped; want 1, 1", g.Sessions, g.Skipped)
	}
}

// TestGroupsAddUp: on every fixture and corpus file, and by every
// grouping, the groups add up to what ctx-count reports for the same
// files: tokens, tool output, calls, failures, re-reads and dedupe's
// savings; and a file's every session is counted once in the total.
func TestGroupsAddUp(t *testing.T) {
	ctr := counter(t)
	files := testutil.FixturesAndCorpus(t)
	var reports []Report
	trs := make([]*transcript.Transcript, len(files))
	for i, path := range files {
		trs[i] = transcripttest.Load(t, path)
		reports = append(reports, Count(trs[i], ctr, 0))
	}
	want := Merge(reports, 0)
	reread := 0
	for _, f := range want.FilesRead {
		reread += f.RereadTokens
	}
	for _, by := range Bys {
		g := NewGrouped(ctr.Name(), by, Window{})
		for i, tr := range trs {
			g.Add(GroupTokens(tr, ctr, by, Window{}, files[i]))
		}
		g.Finish()
		sum := Group{}
		for _, x := range g.Groups {
			sum.Tokens += x.Tokens
			sum.ToolOutputTokens += x.ToolOutputTokens
			sum.ToolCalls += x.ToolCalls
			sum.Errors += x.Errors
			sum.RereadTokens += x.RereadTokens
			sum.DedupeTokens += x.DedupeTokens
			if x.Sessions < 1 || x.Sessions > len(files) {
				t.Errorf("by %s: group %q has %d sessions", by, x.Key, x.Sessions)
			}
		}
		for _, c := range []struct {
			what      string
			got, want int
		}{
			{"tokens", sum.Tokens, want.Tokens},
			{"total tokens", g.Total.Tokens, want.Tokens},
			{"tool output", sum.ToolOutputTokens, want.ToolOutputTokens},
			{"calls", sum.ToolCalls, want.ToolCalls},
			{"errors", sum.Errors, want.Errors},
			{"re-read", sum.RereadTokens, reread},
			{"dedupe", sum.DedupeTokens, want.DedupeTokens},
			{"sessions", g.Sessions, len(files)},
		} {
			if c.got != c.want {
				t.Errorf("by %s: %s %d, want %d", by, c.what, c.got, c.want)
			}
		}
	}
}

// TestPartialOutlivesInput: a transcript's groups do not keep its bytes
// alive, so that a run over thousands of files holds one file's bytes per
// job, not every file's.
func TestPartialOutlivesInput(t *testing.T) {
	ctr := counter(t)
	for _, path := range testutil.FixturesAndCorpus(t) {
		for _, by := range Bys {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			bytes := weak.Make(&data[0])
			p := GroupTokens(transcripttest.Parse(t, data), ctr, by, Window{}, path)
			data = nil
			runtime.GC()
			if bytes.Value() != nil {
				t.Errorf("%s, by %s: the groups keep the transcript's bytes", path, by)
			}
			runtime.KeepAlive(p)
		}
	}
}

// TestGroupedGolden pins the text and JSON of ctx-count --by over the
// fixtures, for every grouping.
func TestGroupedGolden(t *testing.T) {
	inUTC(t)
	ctr := counter(t)
	files := testutil.Fixtures(t)
	for _, by := range Bys {
		t.Run(string(by), func(t *testing.T) {
			g := NewGrouped(ctr.Name(), by, Window{})
			for _, path := range files {
				g.Add(GroupTokens(transcripttest.Load(t, path), ctr, by, Window{}, filepath.Base(path)))
			}
			g.Finish()
			var text bytes.Buffer
			if err := g.WriteText(&text, 4, false); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "by", string(by)+".txt"), text.Bytes())
			js, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "by", string(by)+".json"), append(js, '\n'))
			if !strings.Contains(text.String(), "total") {
				t.Errorf("no total row:\n%s", text.String())
			}
		})
	}
}
