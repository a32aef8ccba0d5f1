package cli

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// The defaults of --llm: a small local model on Ollama.
const (
	defaultLLMURL   = "http://localhost:11434/v1"
	defaultLLMModel = "qwen2.5-coder:1.5b"
	defaultKeyEnv   = "OPENAI_API_KEY"
	cacheOff        = "off"
)

// The flags of a model's endpoint, shared by every command that asks one.
var (
	llmURLFlag = &ucli.StringFlag{Name: "llm-url", Value: defaultLLMURL, EnvVars: []string{"CTX_LLM_URL", "OPENAI_BASE_URL"},
		Usage: "the endpoint's base `URL` (requests go to URL/chat/completions)"}
	llmModelFlag = &ucli.StringFlag{Name: "llm-model", Value: defaultLLMModel, EnvVars: []string{"CTX_LLM_MODEL"},
		Usage: "the model's `NAME`, as the endpoint knows it"}
	llmKeyEnvFlag = &ucli.StringFlag{Name: "llm-key-env", Value: defaultKeyEnv, EnvVars: []string{"CTX_LLM_KEY_ENV"},
		Usage: "the environment variable `NAME` that holds the API key (none is sent when it is unset or empty)"}
	llmCapFieldFlag = &ucli.StringFlag{Name: "llm-cap-field", Value: llm.MaxTokens, EnvVars: []string{"CTX_LLM_CAP_FIELD"},
		Usage: "the output cap's `FIELD`: max_tokens (Ollama, llama.cpp, vLLM) or max_completion_tokens (OpenAI)"}
	llmConcurrencyFlag = &ucli.IntFlag{Name: "llm-concurrency", Value: llm.Defaults().Concurrency, EnvVars: []string{"CTX_LLM_CONCURRENCY"},
		Usage: "at most `N` requests at once"}
	llmMaxCallsFlag = &ucli.IntFlag{Name: "llm-max-calls", Value: 1000, EnvVars: []string{"CTX_LLM_MAX_CALLS"},
		Usage: "send at most `N` requests in a run, retries included; 0: no limit"}
	llmTimeoutFlag = &ucli.DurationFlag{Name: "llm-timeout", Value: llm.Defaults().Timeout, EnvVars: []string{"CTX_LLM_TIMEOUT"},
		Usage: "give up on a request after `DURATION`"}
	llmCacheFlag = &ucli.StringFlag{Name: "llm-cache", EnvVars: []string{"CTX_LLM_CACHE"},
		Usage: "keep answers in `FILE` (default: in the archive of --archive, for a command that has it, when one is set; else ctxkit/llm.jsonl in the user's cache directory); off: keep none"}

	llmEndpointFlags = []ucli.Flag{llmURLFlag, llmModelFlag, llmKeyEnvFlag, llmCapFieldFlag, llmConcurrencyFlag,
		llmMaxCallsFlag, llmTimeoutFlag, llmCacheFlag}
)

// llmFlags are ctx-summarize's flags for summaries written by a model.
var llmFlags = []ucli.Flag{
	&ucli.BoolFlag{Name: "llm", EnvVars: []string{"CTX_LLM"},
		Usage: "ask a model for each summary, through an OpenAI-compatible endpoint; the rule-based summary where it fails"},
	llmURLFlag, llmModelFlag, llmKeyEnvFlag, llmCapFieldFlag,
	&ucli.IntFlag{Name: "llm-max-input", Value: 3000, EnvVars: []string{"CTX_LLM_MAX_INPUT"},
		Usage: "send at most `N` tokens of an output (its head, error lines and tail); 0: whole"},
	llmConcurrencyFlag, llmMaxCallsFlag, llmTimeoutFlag, llmCacheFlag,
}

// modelRun asks a model for the summaries of one run of ctx-summarize.
type modelRun struct {
	client  *llm.Client
	workers int
	// closeCache closes the cache's file or archive; nil without a cache.
	closeCache func() error
	// What went wrong, for the one warning line: fallbacks that are the
	// model's failures, by reason, and the first failure's message.
	failed map[string]int
	asked  int
	first  error
}

// newModelRun makes the client of the --llm flags.
func (e *Env) newModelRun() (*modelRun, error) {
	client, closeCache, err := e.newLLMClient(summarize.AnswerTokens)
	if err != nil {
		return nil, err
	}
	return &modelRun{client: client, closeCache: closeCache, workers: e.Int(llmConcurrencyFlag.Name), failed: map[string]int{}}, nil
}

