package summarize

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestBudgetGuarantees runs budgets over every fixture and corpus file: the
// issue's 30,000 tokens, nine tenths and half of each history, and 1 token
// (which no history fits: every step is taken, with an archive too). Every invariant holds, and what a
// budget promises (checkBudget).
func TestBudgetGuarantees(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	fits := 0
	for _, path := range inputs(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		total := stats.Count(transcripttest.Parse(t, in), ctr).Tokens()
		for _, budget := range []int{30000, total * 9 / 10, total / 2, 1, -1} {
			archived := budget < 0 // every step taken, the markers citing handles
			if archived {
				budget = 1
			}
			if budget <= 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d/archived=%v", testutil.Name(path), budget, archived), func(t *testing.T) {
				opts := Options{Mode: ModeSummary, Budget: budget, KeepRecent: 3, Counter: ctr}
				if archived {
					opts.Handle = invariant.Handles
				}
				f, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				var rep Report
				out := invariant.Check(t, in, func(in []byte) ([]byte, error) {
					tr, err := transcript.Parse(in, transcript.Options{})
					if err != nil {
						return nil, err
					}
					rep = f.Apply(tr)
					return tr.Bytes(), nil
				})
				// Check's last run is on the input: rep is the first run's.
				checkBudget(t, in, out, opts, *rep.Budget)
				if archived {
					if err := invariant.Cites(in, out, opts.Handle); err != nil {
						t.Error(err)
					}
				}
				if rep.Budget.Fits && rep.Budget.Before > budget {
					fits++
				}
			})
		}
	}
	if fits == 0 {
		t.Error("no history was brought within its budget: the test checks little")
	}
}

// checkBudget checks what a run to a budget promises of out, its output
// for in: it is within the budget when the report says it fits, and has
// the size the report says; every failed result, the last KeepRecent
// results and the last read of each file of the active edit loop are
// whole; every line that says what went wrong of a replaced result is in
// its replacement; every edit whose arguments changed keeps its file and
// intent in them, and is listed with what it did in its run's first
// result.
func checkBudget(t *testing.T, in, out []byte, opts Options, rep BudgetReport) {
	t.Helper()
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	size := stats.Count(after, opts.Counter).Tokens()
	if size != rep.After || rep.Fits != (size <= opts.Budget) {
		t.Errorf("the output has %d tokens; the report says %d, fits %v, budget %d", size, rep.After, rep.Fits, opts.Budget)
	}
	loop := ActiveLoop(before)
	for i, r := range after.Results {
		old := before.Results[i]
		text := r.Text()
		if text == old.Text() {
			continue
		}
		switch {
		case old.Failed():
			t.Errorf("failed result %s changed", r.CallID)
		case i >= len(after.Results)-opts.KeepRecent:
			t.Errorf("%s is one of the last %d results, but changed", r.CallID, opts.KeepRecent)
		case loop.Results[old]:
			t.Errorf("%s is in the active edit loop, but changed", r.CallID)
		case !marker.Is(text, "summarize"):
			t.Errorf("%s changed without a ctx-summarize marker: %.100q", r.CallID, text)
		}
		if c := old.Call; c != nil && KeepsErrorLines(c.Kind) {
			for _, l := range outcome.ErrorLines(outcome.Body(old.Text())) {
				if !strings.Contains(text, strings.TrimSpace(clipLine(l.Text))) {
					t.Errorf("%s lost the error line %q", r.CallID, l.Text)
				}
			}
		}
	}
	lists := map[string]string{} // the text of every run's list, by the calls it lists
	for _, r := range after.Results {
		if _, line, _ := marker.Parse(r.Text()); marker.Is(r.Text(), "summarize") && strings.HasPrefix(line, "Edits to ") {
			for _, l := range strings.Split(r.Text(), "\n")[1:] {
				if id, _, ok := strings.Cut(strings.TrimPrefix(l, "- "), ": "); ok {
					lists[id] = l
				}
			}
		}
	}
	for i, c := range after.Calls {
		old := before.Calls[i]
		if c.Input == old.Input {
			continue
		}
		switch {
		case loop.Edits[old]:
			t.Errorf("edit %s is in the active edit loop, but its arguments changed", c.ID)
		case !tools.IsStub(c.Input) || c.Args.File(after.Cwd) != old.Args.File(before.Cwd) || c.Args.Intent != old.Args.Intent:
			t.Errorf("edit %s lost its file or intent: %s", c.ID, c.Input)
		case lists[c.ID] == "" || old.Args.Intent != "" && !strings.Contains(lists[c.ID], marker.Text(old.Args.Intent, 200)):
			t.Errorf("edit %s is not listed with its intent in its run: %q", c.ID, lists[c.ID])
		}
	}
	for _, c := range after.Calls {
		if r := c.Result; r != nil && loop.Edits[before.Calls[c.Index]] && r.Text() != before.Results[r.Index].Text() {
			t.Errorf("the result of edit %s of the active loop changed", c.ID)
		}
	}
}

