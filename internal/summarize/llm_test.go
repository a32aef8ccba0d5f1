package summarize

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/llmtest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// The tests of this file run summaries by a model end to end, as
// ctx-summarize --llm does, against the fake OpenAI-compatible server:
// Prompts, the client asking concurrently, WithAnswers, Apply.

// llmOpts are the options of these runs: protection lowered, so that every
// file has old results.
// llmOpts let the latest reads be summarized: the model is asked about
// reads too.
var llmOpts = Options{Mode: ModeSummary, ProtectTokens: 2000, ModelInput: 3000, SummarizeLatestReads: true}

// filterIn is the filter of opts, counting in the encoding.
func filterIn(t testing.TB, encoding string, opts Options) *Filter {
	t.Helper()
	ctr, err := tokens.New(encoding)
	if err != nil {
		t.Fatal(err)
	}
	opts.Counter = ctr
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// withModel is a filter as the tests run it (in bytes, out bytes) that asks
// the model through c, and the report of its last run.
func withModel(f *Filter, c *llm.Client, rep *Report) invariant.Filter {
	return func(in []byte) ([]byte, error) {
		tr, err := transcript.Parse(in, transcript.Options{Tools: tools.NewTable(nil)})
		if err != nil {
			return nil, err
		}
		prompts := f.Prompts(tr)
		a := &Answers{Model: c.Model(), Text: map[int]string{}, Failed: map[int]string{}}
		texts, errs := make([]string, len(prompts)), make([]error, len(prompts))
		parallel.Workers(len(prompts), 4, func(i int) {
			resp, err := c.Complete(context.Background(), llm.Request{Version: PromptVersion, Messages: []llm.Message{
				{Role: "system", Content: prompts[i].System}, {Role: "user", Content: prompts[i].User}}})
			texts[i], errs[i] = resp.Content, err
		})
		for i, p := range prompts {
			if errs[i] != nil {
				a.Failed[p.Result.Index] = llm.Reason(errs[i])
			} else {
				a.Text[p.Result.Index] = texts[i]
			}
		}
		*rep = f.WithAnswers(a).Apply(tr)
		return tr.Bytes(), nil
	}
}

func newClient(t testing.TB, srv *llmtest.Server, cache llm.Cache, timeout time.Duration) *llm.Client {
	t.Helper()
	cfg := llm.Defaults()
	cfg.URL, cfg.Model, cfg.Cap, cfg.Cache, cfg.Retries, cfg.GiveUpAfter = srv.URL, "fake", AnswerTokens, cache, 0, 0
	if timeout > 0 {
		cfg.Timeout = timeout
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rulesOnly is the output of the rules alone.
func rulesOnly(t *testing.T, f *Filter, in []byte) []byte {
	t.Helper()
	tr, err := transcript.Parse(in, transcript.Options{Tools: tools.NewTable(nil)})
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(tr)
	return tr.Bytes()
}

// TestModelInvariants runs --llm against a fake model that answers well over
// the fixtures and a session made for it (checkModelRun).
func TestModelInvariants(t *testing.T) {
	runModelChecks(t, llmInputs(t, testutil.Fixtures(t)))
}

// TestModelInvariantsCorpus is TestModelInvariants over every corpus file.
func TestModelInvariantsCorpus(t *testing.T) {
	runModelChecks(t, llmInputs(t, testutil.CorpusFiles(t))[1:])
}

// runModelChecks runs checkModelRun on every input, in parallel.
func runModelChecks(t *testing.T, inputs []namedInput) {
	f := filterIn(t, tokens.Default, llmOpts)
	srv := llmtest.New(t, llmtest.Expect{Model: "fake"}, llmtest.Echo(25))
	for _, input := range inputs {
		t.Run(input.name, func(t *testing.T) {
			t.Parallel()
			checkModelRun(t, f, srv, input)
		})
	}
}

// checkModelRun: every invariant of the rules holds, the same results
// change as with the rules, every model's summary keeps the rules' error
// lines and paths, and a second run over the same history is all cache
// hits.
func checkModelRun(t *testing.T, f *Filter, srv *llmtest.Server, input namedInput) {
	in := input.data
	cachePath := filepath.Join(t.TempDir(), "llm.jsonl")
	cache, err := llm.OpenFileCache(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv, cache, 0)
	var rep Report
	out := invariant.Check(t, in, withModel(f, c, &rep))
	checkChanges(t, in, out, llmOpts)
	checkSameResults(t, in, out, rulesOnly(t, f, in))
	checkKeeps(t, in, out)
	if m := rep.Model; input.name == "model-session" && (m == nil || m.Summaries == 0) {
		t.Errorf("no summary by the model: %+v", m)
	}
	if st := c.Stats(); st.Failures != 0 {
		t.Errorf("%d failed calls against a good server", st.Failures)
	}
	cache.Close()

	// A second run over the same history, in a new process: no request.
	cache, err = llm.OpenFileCache(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	c = newClient(t, srv, cache, 0)
	again, err := withModel(f, c, &rep)(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, out) {
		t.Error("the run from the cache wrote another output")
	}
	if st := c.Stats(); st.Requests != 0 || rep.Model != nil && st.CacheHits != rep.Model.Asked {
		t.Errorf("second run: %+v, want every answer from the cache", st)
	}
}

type namedInput struct {
	name string
	data []byte
}

// llmInputs are the files, and modelSession: the fixtures are too short
// for a model to be asked about them.
func llmInputs(t *testing.T, files []string) []namedInput {
	out := []namedInput{{"model-session", modelSession().bytes()}}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, namedInput{testutil.Name(path), data})
	}
	return out
}

// checkSameResults: a model changes the same results as the rules.
func checkSameResults(t *testing.T, in, out, rules []byte) {
	t.Helper()
	before, a, b := parse(t, in), parse(t, out), parse(t, rules)
	for i, r := range before.Results {
		if changedA, changedB := a.Results[i].Text() != r.Text(), b.Results[i].Text() != r.Text(); changedA != changedB {
			t.Errorf("result %d (%s): changed %v with the model, %v with the rules", i, r.CallID, changedA, changedB)
		}
	}
}

// checkKeeps: every model's summary keeps the error lines and paths the
// rules keep, the rules' facts, and the model's name.
func checkKeeps(t *testing.T, in, out []byte) {
	t.Helper()
	before, after := parse(t, in), parse(t, out)
	for i, r := range after.Results {
		s := r.Text()
		if !strings.HasPrefix(s, "[ctx-summarize, model ") {
			continue
		}
		if !strings.HasPrefix(s, "[ctx-summarize, model fake] ") {
			t.Errorf("result %d: the marker does not name the model: %.80q", i, s)
		}
		b := before.Results[i]
		_, o, _ := Rules{Cwd: before.Cwd}.summarize(b.Call, b.Text())
		head, _, _ := strings.Cut(s, "\n")
		for _, fact := range o.must.facts {
			if !strings.Contains(head, fact) {
				t.Errorf("result %d (%s): the marker line lost the fact %q: %q", i, b.CallID, fact, head)
			}
		}
		for _, e := range o.must.errors {
			if !strings.Contains(s, clipLine(e)) && !strings.Contains(s, strings.TrimSpace(e)) {
				t.Errorf("result %d (%s): the error line %q is lost:\n%s", i, b.CallID, e, s)
			}
		}
		for _, p := range o.must.paths {
			if !strings.Contains(s, p) {
				t.Errorf("result %d (%s): the path %q is lost:\n%s", i, b.CallID, p, s)
			}
		}
	}
}

func parse(t *testing.T, in []byte) *transcript.Transcript {
	t.Helper()
	tr, err := transcript.Parse(in, transcript.Options{Tools: tools.NewTable(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestModelFallbacks: whatever way the model fails, every result it was
// asked about gets the rules' summary (the output is the rules' output,
// byte for byte), and the report says why; over the fixtures and every
// corpus file.
func TestModelFallbacks(t *testing.T) {
	f := filterIn(t, tokens.Approx, llmOpts)
	files := testutil.FixturesAndCorpus(t)
	for _, tc := range []struct {
		name    string
		reply   llmtest.Reply
		timeout time.Duration
		reason  string
	}{
		{"500", llmtest.Reply{Status: 500}, 0, "status 500"},
		{"429", llmtest.Reply{Status: 429, RetryAfter: "0"}, 0, "status 429"},
		{"empty content", llmtest.Reply{Reasoning: "The output lists files."}, 0, "empty"},
		{"finish_reason length", llmtest.Reply{Content: "The output", FinishReason: "length"}, 0, "length"},
		{"no answer", llmtest.Reply{Hang: true}, 20 * time.Millisecond, "timeout"},
		{"connection dropped", llmtest.Reply{Drop: true}, 0, "connection"},
		{"not shorter", llmtest.Reply{Content: strings.Repeat("This output shows many things. ", 300)}, 0, NotShorter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Expect{Model: "fake"}, llmtest.Always(tc.reply))
			c := newClient(t, srv, nil, tc.timeout)
			asked := 0
			for _, input := range llmInputs(t, files) {
				in := input.data
				var rep Report
				out, err := withModel(f, c, &rep)(in)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, rulesOnly(t, f, in)) {
					t.Errorf("%s: the output is not the rules' output", input.name)
				}
				if m := rep.Model; m != nil {
					asked += m.Asked
					if m.Summaries != 0 || m.Fallbacks[tc.reason] != m.Asked || len(m.Fallbacks) > 1 {
						t.Errorf("%s: report %+v, want every fallback %q", input.name, m, tc.reason)
					}
				}
			}
			if asked == 0 {
				t.Error("the model was never asked")
			}
		})
	}
}

// TestModelMixed: a model that answers some prompts well and fails others
// still keeps every invariant, and is deterministic: the same prompt gets
// the same fate.
func TestModelMixed(t *testing.T) {
	f := filterIn(t, tokens.Approx, llmOpts)
	srv := llmtest.New(t, llmtest.Expect{Model: "fake"}, func(r llmtest.Request) llmtest.Reply {
		switch {
		case strings.Contains(r.Prompt(), "Tool: grep"):
			return llmtest.Reply{Status: 503}
		case strings.Contains(r.Prompt(), "Tool: bash"):
		case strings.Contains(r.Prompt(), "Tool: read_file"), len(r.Prompt())%3 == 0:
			// The fixture's read always, so that it has both fates
			// without the corpus.
			return llmtest.Reply{Content: "x", FinishReason: "length"}
		}
		return llmtest.Echo(15)(r)
	})
	c := newClient(t, srv, nil, 0)
	var files []string
	for _, name := range []string{"claude-code/spotter-258c7280.jsonl", "openai/msa-django-11564.traj.json"} {
		if path := filepath.Join(testutil.CorpusDir(t), name); exists(path) {
			files = append(files, path)
		}
	}
	summaries, fallbacks := 0, 0
	for _, input := range llmInputs(t, files) {
		in := input.data
		var rep Report
		out := invariant.Check(t, in, withModel(f, c, &rep))
		checkChanges(t, in, out, llmOpts)
		checkSameResults(t, in, out, rulesOnly(t, f, in))
		checkKeeps(t, in, out)
		if rep.Model != nil {
			summaries += rep.Model.Summaries
			fallbacks += rep.Model.Asked - rep.Model.Summaries
		}
	}
	if summaries == 0 || fallbacks == 0 {
		t.Errorf("%d summaries by the model and %d fallbacks: want both", summaries, fallbacks)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestModelBudget runs --llm under budgets over the fixtures and every
// corpus file, against a fake model that answers well: every invariant and
// every promise of a budget hold (checkBudget), every model's summary keeps
// the rules' error lines and paths, and a history the rules fit, the model
// fits too.
func TestModelBudget(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Expect{Model: "fake"}, llmtest.Echo(25))
	c := newClient(t, srv, nil, 0)
	written := 0
	for _, input := range llmInputs(t, testutil.FixturesAndCorpus(t)) {
		in := input.data
		total := stats.Count(transcripttest.Parse(t, in), ctr).Tokens()
		for _, budget := range []int{30000, total * 9 / 10, total / 2} {
			if budget <= 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", input.name, budget), func(t *testing.T) {
				opts := Options{Mode: ModeSummary, Budget: budget, KeepRecent: 3, Counter: ctr}
				f, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				var rep Report
				out := invariant.Check(t, in, withModel(f, c, &rep))
				checkBudget(t, in, out, opts, *rep.Budget)
				checkKeeps(t, in, out)
				// Where the rules fit, so does the model (the ladder stops as
				// soon as it fits: with shorter summaries, maybe sooner and
				// larger); where they cannot, the model gets no larger.
				rules := f.Apply(transcripttest.Parse(t, in)).Budget
				if m := rep.Budget; rules.Fits && !m.Fits || !rules.Fits && m.After > rules.After {
					t.Errorf("with the model: %d tokens, fits %v; with the rules alone: %d, fits %v", m.After, m.Fits, rules.After, rules.Fits)
				}
				if m := rep.Model; m != nil {
					written += m.Summaries
					if failed := m.Asked - m.Summaries - m.Fallbacks[NotShorter] - m.Fallbacks[NotNeeded]; failed != 0 {
						t.Errorf("report %+v: a good model failed", m)
					}
				}
			})
		}
	}
	if written == 0 {
		t.Error("the model wrote no summary under a budget: the test checks little")
	}
}
