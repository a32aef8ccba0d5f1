package stats

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

func TestReportString(t *testing.T) {
	cases := []struct {
		r    Report
		want string
	}{
		{Report{Results: 15, Changed: 3, Detail: "7 reads of 2 files: 3 diffs", Measured: true, Tokens: Change{22981, 18151}, ToolOutput: Change{22536, 17706}},
			"3 of 15 results changed (7 reads of 2 files: 3 diffs); 22,981 → 18,151 tokens (−21%); tool output 22,536 → 17,706 tokens (−21%)"},
		{Report{Results: 6, Measured: true, Tokens: Change{100, 100}, ToolOutput: Change{80, 80}},
			"0 of 6 results changed; 100 → 100 tokens (0%); tool output 80 → 80 tokens (0%)"},
		{Report{Results: 2, Changed: 1}, "1 of 2 results changed"},
	}
	for _, c := range cases {
		if got := c.r.String(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// TestRunReport: a run that replaces results reports the tokens the
// transcript had before and has after, as Count counts the transcript
// itself, whatever it replaced and however often.
func TestRunReport(t *testing.T) {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range testutil.Fixtures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, data)
		before := Count(tr, ctr)
		run := Start(tr)
		var wantReplaced []Replaced
		for i, r := range tr.Results {
			if i%2 == 0 {
				wantReplaced = append(wantReplaced, Replaced{Result: r, Before: r.Text()})
				run.SetText(r, "[ctx-test] replaced")
				run.SetText(r, strings.Repeat("twice ", i)) // the first text is the one it had
			}
		}
		rep := run.Report(ctr, "detail")
		if !reflect.DeepEqual(rep.Replaced, wantReplaced) {
			t.Errorf("%s: replaced %d results, want the %d with their first texts", testutil.Name(path), len(rep.Replaced), len(wantReplaced))
		}
		rep.Replaced = nil
		after := Count(transcripttest.Parse(t, tr.Bytes()), ctr)
		want := Report{Results: len(tr.Results), Changed: (len(tr.Results) + 1) / 2, Detail: "detail", Measured: true,
			Tokens: Change{before.Tokens(), after.Tokens()}, ToolOutput: Change{before.ToolOutput(), after.ToolOutput()}}
		if !reflect.DeepEqual(rep, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", testutil.Name(path), rep, want)
		}
		if rep := Start(tr).Report(nil, ""); rep.Measured || rep.String() != "0 of "+strconv.Itoa(len(tr.Results))+" results changed" {
			t.Errorf("%s: a run without a counter: %q", testutil.Name(path), rep)
		}
	}
}

// TestCountKnown: a tally counted with some counts known (every other
// message's blocks, the first half of the calls and results) is the tally
// counted whole, for every fixture and request body.
func TestCountKnown(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(testutil.Fixtures(t), testutil.Requests(t)...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, data)
		whole := Count(tr, ctr)
		known := Tally{Blocks: make([][]int, len(whole.Blocks)), Calls: whole.Calls[:len(whole.Calls)/2], Results: whole.Results[:len(whole.Results)/2]}
		for i := 0; i < len(whole.Blocks); i += 2 {
			known.Blocks[i] = whole.Blocks[i]
		}
		if got := CountKnown(tr, ctr, known); !reflect.DeepEqual(got, whole) {
			t.Errorf("%s: with some counts known %+v, counted whole %+v", testutil.Name(path), got, whole)
		}
	}
}
