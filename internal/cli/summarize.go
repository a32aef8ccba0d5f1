package cli

import (
	"encoding/json"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Summarize is ctx-summarize.
var Summarize = Command{
	Name:      "ctx-summarize",
	Usage:     "replace old tool results with short summaries made for their kind",
	ArgsUsage: "[FILE ...]",
	Description: `Reads a transcript (Claude Code JSONL, Codex rollout, OpenAI or Anthropic messages) from
FILE or stdin and writes it back in the same format, with each old tool result replaced by a
summary made for its kind. A summary keeps what must never be lost: the command or path, success
or failure and the exit code, error lines, counts and file paths.

   list (Glob, LS, ls, find)     files and directories, and a few of their paths
   tree                          tree's counts and the top-level entries
   read (Read, cat, sed -n)      up to 20 lines whole, else the first and last 10
   git status                    the branch, and the staged, modified and untracked paths
   git diff, log, show           commits, files changed with +/- counts, the first 300 chars
   search (Grep, grep, rg)       matches and files, and the first 3 matches
   shell (Bash, exec_command)    the test counts (45 passed, 2 failed), the last error
                                 lines, the last 3 lines
   web (WebFetch, curl)          the URL or query and the first 5 lines
   code maps (repo_map, …)       the files and the first 500 chars
   anything else                 the first and last 5 lines

Never summarized: edits and writes, failed calls, results that another filter's marker points
at or that already start with a [ctx-…] marker, short outputs (10 lines, 20 for a read), and
the protected recent work. Old means outside every protected window: the last --keep-recent
results, the results of the last --protect-turns user turns, and the most recent tool output
up to --protect-tokens (the result that crosses it included). Nothing changes unless the
history is over --trigger tokens and the summaries save at least --min-savings tokens: with
the defaults, a short session is left as it is. --mode clear writes one line instead of a
summary. See docs/summarize.md.

A summary starts with a marker line, then the lines it kept:

   [ctx-summarize] Bash ` + "`go test ./...`" + `: exit 0; 45 passed, 2 skipped; 410 lines (10,765 chars), the last 3 lines shown.
   [407 lines omitted]
   ok      example.com/app/store   0.012s

With --llm, a model writes the summaries, through any OpenAI-compatible endpoint (Ollama, vLLM,
llama.cpp's server, LM Studio, OpenAI): the same results are summarized, each by a model where
its summary is shorter than the rule-based one, which it keeps otherwise, and wherever the model
fails (an error status, a timeout, empty content, an answer cut at the cap: one warning line,
exit 0). A model's summary starts with the rules' marker line, tagged with the model's name,
then the model's text (at most 100 words), then the error lines and paths of the rule-based
summary that the text left out, word for word:

   [ctx-summarize, model qwen2.5-coder:1.5b] Read internal/store/store.go: 156 lines (5,016 chars).
   <the model's text: what the file defines, in at most 100 words>

Answers are cached (--llm-cache), so a second run over the same history sends no request;
--stats adds the model's summaries, fallbacks, requests, cache hits and tokens. The API key comes
from the environment variable that --llm-key-env names, never from a flag.

EXAMPLES:
   ctx-summarize session.jsonl > smaller.jsonl
   ctx-summarize --protect-tokens 8000 --protect-turns 1 --min-savings 0 --stats s.jsonl
   ctx-summarize --mode clear --keep-recent 3 -i ~/.claude/projects/*/*.jsonl
   ctx-dedupe < s.jsonl | ctx-truncate | ctx-summarize | ctx-count --before s.jsonl
   ctx-summarize --llm --stats s.jsonl > smaller.jsonl              # Ollama on localhost
   ctx-summarize --llm --llm-url https://api.openai.com/v1 --llm-model gpt-4o-mini \
       --llm-cap-field max_completion_tokens s.jsonl > smaller.jsonl

The transcript goes to stdout (or back to FILE with -i, or to -o DIR). --stats prints one line
a file on stderr; --json prints that report as JSON on stderr instead.`,
	Flags: append(FilterFlags(
		&ucli.IntFlag{Name: "protect-tokens", Value: summarize.Defaults(nil).ProtectTokens, EnvVars: []string{"CTX_PROTECT_TOKENS"},
			Usage: "keep whole the most recent tool output, up to `N` tokens; 0: off"},
		&ucli.IntFlag{Name: "protect-turns", Value: summarize.Defaults(nil).ProtectTurns, EnvVars: []string{"CTX_PROTECT_TURNS"},
			Usage: "keep whole the results of the last `N` user turns; 0: off"},
		&ucli.IntFlag{Name: "keep-recent", EnvVars: []string{"CTX_KEEP_RECENT"},
			Usage: "keep whole the last `N` tool results; 0: off"},
		&ucli.IntFlag{Name: "min-savings", Value: summarize.Defaults(nil).MinSavings, EnvVars: []string{"CTX_MIN_SAVINGS"},
			Usage: "change nothing unless the summaries save at least `N` tokens"},
		&ucli.IntFlag{Name: "trigger", EnvVars: []string{"CTX_TRIGGER"},
			Usage: "change nothing unless the history has more than `N` tokens; 0: off"},
		&ucli.StringSliceFlag{Name: "exclude-tools", EnvVars: []string{"CTX_EXCLUDE_TOOLS"},
			Usage: "never summarize the results of the tools `NAME,...` (any case); repeatable"},
		&ucli.StringFlag{Name: "mode", Value: string(summarize.ModeSummary), EnvVars: []string{"CTX_MODE"},
			Usage: "what replaces an old result: `MODE` summary (made for the tool's kind) or clear (one line: the tool, its target, the size removed)"},
		&ucli.BoolFlag{Name: "keep-mirrors", EnvVars: []string{"CTX_KEEP_MIRRORS"},
			Usage: "leave the copies of a summarized output that the format keeps beside it (Claude Code's toolUseResult) as they are"},
		&ucli.BoolFlag{Name: "json", EnvVars: []string{"CTX_JSON"},
			Usage: "print the report to stderr as JSON (schema in docs/summarize.md); implies --stats"},
		EncodingFlag,
	), llmFlags...),
	Run: runSummarize,
}

// summarizeReport is ctx-summarize's --json output.
type summarizeReport struct {
	Version  int                `json:"version"`
	Encoding string             `json:"encoding"`
	Mode     string             `json:"mode"`
	Files    []summarize.Report `json:"files"`
}

// summarizeSchema is the version of the --json schema.
const summarizeSchema = 1

func runSummarize(e *Env) error {
	ctr, err := e.Counter()
	if err != nil {
		return err
	}
	opts := summarize.Options{
		Counter:       ctr,
		Measure:       e.Bool(StatsFlag.Name),
		Mode:          summarize.Mode(e.String("mode")),
		ProtectTokens: e.Int("protect-tokens"),
		ProtectTurns:  e.Int("protect-turns"),
		KeepRecent:    e.Int("keep-recent"),
		MinSavings:    e.Int("min-savings"),
		Trigger:       e.Int("trigger"),
		ExcludeTools:  e.StringSlice("exclude-tools"),
		KeepMirrors:   e.Bool("keep-mirrors"),
		ModelInput:    e.Int("llm-max-input"),
		Handle:        e.Handles(),
	}
	f, err := summarize.New(opts)
	if err != nil {
		return Usagef("%v", err)
	}
	var model *modelRun
	if e.Bool("llm") {
		if e.Bool(EachLineFlag.Name) {
			return Usagef("--llm asks the model for one input at a time; --each-line does not go with it yet")
		}
		if opts.Mode == summarize.ModeClear {
			return Usagef("--llm writes summaries; --mode clear writes one line without a model")
		}
		if model, err = e.newModelRun(); err != nil {
			return err
		}
		defer model.close(e)
	}
	asJSON := e.Bool("json")
	if asJSON && e.Bool(EachLineFlag.Name) {
		return Usagef("--json gathers one report of every input; with --each-line, use --stats for a line each")
	}
	if asJSON {
		// The JSON report replaces the --stats lines.
		if err := e.Set(StatsFlag.Name, "false"); err != nil {
			return err
		}
	}
	report := summarizeReport{Version: summarizeSchema, Encoding: ctr.Name(), Mode: string(opts.Mode)}
	err = e.Filter(func(t *transcript.Transcript) (stats.Report, error) {
		var r summarize.Report
		if model != nil {
			r = model.run(f, t)
		} else {
			r = f.Run(t)
		}
		if asJSON {
			r.File = e.InputName()
			report.Files = append(report.Files, r)
		}
		return r.Stats, nil
	})
	if err != nil || !asJSON {
		return err
	}
	enc := json.NewEncoder(e.Stderr)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}
