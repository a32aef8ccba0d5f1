package summarize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// testLog is a go test log whose error lines are in its middle.
func testLog() string {
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "=== RUN   TestStore%d\n--- PASS: TestStore%d (0.00s)\n", i, i)
	}
	b.WriteString("--- FAIL: TestExpire (0.01s)\n    store_test.go:88: Expired(l) = false, want true\n")
	b.WriteString("--- FAIL: TestTouchAfterExpiry (0.01s)\n    store_test.go:121: Touch(l) returned error: link expired at 2024-01-01T00:00:00Z, want nil\n")
	for i := 60; i < 80; i++ {
		fmt.Fprintf(&b, "=== RUN   TestStore%d\n--- PASS: TestStore%d (0.00s)\n", i, i)
	}
	b.WriteString("FAIL\nFAIL\texample.com/store\t0.02s\n")
	// Long last lines: the rules keep them, a model need not.
	for i := range 3 {
		fmt.Fprintf(&b, "coverage %d: %s\n", i, strings.Repeat("internal/store/store.go:Expire 100.0% ", 8))
	}
	return b.String()
}

// modelSession is a session of old results of several kinds, then recent
// work: a long listing (a one-line summary), a read, a test run that
// printed error lines (with exit code 0: it is not a failed call), a
// search, and a short output.
func modelSession() *chat {
	var grep strings.Builder
	for i := range 30 {
		fmt.Fprintf(&grep, "internal/store/file%d.go:%d:\tif err != nil { return fmt.Errorf(\"load %d: %%w\", err) } // %s\n", i%6, i+10, i, strings.Repeat("keep the link's expiry ", 8))
	}
	return (&chat{}).user("fix the store").
		call("c1", "bash", `{"command":"find . -name '*.go'"}`, lines("./pkg/file.go", 40)).
		call("c2", "read_file", readArgs("internal/store/store.go"), lines("package store //", 80)).
		call("c3", "bash", `{"command":"go test ./internal/store/"}`, testLog()).
		call("c4", "grep", `{"pattern":"Errorf","path":"internal/store"}`, grep.String()).
		call("c5", "bash", `{"command":"echo hi"}`, "hi\n").
		user("now the docs").
		call("c6", "read_file", readArgs("README.md"), lines("readme", 80))
}

// modelOpts let the session's one read of store.go be summarized, which
// as the file's latest read would otherwise stay whole.
func modelOpts() Options {
	return Options{Mode: ModeSummary, ProtectTurns: 1, ModelInput: 600, SummarizeLatestReads: true}
}

// TestPrompts: a prompt for each result the rules would summarize with more
// than one line, holding the template and what the rules know.
func TestPrompts(t *testing.T) {
	tr := modelSession().parse(t)
	f := newFilter(t, modelOpts())
	prompts := f.Prompts(tr)
	var ids []string
	for _, p := range prompts {
		ids = append(ids, p.Result.CallID)
		if p.System != System {
			t.Errorf("%s: system %q", p.Result.CallID, p.System)
		}
	}
	// c1 is a listing (one line), c5 short, c6 protected.
	if strings.Join(ids, " ") != "c2 c3 c4" {
		t.Fatalf("prompts for %v, want c2 c3 c4", ids)
	}
	if tr.Changed() {
		t.Error("Prompts changed the transcript")
	}
	read, test, grep := prompts[0].User, prompts[1].User, prompts[2].User
	for _, want := range []string{"Tool: read_file\n", `Parameters: {"path":"internal/store/store.go"}`, "Known: a read call; 80 lines (", "Result:\npackage store // line 1\n"} {
		if !strings.Contains(read, want) {
			t.Errorf("read prompt has no %q:\n%s", want, read)
		}
	}
	for _, want := range []string{
		"Known: a shell call; ok; 80 passed, 2 failed; 1 package, 1 failed; 169 lines (5,340 chars)\n",
		"Error lines (keep them):\n--- FAIL: TestExpire (0.01s)\n    store_test.go:88: Expired(l) = false, want true\n--- FAIL: TestTouchAfterExpiry (0.01s)\n    store_test.go:121: Touch(l) returned error: link expired at 2024-01-01T00:00:00Z, want nil\nFAIL\nFAIL\texample.com/store\t0.02s\n",
		"Paths to name: store_test.go, internal/store/store.go\n",
		"Result (too long: its head, the lines that matter and its tail):\n=== RUN   TestStore0\n",
	} {
		if !strings.Contains(test, want) {
			t.Errorf("test prompt has no %q:\n%s", want, test)
		}
	}
	// From the middle of the log, a line that matters is in the excerpt.
	if _, excerpt, _ := strings.Cut(test, "Result (too long"); !strings.Contains(excerpt, "store_test.go:88: Expired(l) = false, want true") {
		t.Errorf("the test log's excerpt lost its error line:\n%s", excerpt)
	}
	if n := approx(t).Count(test[strings.Index(test, "Result"):]); n > 600+30 {
		t.Errorf("the test log's excerpt has %d tokens, over --llm-max-input 600", n)
	}
	if !strings.Contains(grep, "Known: a search call; 30 matches in 6 files under internal/store/: file0.go,") ||
		!strings.Contains(grep, "Paths to name: internal/store/file0.go, internal/store/file1.go, internal/store/file2.go, internal/store/file3.go, internal/store/file4.go, internal/store/file5.go\n") {
		t.Errorf("grep prompt:\n%s", grep)
	}
}

