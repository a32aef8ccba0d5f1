// Package summarizecmd is ctx-summarize: old tool results replaced by short
// summaries made for their kind, or by a model (--llm), or to a budget.
package summarizecmd

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/filter"
	"github.com/ctxkit/ctxkit/internal/summarize"
)

// Command is ctx-summarize.
var Command = cli.Command{
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

--loop N is the rule for a pipe run before every request of a live loop: a result is summarized
once it is not among the last N results, and nothing else keeps it whole (no window of tokens,
calls or turns, not the latest read of a file, no minimum, no trigger), so that each result
changes once, near the end of the history, and the prompt cache holds; ctx-dedupe --keep first
--within N-1 before it keeps the rule. ctx-compact does this and weighs each change's cost.

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
   ctx-dedupe --keep first --within 2 < history.json | ctx-summarize --loop 3  # every request
   ctx-dedupe < s.jsonl | ctx-truncate | ctx-summarize | ctx-count --before s.jsonl
   ctx-summarize --llm --stats s.jsonl > smaller.jsonl              # Ollama on localhost
   ctx-summarize --llm --llm-url https://api.openai.com/v1 --llm-model gpt-4o-mini \
       --llm-cap-field max_completion_tokens s.jsonl > smaller.jsonl

The transcript goes to stdout (or back to FILE with -i, or to -o DIR). --stats prints one line
a file on stderr; --json prints that report as JSON on stderr instead.`,
	Flags: append(cli.FilterFlags(protectTokens, protectCalls, protectTurns, summarizeLatestReads, keepRecent, minSavings,
		trigger, budget, window, loop, excludeTools, mode, keepMirrors, jsonFlag, cli.EncodingFlag), llmFlags...),
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

var (
	protectTokens = &ucli.IntFlag{Name: "protect-tokens", Value: summarize.Defaults(nil).ProtectTokens, EnvVars: []string{"CTX_PROTECT_TOKENS"},
		Usage: "keep whole the recent work: the most recent tool output up to `N` tokens, at most --protect-calls results; 0: no limit in tokens (both 0: no such window)"}
	protectCalls = &ucli.IntFlag{Name: "protect-calls", Value: summarize.Defaults(nil).ProtectCalls, EnvVars: []string{"CTX_PROTECT_CALLS"},
		Usage: "keep whole the recent work: the last `N` tool results, at most --protect-tokens tokens of them; 0: no limit in results (both 0: no such window)"}
	protectTurns = &ucli.IntFlag{Name: "protect-turns", Value: summarize.Defaults(nil).ProtectTurns, EnvVars: []string{"CTX_PROTECT_TURNS"},
		Usage: "keep whole the results of the last `N` user turns (OpenCode's rule: 2); 0: off"}
	summarizeLatestReads = &ucli.BoolFlag{Name: "summarize-latest-reads", EnvVars: []string{"CTX_SUMMARIZE_LATEST_READS"},
		Usage: "let the latest read of a file be summarized too; by default it stays whole, as the file's most recent state"}
	keepRecent = cli.KeepRecentFlag("keep whole the last `N` tool results; 0: off (3 under a --budget)")
	minSavings = &ucli.IntFlag{Name: "min-savings", Value: summarize.Defaults(nil).MinSavings, EnvVars: []string{"CTX_MIN_SAVINGS"},
		Usage: "change nothing unless the summaries save at least `N` tokens"}
	trigger = &ucli.StringFlag{Name: "trigger", Value: "0", EnvVars: []string{"CTX_TRIGGER"},
		Usage: "change nothing unless the history has more than `N` tokens (30000, 140k) or that share of --window (75%); 0: off"}
	budget = cli.BudgetFlag("0", "when the history has more than `N` tokens (30000, 140k) or that share of --window (70%), replace old results, the cheapest loss first, until it fits; exit status 3 when it cannot; 0: off.")
	window = cli.WindowFlag("the model's context window in `N` tokens, of which --budget and --trigger can be shares")
	loop   = &ucli.IntFlag{Name: "loop", EnvVars: []string{"CTX_LOOP"},
		Usage: "the live loop's rule: summarize a result once it is not among the last `N` results, whatever else would keep it whole, so that each result changes once and the prompt cache holds (docs/summarize.md); 0: off; not with --budget"}
	excludeTools = &ucli.StringSliceFlag{Name: "exclude-tools", EnvVars: []string{"CTX_EXCLUDE_TOOLS"},
		Usage: "never summarize the results of the tools `NAME,...` (any case); repeatable"}
	mode        = cli.ModeFlag(string(summarize.ModeSummary), "what replaces an old result: `MODE` summary (made for the tool's kind) or clear (one line: the tool, its target, the size removed)")
	keepMirrors = cli.KeepMirrorsFlag("leave the copies of a summarized output that the format keeps beside it (Claude Code's toolUseResult) as they are")
	jsonFlag    = cli.JSONFlag("print the report to stderr as JSON (schema in docs/summarize.md); implies --stats")
)

func runSummarize(e *cli.Env) error {
	ctr, err := e.Counter()
	if err != nil {
		return err
	}
	limit, win, err := e.Budget()
	if err != nil {
		return err
	}
	over, err := cli.TokenAmount(trigger.Name, e.String(trigger.Name), win)
	if err != nil {
		return err
	}
	recent := e.Int(keepRecent.Name)
	if limit > 0 && !e.IsSet(keepRecent.Name) {
		recent = budgetKeepRecent
	}
	opts := summarize.Options{
		Counter:              ctr,
		Measure:              e.Bool(cli.StatsFlag.Name),
		Mode:                 summarize.Mode(e.String(mode.Name)),
		ProtectTokens:        e.Int(protectTokens.Name),
		ProtectCalls:         e.Int(protectCalls.Name),
		ProtectTurns:         e.Int(protectTurns.Name),
		SummarizeLatestReads: e.Bool(summarizeLatestReads.Name),
		KeepRecent:           recent,
		MinSavings:           e.Int(minSavings.Name),
		Trigger:              over,
		Budget:               limit,
		ExcludeTools:         e.StringSlice(excludeTools.Name),
		KeepMirrors:          e.Bool(keepMirrors.Name),
		ModelInput:           e.Int(llmMaxInput.Name),
		Loop:                 e.Int(loop.Name),
		Handle:               e.Handles(),
	}
	f, err := summarize.New(opts)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	var run filter.Filter[summarize.Report] = f
	if e.Bool(llmFlag.Name) {
		if e.Bool(cli.EachLineFlag.Name) {
			return cli.Usagef("--llm asks the model for one input at a time; --each-line does not go with it yet")
		}
		if opts.Mode == summarize.ModeClear {
			return cli.Usagef("--llm writes summaries; --mode clear writes one line without a model")
		}
		model, err := newModelFilter(e, f)
		if err != nil {
			return err
		}
		defer model.close(e)
		run = model
	}
	asJSON := e.Bool(jsonFlag.Name)
	if asJSON && e.Bool(cli.EachLineFlag.Name) {
		return cli.Usagef("--json gathers one report of every input; with --each-line, use --stats for a line each")
	}
	if asJSON {
		// The JSON report replaces the --stats lines.
		if err := e.Set(cli.StatsFlag.Name, "false"); err != nil {
			return err
		}
	}
	report := summarizeReport{Version: summarizeSchema, Encoding: ctr.Name(), Mode: string(opts.Mode)}
	err = cli.Filter(e, run, func(r summarize.Report, where string) string {
		if asJSON {
			r.File = where
			report.Files = append(report.Files, r)
		}
		if b := r.Budget; b != nil && b.Over() {
			e.SetStatus(cli.ExitOverBudget)
			return b.Why()
		}
		return ""
	})
	if err != nil || !asJSON {
		return err
	}
	return cli.WriteJSON(e.Stderr, report)
}

// budgetKeepRecent is --keep-recent under a budget, when not given: the
// last results are what the agent just did (Anthropic's context editing
// keeps 3 tool uses).
const budgetKeepRecent = 3
