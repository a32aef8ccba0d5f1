package truncate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// corpusOptions are the ways the corpus is cut: as a user runs ctx-truncate,
// and with small numbers and every tool so that most results are cut.
func corpusOptions(t *testing.T) map[string]Options {
	ctr := counter(t, tokens.Default)
	def := DefaultRules()
	def.Counter = ctr
	return map[string]Options{
		"default":      {Rules: def},
		"all-small":    {All: true, Rules: Rules{Max: 600, Head: 150, Tail: 150, KeepMatches: 20, Counter: ctr}},
		"keep-mirrors": {All: true, KeepMirrors: true, Rules: Rules{Max: 600, Head: 150, Tail: 150, KeepMatches: 3, Counter: ctr}},
		"no-matches":   {All: true, Rules: Rules{Max: 600, Head: 0, Tail: 100, Counter: ctr}},
		"tokens":       {All: true, Rules: Rules{Max: 300, Head: 60, Tail: 60, TokenMode: true, KeepMatches: 20, Counter: ctr}},
		"archived":     {All: true, Rules: Rules{Max: 600, Head: 150, Tail: 150, KeepMatches: 20, Counter: ctr}, Handle: invariant.Handles},
	}
}

// TestCorpusInvariants checks every invariant of docs/model.md on every file of
// the corpus, and on the sessions that list and search (testdata/sessions): same format and layout, byte for byte where nothing changed;
// no message dropped or reordered; idempotent and deterministic; never more
// tokens; pointers point at whole results; errors of failed calls survive;
// and ctx-truncate's own rules: nothing outside its scope is touched, no
// mirror keeps the full text of a cut result, every cut says what it cut.
func TestCorpusInvariants(t *testing.T) {
	files := append(testutil.FixturesAndCorpus(t), listingSessions(t)...)
	for name, opts := range corpusOptions(t) {
		if (testing.Short() || raceEnabled) && name != "default" && name != "archived" {
			continue // every token is counted several times: slow under -race
		}
		for _, f := range files {
			t.Run(name+"/"+testutil.Name(f), func(t *testing.T) {
				in, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out := invariant.Check(t, in, apply(opts))
				checkCuts(t, in, out, opts)
				if opts.Handle != nil {
					if err := invariant.Cites(in, out, opts.Handle); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

func checkCuts(t *testing.T, in, out []byte, opts Options) {
	t.Helper()
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	refs := marker.Referenced(before)
	cut := 0
	for i, r := range after.Results {
		b := before.Results[i]
		if r.Text() == b.Text() {
			continue
		}
		cut++
		c := b.Call
		switch {
		case c == nil && !opts.All:
			t.Errorf("result %d without a call was cut", i)
		case c != nil && (c.Kind == tools.Edit || c.Kind == tools.Write):
			t.Errorf("%s: the result of %s (%s) was cut", b.CallID, c.Name, c.Kind)
		case c != nil && !opts.All && c.Args.Command == "":
			t.Errorf("%s: %s is not a shell tool", b.CallID, c.Name)
		case refs[b.CallID]:
			t.Errorf("%s: a marker points at it", b.CallID)
		case marker.Is(b.Text(), ""):
			t.Errorf("%s: it was a marker", b.CallID)
		}
		if !marker.IsCut(r.Text()) || strings.Count(r.Text(), "\n"+marker.CutPrefix)+btoi(strings.HasPrefix(r.Text(), marker.CutPrefix)) != 1 {
			t.Errorf("%s: the cut does not hold exactly one marker line", b.CallID)
		}
		// Errors survive: every error line of a failed call.
		if b.Failed() {
			for _, line := range errorLines(b.Text()) {
				if len(line) <= keptLineMax && !strings.Contains(r.Text(), line) {
					t.Errorf("%s: error line lost: %q", b.CallID, line)
				}
			}
		}
		if opts.KeepMirrors {
			for j, m := range r.Mirrors() {
				if m.Text != b.Mirrors()[j].Text {
					t.Errorf("%s: --keep-mirrors, and mirror %s changed", b.CallID, m.Field)
				}
			}
			continue
		}
		// A copy keeps its full text only when its own cut, citing its own
		// handle, would not be shorter.
		for j, m := range r.Mirrors() {
			bm := b.Mirrors()[j]
			rules := opts.Rules
			rules.Failed, rules.Handle = b.Failed(), opts.Handle.Mirror(before, b, bm)
			if _, shorter := Cut(bm.Text, rules); m.Text == bm.Text && shorter {
				t.Errorf("%s: the result was cut, its mirror %s keeps the full text", b.CallID, m.Field)
			}
		}
	}
	t.Logf("%d of %d results cut", cut, len(after.Results))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCorpusPipeline runs ctx-truncate after itself with other numbers, and
// after a run with --all: results already cut are never cut again.
func TestCorpusPipeline(t *testing.T) {
	ctr := counter(t, tokens.Default)
	first := Options{All: true, Rules: Rules{Max: 600, Head: 150, Tail: 150, KeepMatches: 20, Counter: ctr}}
	second := Options{All: true, Rules: Rules{Max: 200, Head: 20, Tail: 20, KeepMatches: 0, Counter: ctr}}
	for _, f := range append(testutil.FixturesAndCorpus(t), listingSessions(t)...) {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		once, err := apply(first)(in)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, once)
		var cut []bool
		for _, r := range tr.Results {
			cut = append(cut, marker.IsCut(r.Text()))
		}
		twice, err := apply(second)(once)
		if err != nil {
			t.Fatal(err)
		}
		if err := invariant.Compare(once, twice); err != nil {
			t.Fatalf("%s: %v", testutil.Name(f), err)
		}
		for i, r := range transcripttest.Parse(t, twice).Results {
			if cut[i] && r.Text() != tr.Results[i].Text() {
				t.Errorf("%s: %s was cut again", testutil.Name(f), r.CallID)
			}
		}
	}
}

// listingSessions are the sessions of testdata/sessions whose agent lists
// and searches a source tree (TestMakeFixtures).
func listingSessions(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "sessions", "listings-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no listing sessions: %v", err)
	}
	return files
}
