package summarize

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// step is one filter of a pipe, run on a history in place.
type step func(*transcript.Transcript)

// requests runs the pipe on the history before each of t's model turns (a
// sample of them in a long session), as a live loop would on every
// request, and returns each result's text at each of those requests, and
// which results were among the last n at each (-1: not yet arrived).
func requests(t *testing.T, data []byte, n int, pipe ...step) (texts [][]string, recent [][]bool) {
	tr := transcripttest.Parse(t, data)
	turns := tr.Turns()
	every := max(1, len(turns)/25)
	for k := 0; k < len(turns); k += every {
		pt, err := transcript.Parse(transcripttest.Prefix(t, data, tr, turns[k].Messages[0]), transcript.Options{Format: tr.Format})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range pipe {
			out := pt.Bytes()
			if pt, err = transcript.Parse(out, transcript.Options{Format: tr.Format}); err != nil {
				t.Fatal(err)
			}
			s(pt)
		}
		row := make([]string, len(pt.Results))
		rec := make([]bool, len(pt.Results))
		for i, r := range pt.Results {
			row[i] = r.Text()
			rec[i] = i >= len(pt.Results)-n
		}
		texts, recent = append(texts, row), append(recent, rec)
	}
	return texts, recent
}

// checkLoopSafe checks that over the requests each result takes at most
// two texts, its first and then one other for good, and changes only
// while it leaves the last n results (window) or not at all. It returns
// how many results changed.
func checkLoopSafe(t *testing.T, texts [][]string, recent [][]bool) int {
	t.Helper()
	forms := map[int][]string{}
	for k, row := range texts {
		for i, text := range row {
			f := forms[i]
			if len(f) > 0 && f[len(f)-1] == text {
				continue
			}
			if len(f) > 0 && recent[k][i] {
				t.Fatalf("request %d: result %d changed while among the last results: %.100q", k, i, text)
			}
			forms[i] = append(f, text)
			if len(forms[i]) > 2 {
				t.Fatalf("request %d: result %d took a third form: %.100q", k, i, forms[i])
			}
		}
	}
	changed := 0
	for _, f := range forms {
		if len(f) == 2 {
			changed++
		}
	}
	return changed
}

// TestLoopIsLoopSafe: with Loop, request by request over every fixture
// and corpus file, a result stays whole while among the last Loop
// results, then becomes its summary for good; so does it in the pipe
// ctx-dedupe --keep first --within Loop-1 | ctx-summarize --loop Loop.
func TestLoopIsLoopSafe(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	const loop = 3
	sum, err := New(Options{Mode: ModeSummary, Loop: loop, Counter: ctr})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := dedupe.New(dedupe.Options{Keep: dedupe.KeepFirst, Within: loop - 1, MaxReads: dedupe.DefaultMaxReads, Counter: ctr, AllTools: true})
	if err != nil {
		t.Fatal(err)
	}
	summarizeStep := func(tr *transcript.Transcript) { sum.Apply(tr) }
	dedupeStep := func(tr *transcript.Transcript) { dd.Apply(tr) }
	changed := 0
	for _, path := range inputs(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(testutil.Name(path), func(t *testing.T) {
			texts, recent := requests(t, data, loop, summarizeStep)
			changed += checkLoopSafe(t, texts, recent)
			texts, _ = requests(t, data, loop, dedupeStep, summarizeStep)
			changed += checkLoopSafe(t, texts, recent)
		})
	}
	if changed == 0 {
		t.Error("no result changed anywhere: the test looks at nothing")
	}
}

// TestLoopOptions: Loop sets the rule and refuses a budget.
func TestLoopOptions(t *testing.T) {
	f, err := New(Options{Loop: 2, ProtectTokens: 40000, ProtectCalls: 20, MinSavings: 2000, Trigger: 10, Counter: approx(t)})
	if err != nil {
		t.Fatal(err)
	}
	o := f.opts
	if o.KeepRecent != 2 || o.ProtectTokens != 0 || o.ProtectCalls != 0 || o.MinSavings != 0 || o.Trigger != 0 || !o.SummarizeLatestReads {
		t.Errorf("loop options %+v", o)
	}
	if _, err := New(Options{Loop: 2, Budget: 1000, Counter: approx(t)}); err == nil {
		t.Error("loop with a budget accepted")
	}
}
