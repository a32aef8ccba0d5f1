package summarizecmd

import (
	"context"
	"sync"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/cli/llmcli"
	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// llmFlags are ctx-summarize's flags for summaries written by a model.
var llmFlags = []ucli.Flag{
	llmFlag,
	llmcli.URL, llmcli.Model, llmcli.KeyEnv, llmcli.CapField,
	llmMaxInput,
	llmcli.Concurrency, llmcli.MaxCalls, llmcli.Timeout, llmcli.Cache,
}

var (
	llmFlag     = llmcli.Flag("ask a model for each summary, through an OpenAI-compatible endpoint; the rule-based summary where it fails")
	llmMaxInput = &ucli.IntFlag{Name: "llm-max-input", Value: 3000, EnvVars: []string{"CTX_LLM_MAX_INPUT"},
		Usage: "send at most `N` tokens of an output (its head, error lines and tail); 0: whole"}
)

// modelFilter is ctx-summarize --llm: the filter, with a model's summaries
// where they are shorter than the rules'.
type modelFilter struct {
	f       *summarize.Filter
	client  *llm.Client
	workers int
	// closeCache closes the cache's file or archive; nil without a cache.
	closeCache func() error

	// What went wrong, for the one warning line: fallbacks that are the
	// model's failures, by reason, and the first failure's message.
	mu     sync.Mutex
	failed map[string]int
	asked  int
	first  error
}

// newModelFilter makes the client of the --llm flags for the filter f.
func newModelFilter(e *cli.Env, f *summarize.Filter) (*modelFilter, error) {
	client, closeCache, err := llmcli.NewClient(e, summarize.AnswerTokens)
	if err != nil {
		return nil, err
	}
	return &modelFilter{f: f, client: client, closeCache: closeCache, workers: e.Int(llmcli.Concurrency.Name), failed: map[string]int{}}, nil
}

// Apply summarizes t with the model's answers, and keeps the model's
// failures for the warning.
func (m *modelFilter) Apply(t *transcript.Transcript) summarize.Report {
	a, first := m.answers(t)
	rep := m.f.WithAnswers(a).Apply(t)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first == nil {
		m.first = first
	}
	if r := rep.Model; r != nil {
		m.asked += r.Asked
		for why, n := range r.Fallbacks {
			if summarize.Failure(why) {
				m.failed[why] += n
			}
		}
	}
	return rep
}

// close closes the cache, and warns, in one line, when the model failed to
// answer: those results have the rule-based summary. A summary the model
// made no shorter than the rules' is not a failure: it is counted in
// --stats only.
func (m *modelFilter) close(e *cli.Env) {
	llmcli.Close(e, m.client, m.closeCache)
	llmcli.WarnFallbacks(e, m.client.Model(), m.failed, m.asked, "results, which have the rule-based summary", llmcli.OneLine(m.first))
}

// answers asks the model the prompts of t, and counts what asking cost;
// it returns the first failure too. The same prompt (an unchanged file read
// again) is asked once.
func (m *modelFilter) answers(t *transcript.Transcript) (*summarize.Answers, error) {
	before := m.client.Stats()
	prompts := m.f.Prompts(t)
	first := map[[2]string]int{} // a prompt's text → the first prompt with it
	var distinct []int
	for i, p := range prompts {
		k := [2]string{p.System, p.User}
		if _, ok := first[k]; !ok {
			first[k] = i
			distinct = append(distinct, i)
		}
	}
	answers := make([]string, len(prompts))
	errs := make([]error, len(prompts))
	parallel.Workers(len(distinct), m.workers, func(j int) {
		i := distinct[j]
		resp, err := m.client.Complete(context.Background(), llm.Request{Version: summarize.PromptVersion, Messages: []llm.Message{
			{Role: "system", Content: prompts[i].System},
			{Role: "user", Content: prompts[i].User},
		}})
		answers[i], errs[i] = resp.Content, err
	})
	a := &summarize.Answers{Model: m.client.Model(), Text: map[int]string{}, Failed: map[int]string{}}
	var firstErr error
	for _, p := range prompts {
		j := first[[2]string{p.System, p.User}]
		if err := errs[j]; err != nil {
			a.Failed[p.Result.Index] = llm.Reason(err)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		a.Text[p.Result.Index] = answers[j]
	}
	now := m.client.Stats()
	a.Cost = summarize.Cost{Requests: now.Requests - before.Requests, CacheHits: now.CacheHits - before.CacheHits,
		PromptTokens: now.PromptTokens - before.PromptTokens, CompletionTokens: now.CompletionTokens - before.CompletionTokens}
	return a, firstErr
}