// newLLMClient makes a client of the endpoint flags, whose answers have at
// most answerCap tokens, and opens its cache (llmCache), returning how to
// close it (nil without a cache). The key comes from the
// environment variable that --llm-key-env names, never from a flag, which
// ps would show.
func (e *Env) newLLMClient(answerCap int) (*llm.Client, func() error, error) {
	cfg := llm.Defaults()
	// An empty twin is no setting, as an empty CTX_WINDOW is: urfave/cli
	// would take it, and an empty CTX_LLM_URL would hide OPENAI_BASE_URL.
	cfg.URL = cmp.Or(e.String(llmURLFlag.Name), os.Getenv("OPENAI_BASE_URL"), defaultLLMURL)
	cfg.Model = cmp.Or(e.String(llmModelFlag.Name), defaultLLMModel)
	cfg.Key = os.Getenv(cmp.Or(e.String(llmKeyEnvFlag.Name), defaultKeyEnv))
	cfg.CapField = cmp.Or(e.String(llmCapFieldFlag.Name), llm.MaxTokens)
	cfg.Cap = answerCap
	cfg.Concurrency = e.Int(llmConcurrencyFlag.Name)
	cfg.MaxCalls = e.Int(llmMaxCallsFlag.Name)
	cfg.Timeout = e.Duration(llmTimeoutFlag.Name)
	var closeCache func() error
	var err error
	if cfg.Cache, closeCache, err = e.llmCache(); err != nil {
		return nil, nil, err
	}
	client, err := llm.New(cfg)
	if err != nil {
		if closeCache != nil {
			closeCache()
		}
		return nil, nil, Usagef("--llm: %v", err)
	}
	return client, closeCache, nil
}

// llmCache opens the cache of --llm's answers, and returns how to close it:
// the file --llm-cache names; else, with an archive (--archive,
// CTX_ARCHIVE), the archive, where the answers live beside the outputs
// they summarize; else a file in the user's cache directory. None with
// --llm-cache off, or where the system has no cache directory.
func (e *Env) llmCache() (llm.Cache, func() error, error) {
	path := e.String(llmCacheFlag.Name)
	switch {
	case path == cacheOff:
		return nil, nil, nil
	case path == "" && e.String(ArchiveFlag.Name) != "":
		a, err := e.keepArchive()
		if err != nil {
			return nil, nil, err
		}
		return a.LLMCache(), a.Close, nil
	case path == "":
		if path, _ = llm.DefaultCachePath(); path == "" {
			return nil, nil, nil
		}
	}
	cache, err := llm.OpenFileCache(path)
	if err != nil {
		return nil, nil, Failf("--llm-cache: %v", err)
	}
	return cache, cache.Close, nil
}

// answers asks the model the prompts of t, and counts what asking cost.
// The same prompt (an unchanged file read again) is asked once.
func (m *modelRun) answers(f *summarize.Filter, t *transcript.Transcript) *summarize.Answers {
	before := m.client.Stats()
	prompts := f.Prompts(t)
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
	for _, p := range prompts {
		j := first[[2]string{p.System, p.User}]
		if err := errs[j]; err != nil {
			a.Failed[p.Result.Index] = llm.Reason(err)
			if m.first == nil {
				m.first = err
			}
			continue
		}
		a.Text[p.Result.Index] = answers[j]
	}
	now := m.client.Stats()
	a.Cost = summarize.Cost{Requests: now.Requests - before.Requests, CacheHits: now.CacheHits - before.CacheHits,
		PromptTokens: now.PromptTokens - before.PromptTokens, CompletionTokens: now.CompletionTokens - before.CompletionTokens}
	return a
}

// run summarizes t with the model's answers, and keeps the model's
// failures for the warning.
func (m *modelRun) run(f *summarize.Filter, t *transcript.Transcript) summarize.Report {
	rep := f.WithAnswers(m.answers(f, t)).Run(t)
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
func (m *modelRun) close(e *Env) {
	closeLLM(e, m.client, m.closeCache)
	warnFallbacks(e, m.client.Model(), m.failed, m.asked, "results, which have the rule-based summary", oneLineError(m.first))
}

// warnFallbacks warns, in one line, of what the rules did because the
// model gave no usable answer: how many of asked (the unit, then what the
// rules did, in what), why, and the first failure.
func warnFallbacks(e *Env, model string, failed map[string]int, asked int, what, first string) {
	n := 0
	for _, c := range failed {
		n += c
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(e.Stderr, "%s: warning: model %s gave no usable answer for %s of %s %s: %s (first: %s)\n",
		e.Name, model, textfmt.Int(n), textfmt.Int(asked), what, summarize.ModelReport{Fallbacks: failed}.FallbackList(), first)
}

// closeLLM closes a client's cache, and warns when answers could not be
// kept: the next run asks for them again.
func closeLLM(e *Env, client *llm.Client, closeCache func() error) {
	if closeCache != nil {
		if err := closeCache(); err != nil && client.CacheError() == nil {
			fmt.Fprintf(e.Stderr, "%s: warning: --llm-cache: %v\n", e.Name, err)
		}
	}
	if err := client.CacheError(); err != nil {
		fmt.Fprintf(e.Stderr, "%s: warning: answers not cached: %v\n", e.Name, err)
	}
}

func oneLineError(err error) string {
	if err == nil {
		return ""
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
