// Package llmcli is the command line of a model's endpoint, shared by the
// commands that ask one (ctx-summarize --llm, ctx-playbook learn --llm): its
// flags, the client they make, the cache of its answers, and the warning
// line of what the model failed to answer.
package llmcli

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// The defaults of --llm: a small local model on Ollama.
const (
	defaultLLMURL   = "http://localhost:11434/v1"
	defaultLLMModel = "qwen2.5-coder:1.5b"
	defaultKeyEnv   = "OPENAI_API_KEY"
	cacheOff        = "off"
)

// The flags of a model's endpoint, shared by every command that asks one;
// Endpoint is all of them.
var (
	URL = &ucli.StringFlag{Name: "llm-url", Value: defaultLLMURL, EnvVars: []string{"CTX_LLM_URL", "OPENAI_BASE_URL"},
		Usage: "the endpoint's base `URL` (requests go to URL/chat/completions)"}
	Model = &ucli.StringFlag{Name: "llm-model", Value: defaultLLMModel, EnvVars: []string{"CTX_LLM_MODEL"},
		Usage: "the model's `NAME`, as the endpoint knows it"}
	KeyEnv = &ucli.StringFlag{Name: "llm-key-env", Value: defaultKeyEnv, EnvVars: []string{"CTX_LLM_KEY_ENV"},
		Usage: "the environment variable `NAME` that holds the API key (none is sent when it is unset or empty)"}
	CapField = &ucli.StringFlag{Name: "llm-cap-field", Value: llm.MaxTokens, EnvVars: []string{"CTX_LLM_CAP_FIELD"},
		Usage: "the output cap's `FIELD`: max_tokens (Ollama, llama.cpp, vLLM) or max_completion_tokens (OpenAI)"}
	Concurrency = &ucli.IntFlag{Name: "llm-concurrency", Value: llm.Defaults().Concurrency, EnvVars: []string{"CTX_LLM_CONCURRENCY"},
		Usage: "at most `N` requests at once"}
	MaxCalls = &ucli.IntFlag{Name: "llm-max-calls", Value: 1000, EnvVars: []string{"CTX_LLM_MAX_CALLS"},
		Usage: "send at most `N` requests in a run, retries included; 0: no limit"}
	Timeout = &ucli.DurationFlag{Name: "llm-timeout", Value: llm.Defaults().Timeout, EnvVars: []string{"CTX_LLM_TIMEOUT"},
		Usage: "give up on a request after `DURATION`"}
	Cache = &ucli.StringFlag{Name: "llm-cache", EnvVars: []string{"CTX_LLM_CACHE"},
		Usage: "keep answers in `FILE` (default: in the archive of --archive, for a command that has it, when one is set; else ctxkit/llm.jsonl in the user's cache directory); off: keep none"}

	Endpoint = []ucli.Flag{URL, Model, KeyEnv, CapField, Concurrency,
		MaxCalls, Timeout, Cache}
)

// Flag is --llm: usage says what the model is asked.
func Flag(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "llm", EnvVars: []string{"CTX_LLM"}, Usage: usage}
}

// NewClient makes a client of the endpoint flags, whose answers have at
// most answerCap tokens, and opens its cache (openCache), returning how to
// close it (nil without a cache). The key comes from the
// environment variable that --llm-key-env names, never from a flag, which
// ps would show.
func NewClient(e *cli.Env, answerCap int) (*llm.Client, func() error, error) {
	cfg := llm.Defaults()
	// An empty twin is no setting, as an empty CTX_WINDOW is: urfave/cli
	// would take it, and an empty CTX_LLM_URL would hide OPENAI_BASE_URL.
	cfg.URL = cmp.Or(e.String(URL.Name), os.Getenv("OPENAI_BASE_URL"), defaultLLMURL)
	cfg.Model = cmp.Or(e.String(Model.Name), defaultLLMModel)
	cfg.Key = os.Getenv(cmp.Or(e.String(KeyEnv.Name), defaultKeyEnv))
	cfg.CapField = cmp.Or(e.String(CapField.Name), llm.MaxTokens)
	cfg.Cap = answerCap
	cfg.Concurrency = e.Int(Concurrency.Name)
	cfg.MaxCalls = e.Int(MaxCalls.Name)
	cfg.Timeout = e.Duration(Timeout.Name)
	var closeCache func() error
	var err error
	if cfg.Cache, closeCache, err = openCache(e); err != nil {
		return nil, nil, err
	}
	client, err := llm.New(cfg)
	if err != nil {
		if closeCache != nil {
			closeCache()
		}
		return nil, nil, cli.Usagef("--llm: %v", err)
	}
	return client, closeCache, nil
}

// openCache opens the cache of --llm's answers, and returns how to close it:
// the file --llm-cache names; else, with an archive (--archive,
// CTX_ARCHIVE), the archive, where the answers live beside the outputs
// they summarize; else a file in the user's cache directory. None with
// --llm-cache off, or where the system has no cache directory.
func openCache(e *cli.Env) (llm.Cache, func() error, error) {
	path := e.String(Cache.Name)
	switch {
	case path == cacheOff:
		return nil, nil, nil
	case path == "" && e.Archiving():
		a, err := e.OpenArchive()
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
		return nil, nil, cli.Failf("--llm-cache: %v", err)
	}
	return cache, cache.Close, nil
}

// WarnFallbacks warns, in one line, of what the rules did because the
// model gave no usable answer: how many of asked (the unit, then what the
// rules did, in what), why, and the first failure.
func WarnFallbacks(e *cli.Env, model string, failed map[string]int, asked int, what, first string) {
	n := 0
	for _, c := range failed {
		n += c
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(e.Stderr, "%s: warning: model %s gave no usable answer for %s of %s %s: %s (first: %s)\n",
		e.Name, model, textfmt.Int(n), textfmt.Int(asked), what, textfmt.Counts(failed), first)
}

// Close closes a client's cache, and warns when answers could not be
// kept: the next run asks for them again.
func Close(e *cli.Env, client *llm.Client, closeCache func() error) {
	if closeCache != nil {
		if err := closeCache(); err != nil && client.CacheError() == nil {
			fmt.Fprintf(e.Stderr, "%s: warning: --llm-cache: %v\n", e.Name, err)
		}
	}
	if err := client.CacheError(); err != nil {
		fmt.Fprintf(e.Stderr, "%s: warning: answers not cached: %v\n", e.Name, err)
	}
}

func OneLine(err error) string {
	if err == nil {
		return ""
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