// answer gives every prompt of tr the same answer, except the results named
// in failed.
func answer(tr *transcript.Transcript, f *Filter, text string, failed map[string]string) *Answers {
	a := &Answers{Model: "tiny:1b", Text: map[int]string{}, Failed: map[int]string{}}
	for _, p := range f.Prompts(tr) {
		if why, ok := failed[p.Result.CallID]; ok {
			a.Failed[p.Result.Index] = why
		} else {
			a.Text[p.Result.Index] = text
		}
	}
	return a
}

// TestWithAnswers: the model's summaries replace the rules' where shorter;
// the same results change as with the rules alone; failures and longer
// answers get the rules' summary, and the report counts why.
func TestWithAnswers(t *testing.T) {
	f := newFilter(t, modelOpts())
	rules := modelSession().parse(t)
	rulesRep := f.Apply(rules)

	tr := modelSession().parse(t)
	a := answer(tr, f, "Ran the store's tests: TestExpire fails at store_test.go:88.", map[string]string{"c4": "timeout"})
	rep := f.WithAnswers(a).Apply(tr)

	if rep.Summarized != rulesRep.Summarized || rep.Kept != rulesRep.Kept {
		t.Errorf("with answers: %d summarized, kept %+v; with rules: %d, %+v", rep.Summarized, rep.Kept, rulesRep.Summarized, rulesRep.Kept)
	}
	if rep.TokensAfter > rulesRep.TokensAfter {
		t.Errorf("the model's summaries have more tokens (%d) than the rules' (%d)", rep.TokensAfter, rulesRep.TokensAfter)
	}
	by := map[string]Entry{}
	for _, e := range rep.Changes {
		by[e.CallID] = e
	}
	for id, want := range map[string][2]string{"c1": {"", ""}, "c2": {"tiny:1b", ""}, "c3": {"tiny:1b", ""}, "c4": {"", "timeout"}} {
		if e := by[id]; e.Model != want[0] || e.Fallback != want[1] {
			t.Errorf("%s: model %q, fallback %q; want %q, %q", id, e.Model, e.Fallback, want[0], want[1])
		}
	}
	want := ModelReport{Name: "tiny:1b", Asked: 3, Summaries: 2, Fallbacks: map[string]int{"timeout": 1}}
	if rep.Model == nil || fmt.Sprint(*rep.Model) != fmt.Sprint(want) {
		t.Errorf("model report %+v, want %+v", rep.Model, want)
	}

	test := text(tr, "c3")
	wantTest := "[ctx-summarize, model tiny:1b] bash `go test ./internal/store/`: ok; 80 passed, 2 failed; 1 package, 1 failed; 169 lines (5,340 chars).\n" +
		"Ran the store's tests: TestExpire fails at store_test.go:88.\n" +
		"--- FAIL: TestExpire (0.01s)\n    store_test.go:88: Expired(l) = false, want true\n--- FAIL: TestTouchAfterExpiry (0.01s)\n" +
		"    store_test.go:121: Touch(l) returned error: link expired at 2024-01-01T00:00:00Z, want nil\nFAIL\nFAIL\texample.com/store\t0.02s\n" +
		"Paths: internal/store/store.go"
	if test != wantTest {
		t.Errorf("test run's summary:\n%s\nwant:\n%s", test, wantTest)
	}
	if !marker.Is(test, "summarize") || text(tr, "c4") != text(rules, "c4") || text(tr, "c1") != text(rules, "c1") {
		t.Error("a fallback is not the rules' summary, or the model's is not a summarize marker")
	}

	// Applying the output again changes nothing: the model's summaries are
	// markers.
	again := transcriptOf(t, tr)
	if r := f.WithAnswers(&Answers{Model: "tiny:1b"}).Apply(again); r.Summarized != 0 || again.Changed() {
		t.Errorf("a second run summarized %d", r.Summarized)
	}
}

