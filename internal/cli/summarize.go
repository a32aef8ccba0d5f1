package cli

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/textfmt"
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

   list (Glob, LS, ls, find)     files and directories, and up to 30 of their paths
   tree                          tree's counts and the top-level entries
   read (Read, cat, sed -n)      up to 20 lines whole, else the first and last 10
   git status                    the branch, and the staged, modified and untracked paths
   git diff, log, show           commits, files changed with +/- counts, the first 300 chars
   search (Grep, grep, rg)       matches and files (up to 30), and the first 3 matches
   shell (Bash, exec_command)    the test counts (45 passed, 2 failed), every line that
                                 says what went wrong, the last 3 lines, the paths named
   web (WebFetch, curl)          the URL or query and the first 5 lines
   code maps (repo_map, …)       the files and the first 500 chars
   anything else                 the first and last 5 lines

Never summarized: edits and writes, failed calls, results that another filter's marker points
at or that already start with a [ctx-…] marker, short outputs (10 lines, 20 for a read), the
latest read of each file (its most recent state; --summarize-latest-reads lets it go), and the
protected recent work. Old means outside every protected window: the last --keep-recent
results, the results of the last --protect-turns user turns (OpenCode's rule; off by
default: an autonomous run of a few prompts would keep everything), and the recent work: the
last --protect-calls results or the last --protect-tokens tokens of tool output, whichever
holds fewer (the result that crosses the tokens included). Nothing changes unless the history
is over --trigger tokens and the summaries save at least --min-savings tokens. --mode clear
writes one line instead of a summary (and the lines that say what went wrong).