// budgetSession is a session for the ladder: a user turn, then old
// listings and reads of two files with edits between, test runs (one
// printing an error line, one failing), and the loop on b.go at the end.
func budgetSession() *chat {
	listing := lines("src/pkg/file.go", 60)
	test := lines("ok", 40) + "Error: the cache is cold\n" + lines("more", 20)
	c := &chat{}
	c.user("fix it").
		call("ls", "run_shell", cmdArgs("find src"), listing).
		call("ra1", "read_file", readArgs("a.go"), lines("a", 80)).
		call("e1", "edit_file", `{"path":"a.go","intent":"rename Foo to Bar","old_string":"`+strings.Repeat("Foo() ", 200)+`","new_string":"Bar()"}`, "ok").
		call("e2", "edit_file", `{"path":"a.go","old_string":"`+strings.Repeat("x ", 300)+`","new_string":"y"}`, "ok").
		call("t1", "run_shell", cmdArgs("go test ./..."), test).
		call("ra2", "read_file", readArgs("a.go"), lines("a2", 80)).
		call("fail", "run_shell", cmdArgs("go vet ./..."), "Exit code: 1\n"+lines("vet", 60)).
		call("rb", "read_file", readArgs("b.go"), lines("b", 80)).
		call("e3", "edit_file", `{"path":"b.go","old_string":"`+strings.Repeat("z ", 300)+`","new_string":"w"}`, "ok").
		call("t2", "run_shell", cmdArgs("go test ./b"), lines("pass", 40)).
		call("s1", "run_shell", cmdArgs("git status"), lines("status", 30)).
		call("s2", "run_shell", cmdArgs("git log"), lines("log", 30)).
		call("s3", "run_shell", cmdArgs("ls"), lines("x.go", 30))
	return c
}

// TestBudgetLadder takes a session down budget by budget: each step is
// taken only when the ones before it cannot make the history fit, oldest
// first, and what never goes stays.
func TestBudgetLadder(t *testing.T) {
	ctr := approx(t)
	in := budgetSession().bytes()
	total := stats.Count(transcripttest.Parse(t, in), ctr).Tokens()
	steps := func(budget int) (map[string]string, BudgetReport, *transcript.Transcript) {
		tr := transcripttest.Parse(t, in)
		f, err := New(Options{Budget: budget, KeepRecent: 3, Counter: ctr})
		if err != nil {
			t.Fatal(err)
		}
		rep := f.Apply(tr)
		got := map[string]string{}
		for _, e := range rep.Changes {
			got[e.CallID] = e.Step
		}
		return got, *rep.Budget, tr
	}
	// Fits already: nothing changes.
	if got, rep, tr := steps(total); len(got) != 0 || !rep.Fits || tr.Changed() || rep.Before != total {
		t.Errorf("budget %d of %d tokens: %v, %+v", total, total, got, rep)
	}
	// A little over: the oldest result is summarized, and that is all.
	if got, rep, _ := steps(total - 10); len(got) != 1 || got["ls"] != stepSummary || !rep.Fits || rep.Summaries != 1 {
		t.Errorf("budget 10 under: %v, %+v", got, rep)
	}
	// Nothing fits: every step taken. The failed run, the last 3 results,
	// the loop (b.go's read, its edit e3, the run t2 that checked it)
	// stay; the latest read of a.go goes last.
	got, rep, tr := steps(1)
	if rep.Fits || rep.EditRuns != 1 || rep.Edits != 2 || rep.LatestReads != 1 || rep.After >= rep.Before {
		t.Errorf("budget 1: %+v", rep)
	}
	for _, id := range []string{"fail", "rb", "e3", "t2", "s1", "s2", "s3"} {
		if _, ok := got[id]; ok {
			t.Errorf("budget 1: %s changed (%s)", id, got[id])
		}
	}
	for id, step := range map[string]string{"ls": stepClear, "ra1": stepClear, "t1": stepClear, "e1": stepEdits, "ra2": stepLatest} {
		if got[id] != step {
			t.Errorf("budget 1: %s by %q, want %q", id, got[id], step)
		}
	}
	out := transcripttest.Parse(t, tr.Bytes())
	for _, r := range out.Results {
		switch r.CallID {
		case "t1":
			if !strings.Contains(r.Text(), "Error: the cache is cold") {
				t.Errorf("the clear of t1 lost its error line: %q", r.Text())
			}
		case "e1":
			want := "[ctx-summarize] Edits to a.go: 2 changes between calls e1 and e2; the text they changed is not shown here, only what each did.\n" +
				"- e1: rename Foo to Bar (+1 −1 lines)\n- e2: +1 −1 lines"
			if r.Text() != want {
				t.Errorf("the run's list:\n%s\nwant\n%s", r.Text(), want)
			}
		}
	}
	for _, c := range out.Calls {
		switch c.ID {
		case "e1":
			if c.Input != `{"path":"a.go","intent":"rename Foo to Bar","ctx-summarize":"[ctx-summarize] Change 1 of 2 to a.go, listed with the first of them (e1); the text it changed is not shown here."}` {
				t.Errorf("e1's arguments: %s", c.Input)
			}
		case "e3":
			if tools.IsStub(c.Input) {
				t.Error("the loop's edit was compressed")
			}
		}
	}
}

