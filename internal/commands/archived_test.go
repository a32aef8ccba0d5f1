package commands

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/archivecmd"
	"github.com/ctxkit/ctxkit/internal/commands/loopscmd"
	"github.com/ctxkit/ctxkit/internal/commands/summarizecmd"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// TestArchivedFilters is the archive's promise to the filters' markers: with
// --archive, every result that a filter replaces cites a handle, and
// ctx-recall's archive gives back by it the result's original text, byte
// for byte. It runs each filter alone (ctx-loops --banner too) and the
// pipeline in every order over the example session, every fixture and every
// corpus file; the output keeps every invariant, and each filter run again
// on it (with the archive) changes nothing.
func TestArchivedFilters(t *testing.T) {
	runs := map[string][]filterStep{}
	for _, step := range pipeline {
		runs[step.cmd.Name] = []filterStep{step}
	}
	for _, order := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		var steps []filterStep
		var names []string
		for _, j := range order {
			steps = append(steps, pipeline[j])
			names = append(names, strings.TrimPrefix(pipeline[j].cmd.Name, "ctx-"))
		}
		runs[strings.Join(names, "|")] = steps
	}
	// ctx-loops --banner, alone and last, where docs/loops.md runs it.
	banner := filterStep{loopscmd.Command, []string{"--banner"}, true}
	runs["ctx-loops --banner"] = []filterStep{banner}
	runs["dedupe|truncate|summarize|loops --banner"] = append(pipeline[:len(pipeline):len(pipeline)], banner)
	example := filepath.Join(testutil.Root(t), "examples", "session.jsonl")
	for name, steps := range runs {
		files := append([]string{example}, testutil.FixturesAndCorpus(t)...)
		if len(steps) > 1 && (raceEnabled || testing.Short()) {
			files = append([]string{example}, testutil.Fixtures(t)...)
		}
		t.Run(name, func(t *testing.T) {
			// One archive for every file, as a user's archive is.
			db := filepath.Join(t.TempDir(), "archive.db")
			replaced := 0
			for _, path := range files {
				t.Run(testutil.Name(path), func(t *testing.T) {
					in, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					replaced += checkArchived(t, db, in, steps)
				})
			}
			if replaced == 0 {
				t.Error("no result replaced in any file: the test needs some")
			}
		})
	}
}

// checkArchived runs the steps with the archive db over in, checks the
// output, and returns how many results were replaced.
func checkArchived(t *testing.T, db string, in []byte, steps []filterStep) int {
	withArchive := func(step filterStep) []string { return append([]string{"--archive", db}, step.args...) }
	out := in
	compare := invariant.Compare
	for _, step := range steps {
		out = runFilter(t, step.cmd, withArchive(step), out)
		if step.grows {
			compare = invariant.CompareGrowing
		}
	}
	if err := compare(in, out); err != nil {
		t.Fatalf("output against input: %v", err)
	}
	for i, step := range steps {
		if slices.ContainsFunc(steps[i+1:], func(s filterStep) bool { return s.grows }) {
			// A filter changes nothing on its own output, not on one that
			// a later step made longer (ctx-summarize's recent window
			// counts tokens).
			continue
		}
		if again := runFilter(t, step.cmd, withArchive(step), out); !bytes.Equal(again, out) {
			t.Errorf("%s on the output changed it", step.cmd.Name)
		}
	}
	return checkCitations(t, db, in, out)
}

// checkCitations checks out, the output of filters run with the archive db
// over in: every result replaced cites a handle by which the archive gives
// back its original text, byte for byte, and every call whose arguments
// were stubbed (ctx-summarize --budget) cites one by which it gives back
// its arguments. It returns how many results were replaced.
func checkCitations(t *testing.T, db string, in, out []byte) int {
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	var a *archive.Archive
	open := func() *archive.Archive {
		if a == nil {
			var err error
			if a, err = archive.OpenReadOnly(db); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
		}
		return a
	}
	for i, c := range after.Calls {
		was := before.Calls[i]
		if c.Input == was.Input {
			continue
		}
		h := citedArguments.FindStringSubmatch(c.Input)
		if h == nil {
			t.Errorf("call %s: its arguments were replaced without a handle: %.200q", c.ID, c.Input)
			continue
		}
		rec, err := open().Get(h[1], "")
		switch {
		case err != nil:
			t.Errorf("call %s: %v", c.ID, err)
		case string(rec.Args) != tools.Canonical(was.Input, was.InputIsText):
			t.Errorf("call %s: ctx-recall %s gives the arguments %.100s, not the original %.100s", c.ID, h[1], rec.Args, was.Input)
		}
	}
	replaced := 0
	for i, r := range after.Results {
		was := before.Results[i].Text()
		if r.Text() == was {
			continue
		}
		replaced++
		h := marker.CitedIn(r.Text())
		if h == "" {
			t.Errorf("result %d (call %s) was replaced without a handle: %.200q", i, r.CallID, r.Text())
			continue
		}
		rec, err := open().Get(h, "")
		switch {
		case err != nil:
			t.Errorf("result %d (call %s): %v", i, r.CallID, err)
		case *rec.Output != was:
			t.Errorf("result %d (call %s): ctx-recall %s gives %d bytes back, not the %d of the original", i, r.CallID, h, len(*rec.Output), len(was))
		}
	}
	return replaced
}

// citedArguments reads the handle a stubbed call's arguments cite
// (marker.CiteArguments).
var citedArguments = regexp.MustCompile(`its arguments: ctx-recall --json ([A-Za-z0-9_\-.:]+) \(or memory_query id=`)