With --budget, the windows and --min-savings play no part: when the whole history (as ctx-count
counts it) is over the budget, old results are replaced, the cheapest loss first, until it
fits: 1. summaries, oldest first; 2. one-line clears, oldest first; 3. old edit runs
compressed: the text an edit changed leaves its arguments, which keep the file and the intent,
and the run's first result lists its edits with what each did; 4. the latest reads of files.
Never touched: failed results and the lines that say what went wrong, the last --keep-recent
results (3 under a budget), and the active edit loop (the file of the last edit from its
latest read before it, and the files edited since: their latest reads, their edits, the runs
that checked them). When even that cannot fit, the smallest history the rules reach is written,
one line on stderr says where its tokens are, and the exit status is 3. --budget and --trigger
take a share of --window (75%, PatchPal's COMPACT_THRESHOLD). See docs/summarize.md.

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

Under --budget, the model writes the summaries the ladder makes (steps 1 and 4), where shorter.
Answers are cached (in the --llm-cache file, else in the archive of --archive when one is set,
else in the user's cache directory), so a second run over the same history sends no request;
--stats adds the model's summaries, fallbacks, requests, cache hits and tokens. The API key comes
from the environment variable that --llm-key-env names, never from a flag.

EXAMPLES:
   ctx-summarize session.jsonl > smaller.jsonl
   ctx-summarize --protect-tokens 8000 --protect-turns 1 --min-savings 0 --stats s.jsonl
   ctx-summarize --mode clear --keep-recent 3 -i ~/.claude/projects/*/*.jsonl
   ctx-summarize --budget 30k --stats s.jsonl > fits.jsonl      # exit 3 when it cannot
   ctx-summarize --window 200k --trigger 75% --budget 50% s.jsonl
   ctx-dedupe < s.jsonl | ctx-truncate | ctx-summarize | ctx-count --before s.jsonl
   ctx-summarize --llm --stats s.jsonl > smaller.jsonl              # Ollama on localhost
   ctx-summarize --llm --llm-url https://api.openai.com/v1 --llm-model gpt-4o-mini \
       --llm-cap-field max_completion_tokens s.jsonl > smaller.jsonl

The transcript goes to stdout (or back to FILE with -i, or to -o DIR). --stats prints one line
a file on stderr; --json prints that report as JSON on stderr instead.`,
	Flags: append(FilterFlags(
		&ucli.IntFlag{Name: "protect-tokens", Value: summarize.Defaults(nil).ProtectTokens, EnvVars: []string{"CTX_PROTECT_TOKENS"},
			Usage: "keep whole the recent work: the most recent tool output up to `N` tokens, at most --protect-calls results; 0: no limit in tokens (both 0: no such window)"},
		&ucli.IntFlag{Name: "protect-calls", Value: summarize.Defaults(nil).ProtectCalls, EnvVars: []string{"CTX_PROTECT_CALLS"},
			Usage: "keep whole the recent work: the last `N` tool results, at most --protect-tokens tokens of them; 0: no limit in results (both 0: no such window)"},
		&ucli.IntFlag{Name: "protect-turns", Value: summarize.Defaults(nil).ProtectTurns, EnvVars: []string{"CTX_PROTECT_TURNS"},
			Usage: "keep whole the results of the last `N` user turns (OpenCode's rule: 2); 0: off"},
		&ucli.BoolFlag{Name: "summarize-latest-reads", EnvVars: []string{"CTX_SUMMARIZE_LATEST_READS"},
			Usage: "let the latest read of a file be summarized too; by default it stays whole, as the file's most recent state"},
		&ucli.IntFlag{Name: "keep-recent", EnvVars: []string{"CTX_KEEP_RECENT"},
			Usage: "keep whole the last `N` tool results; 0: off (3 under a --budget)"},
		&ucli.IntFlag{Name: "min-savings", Value: summarize.Defaults(nil).MinSavings, EnvVars: []string{"CTX_MIN_SAVINGS"},
			Usage: "change nothing unless the summaries save at least `N` tokens"},
		&ucli.StringFlag{Name: "trigger", Value: "0", EnvVars: []string{"CTX_TRIGGER"},
			Usage: "change nothing unless the history has more than `N` tokens (30000, 140k) or that share of --window (75%); 0: off"},
		&ucli.StringFlag{Name: "budget", Value: "0", EnvVars: []string{"CTX_BUDGET"},
			Usage: "when the history has more than `N` tokens (30000, 140k) or that share of --window (70%), replace old results, the cheapest loss first, until it fits; exit status 3 when it cannot; 0: off. " + budgetTwin},
		windowFlag("the model's context window in `N` tokens, of which --budget and --trigger can be shares"),
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
	MoreExitCodes: `
   3  --budget: a history does not fit the budget; the smallest history the rules reach is
      written, and one line on stderr says where its tokens are`,
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
	budget, window, err := e.budget()
	if err != nil {
		return err
	}
	trigger, err := tokenAmount("trigger", e.String("trigger"), window)
	if err != nil {
		return err
	}
	keepRecent := e.Int("keep-recent")
	if budget > 0 && !e.IsSet("keep-recent") {
		keepRecent = budgetKeepRecent
	}
	opts := summarize.Options{
		Counter:              ctr,
		Measure:              e.Bool(StatsFlag.Name),
		Mode:                 summarize.Mode(e.String("mode")),
		ProtectTokens:        e.Int("protect-tokens"),
		ProtectCalls:         e.Int("protect-calls"),
		ProtectTurns:         e.Int("protect-turns"),
		SummarizeLatestReads: e.Bool("summarize-latest-reads"),
		KeepRecent:           keepRecent,
		MinSavings:           e.Int("min-savings"),
		Trigger:              trigger,
		Budget:               budget,
		ExcludeTools:         e.StringSlice("exclude-tools"),
		KeepMirrors:          e.Bool("keep-mirrors"),
		ModelInput:           e.Int("llm-max-input"),
		Handle:               e.Handles(),
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
		if b := r.Budget; b != nil && b.Over() {
			e.overBudget = true
			e.note(e.InputName() + ": " + b.Why())
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

// defaultWindow is --window's default: Claude's context window.
const defaultWindow = 200000

// windowFlag is --window, the model's context window, of which a --budget
// can be a share; ctx-count and ctx-summarize read it alike, so that
// CTX_WINDOW and CTX_BUDGET name the same number of tokens to both.
func windowFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: "window", Value: textfmt.Int(defaultWindow), EnvVars: []string{"CTX_WINDOW"}, Usage: usage}
}

// budgetTwin is what the --help of ctx-count and ctx-summarize says of
// CTX_BUDGET, which both read: one budget, the same number of tokens to
// both.
const budgetTwin = "CTX_BUDGET is the twin of both ctx-summarize --budget (fit the history to it) and ctx-count --budget (show how much of it the history uses): one budget, the same number to both"

// budget reads --budget and --window: the budget in tokens (0: none) and
// the window it may be a share of. An empty CTX_WINDOW is the default.
func (e *Env) budget() (budget, window int, err error) {
	window, err = tokenAmount("window", e.String("window"), 0)
	if e.String("window") == "" {
		window = defaultWindow
	}
	if err != nil {
		return 0, 0, err
	}
	budget, err = tokenAmount("budget", e.String("budget"), window)
	return budget, window, err
}

// budgetKeepRecent is --keep-recent under a budget, when not given: the
// last results are what the agent just did (Anthropic's context editing
// keeps 3 tool uses).
const budgetKeepRecent = 3

// tokenAmount reads a number of tokens as a flag gives it: 30000, 30,000,
// 140k, 1.5m, or with a window, a share of it: 70%. Empty is 0.
func tokenAmount(flag, s string, window int) (int, error) {
	v := strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	mult := 1.0
	switch {
	case v == "":
		return 0, nil
	case strings.HasSuffix(v, "%") && window > 0:
		v, mult = strings.TrimSuffix(v, "%"), float64(window)/100
	case strings.HasSuffix(v, "%"):
		return 0, Usagef("--%s %s: a share needs a --window", flag, s)
	case strings.HasSuffix(v, "k"), strings.HasSuffix(v, "K"):
		v, mult = v[:len(v)-1], 1e3
	case strings.HasSuffix(v, "m"), strings.HasSuffix(v, "M"):
		v, mult = v[:len(v)-1], 1e6
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) || n*mult > math.MaxInt32 {
		return 0, Usagef("--%s %s: want a number of tokens (30000, 140k) or a share of --window (70%%)", flag, s)
	}
	return int(math.Round(n * mult)), nil
}