// TestActiveLoop: the file of the last edit from its latest read before
// it, the files edited since, their latest reads and the runs that checked
// the edits.
func TestActiveLoop(t *testing.T) {
	tr := budgetSession().
		call("rc", "read_file", readArgs("c.go"), lines("c", 30)).
		call("e4", "edit_file", `{"path":"c.go","old":"c","new":"d"}`, "ok").
		call("e5", "write_file", `{"path":"b.go","content":"package b"}`, "ok").
		parse(t)
	loop := ActiveLoop(tr)
	var results, edits []string
	for _, r := range tr.Results {
		if loop.Results[r] {
			results = append(results, r.CallID)
		}
		if loop.Edits[r.Call] {
			edits = append(edits, r.CallID)
		}
	}
	if got := strings.Join(loop.Files, " "); got != "b.go c.go" {
		t.Errorf("files %s, want b.go c.go", got)
	}
	if got := strings.Join(results, " "); got != "rb t2 rc" {
		t.Errorf("results %s, want rb t2 rc", got)
	}
	if got := strings.Join(edits, " "); got != "e3 e4 e5" {
		t.Errorf("edits %s, want e3 e4 e5", got)
	}
	if l := ActiveLoop((&chat{}).user("hi").call("r", "read_file", readArgs("a.go"), "a").parse(t)); len(l.Files) != 0 || len(l.Results) != 0 {
		t.Errorf("a loop without edits: %+v", l)
	}
}

// TestBudgetTwice: a run to a budget on its own output changes nothing,
// for every fixture, corpus file and scenario, at the 20,000
// tokens, half of each history and 1 token, counted as ctx-summarize
// counts them (o200k_base), with its defaults under a budget.
func TestBudgetTwice(t *testing.T) {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range inputs(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		total := stats.Count(transcripttest.Parse(t, in), ctr).Tokens()
		for _, budget := range []int{20000, total / 2, 1} {
			for _, handle := range []marker.Handles{nil, invariant.Handles} {
				opts := Defaults(ctr)
				opts.Budget, opts.KeepRecent, opts.Handle = budget, 3, handle
				f, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				run := func(in []byte) []byte {
					tr := transcripttest.Parse(t, in)
					f.Apply(tr)
					return tr.Bytes()
				}
				once := run(in)
				if twice := run(once); string(twice) != string(once) {
					t.Errorf("%s, budget %d, archived %v: a second run changed %d results", testutil.Name(path), budget, handle != nil,
						changed(transcripttest.Parse(t, once), transcripttest.Parse(t, twice)))
				}
			}
		}
	}
}

// changed counts the results whose text differs between two transcripts.
func changed(a, b *transcript.Transcript) int {
	n := 0
	for i, r := range a.Results {
		if r.Text() != b.Results[i].Text() {
			n++
		}
	}
	return n
}