// TestArchivedBudget is TestArchivedFilters for ctx-summarize --budget, down
// to a tenth of each history (which most cannot reach: every step is then
// taken, and the exit status is 3): every result it replaces, and every
// edit whose text it leaves out of the arguments, is given back by the
// handle it cites; a second run changes nothing.
func TestArchivedBudget(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "archive.db")
	replaced, stubbed := 0, 0
	edits := filepath.Join(t.TempDir(), "edits.json")
	if err := os.WriteFile(edits, editSession(), 0o644); err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(testutil.Root(t), "examples", "session.jsonl"), edits}, testutil.FixturesAndCorpus(t)...)
	for _, path := range files {
		t.Run(testutil.Name(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			budget := fmt.Sprint(max(1, stats.Count(transcripttest.Parse(t, in), ctr).Tokens()/10))
			run := func(in []byte) []byte {
				var stdout, stderr bytes.Buffer
				argv := []string{summarizecmd.Command.Name, "--archive", db, "--encoding", "approx", "--budget", budget, "-"}
				if code := cli.Run(summarizecmd.Command, argv, bytes.NewReader(in), &stdout, &stderr); code != cli.ExitOK && code != cli.ExitOverBudget {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				return stdout.Bytes()
			}
			out := run(in)
			if err := invariant.Compare(in, out); err != nil {
				t.Fatalf("output against input: %v", err)
			}
			if again := run(out); !bytes.Equal(again, out) {
				t.Error("a second run changed the output")
			}
			replaced += checkCitations(t, db, in, out)
			for _, c := range transcripttest.Parse(t, out).Calls {
				if tools.IsStub(c.Input) {
					stubbed++
				}
			}
		})
	}
	if replaced == 0 || stubbed == 0 {
		t.Errorf("%d results replaced and %d edits stubbed in all the files: the test needs some of both", replaced, stubbed)
	}
}

// editSession is an OpenAI transcript whose old edits of a.go rewrite
// long texts, and whose last edit, of b.go, is the loop that stays.
func editSession() []byte {
	var msgs []string
	call := func(id, name, args, out string) {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]}`, id, name, args),
			fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%q}`, id, out))
	}
	msgs = append(msgs, `{"role":"user","content":"rename the helpers"}`)
	long := strings.Repeat("func helper() { return compute(a, b, c) }\n", 40)
	call("call_read_a_0001", "read_file", `{"path":"a.go"}`, long)
	for i := range 3 {
		args := fmt.Sprintf(`{"path":"a.go","intent":"rename helper %d","old_string":%q,"new_string":%q}`, i, long, strings.ReplaceAll(long, "helper", "assist"))
		call(fmt.Sprintf("call_edit_a_000%d", i), "edit_file", args, "ok")
	}
	call("call_read_b_0001", "read_file", `{"path":"b.go"}`, long)
	call("call_edit_b_0001", "edit_file", fmt.Sprintf(`{"path":"b.go","old_string":%q,"new_string":"x"}`, long), "ok")
	return []byte("[\n" + strings.Join(msgs, ",\n") + "\n]\n")
}

// TestArchivedTwins: two conversations that open alike and number their
// calls alike (call_0, call_1, as many chat agents do) share a session
// key, not their handles: ctx-archive stores each result of both, every
// filter with --archive cites for each result the handle ctx-archive
// stored it under, and ctx-recall gives back by it that conversation's
// own output.
func TestArchivedTwins(t *testing.T) {
	twin := func(name string) []byte {
		msgs := []string{`{"role":"system","content":"You are a coding agent."}`, `{"role":"user","content":"Make the tests pass."}`}
		for i := range 2 {
			var out strings.Builder
			for line := range 400 {
				fmt.Fprintf(&out, "%s: test_%04d passed\n", name, line) // run twice alike: ctx-dedupe points the second up
			}
			msgs = append(msgs,
				fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"bash","arguments":"{\"command\":\"make test\"}"}}]}`, i),
				fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":%q}`, i, out.String()),
				`{"role":"assistant","content":"Looked."}`)
		}
		return []byte("[\n" + strings.Join(msgs, ",\n") + "\n]\n")
	}
	db := filepath.Join(t.TempDir(), "archive.db")
	for _, name := range []string{"first", "second"} {
		in := twin(name)
		if out := runArchive(t, db, in); !bytes.Equal(out, in) {
			t.Fatalf("%s: ctx-archive changed its input", name)
		}
		before := transcripttest.Parse(t, in)
		for _, step := range pipeline {
			out := runFilter(t, step.cmd, append([]string{"--archive", db}, step.args...), in)
			if checkCitations(t, db, in, out) == 0 {
				t.Errorf("%s: %s replaced nothing", name, step.cmd.Name)
			}
			for i, r := range transcripttest.Parse(t, out).Results {
				if h := marker.CitedIn(r.Text()); h != "" && h != marker.Handle(before, before.Results[i]) {
					t.Errorf("%s: %s cites %s for result %d, ctx-archive stored it under %s", name, step.cmd.Name, h, i, marker.Handle(before, before.Results[i]))
				}
			}
		}
	}
}

// runArchive runs ctx-archive --db db over in and returns its output.
func runArchive(t *testing.T, db string, in []byte) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Run(archivecmd.Command, []string{archivecmd.Command.Name, "--db", db, "-"}, bytes.NewReader(in), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("ctx-archive: exit %d: %s", code, stderr.String())
	}
	return stdout.Bytes()
}