// TestAnswerNotShorter: an answer that makes a summary no shorter than the
// rules' is not used.
func TestAnswerNotShorter(t *testing.T) {
	f := newFilter(t, modelOpts())
	tr := modelSession().parse(t)
	rep := f.WithAnswers(answer(tr, f, strings.Repeat("The tests ran and printed many lines. ", 60), nil)).Apply(tr)
	if rep.Model.Summaries != 0 || rep.Model.Fallbacks["not shorter"] != 3 {
		t.Errorf("report %+v", rep.Model)
	}
	want := "model tiny:1b wrote 0 of 3, 3 rule-based: 3 not shorter; 0 requests, 0 cache hits, 0 prompt + 0 completion tokens"
	if rep.Model.String() != want {
		t.Errorf("stats %q, want %q", rep.Model.String(), want)
	}
}

// TestModelSummaryKeeps: whatever the answer says, the summary keeps the
// error lines and paths that the rules keep, word for word, once.
func TestModelSummaryKeeps(t *testing.T) {
	tr := modelSession().parse(t)
	grep := tr.Calls[3]
	_, o, _ := Rules{}.summarize(grep, grep.Result.Text())
	for _, tc := range []struct{ answer, want string }{
		{"Found Errorf calls in the store.", "\nFound Errorf calls in the store.\nPaths: internal/store/file0.go, internal/store/file1.go, internal/store/file2.go, internal/store/file3.go, internal/store/file4.go, internal/store/file5.go"},
		{"Errorf in internal/store/file0.go, internal/store/file1.go, internal/store/file2.go,\n\ninternal/store/file3.go, internal/store/file4.go and internal/store/file5.go.  ",
			"\nErrorf in internal/store/file0.go, internal/store/file1.go, internal/store/file2.go,\ninternal/store/file3.go, internal/store/file4.go and internal/store/file5.go."},
		{"Errorf in internal/store/file3.go.", "\nErrorf in internal/store/file3.go.\nPaths: internal/store/file0.go, internal/store/file1.go, internal/store/file2.go, internal/store/file4.go, internal/store/file5.go"},
	} {
		s := modelSummary(o, "m", tc.answer)
		head, rest, _ := strings.Cut(s, "\n")
		if head != `[ctx-summarize, model m] grep "Errorf" in internal/store: 30 matches in 6 files under internal/store/: file0.go, file1.go, file2.go, file3.go, file4.go, file5.go; 30 lines (8,150 chars).` {
			t.Errorf("marker line %q", head)
		}
		if "\n"+rest != tc.want {
			t.Errorf("answer %q: summary\n%s\nwant\n%s", tc.answer, rest, tc.want)
		}
	}
}

func text(tr *transcript.Transcript, id string) string {
	for _, r := range tr.Results {
		if r.CallID == id {
			return r.Text()
		}
	}
	return ""
}

func transcriptOf(t *testing.T, tr *transcript.Transcript) *transcript.Transcript {
	t.Helper()
	out, err := transcript.Parse(tr.Bytes(), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
