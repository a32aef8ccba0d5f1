// Package dedupecmd is ctx-dedupe: repeated reads of a file replaced by
// pointers or diffs, as a filter and as Claude Code's PostToolUse hook.
package dedupecmd

import (
	"fmt"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// Command is ctx-dedupe.
var Command = cli.Command{
	Name:      "ctx-dedupe",
	Usage:     "replace repeated reads of a file with pointers, or diffs when it changed",
	ArgsUsage: "[FILE ...]",
	Description: `Reads a transcript (Claude Code JSONL, Codex rollout, OpenAI or Anthropic messages; the
format is detected) from FILE or stdin, and writes it back in the same format with the
repeated reads of a file replaced: agents read the same file again and again, after an
edit, after a compaction, out of caution.

Reads of the same file (relative or absolute under the session's directory) are compared,
whatever tool made them: Read (offset/limit), view_range, cat, cat -n, nl -ba, sed -n 'a,bp',
head -n, tail -n, SWE-agent's open/goto windows. A read that may be replaced is:
  - identical to a whole read of the same lines: a pointer to that read;
  - made of lines a whole read of the file showed, the same (50-120 after 1-200, a tail
    after a cat): a pointer to those lines of that read;
  - changed since the last whole read of its lines (the file was edited): a unified diff
    against that read, when it is shorter than the content (line numbers are stripped
    before diffing);
  - else it stays whole, and the reads after it can point at it.
--keep chooses the reads that stay whole. seed (the default): pointers point up; of the
reads of one file and range the first and the last may not become diffs, nor, with more
than --max-reads reads, --max-reads - 2 more, evenly spaced. latest: the newest read of
each file and range stays whole and the earlier ones point down at later reads, or are
diffs against them (OpenCode's dynamic context pruning). first, for a live loop that runs
it before every request: only the first read of each range stays whole, and a later read
becomes a pointer up or a diff when it arrives and never changes again, so that the
prompt cache holds; with --within N, a re-read points only at a read at most N results
away, which ctx-summarize --loop N+1 after it has not summarized yet.
Failed reads stay whole, and are never pointed at. So do results that other filters replaced
([ctx-...] markers) and results that their markers point at.

A replaced result starts with a marker that names the call it points at:
   [ctx-dedupe] Re-read of src/app.go (lines 1-200; 5,328 chars, 120 lines): identical to the result of call toolu_01AB above; content not repeated here.
   [ctx-dedupe] Re-read of src/app.go (lines 50-120; 2,113 chars, 71 lines): the same text as lines 50-120 of the file in the result of call toolu_01AB above; content not repeated here.
   [ctx-dedupe] Re-read of src/app.go (5,360 chars, 121 lines): changed since the result of call toolu_01AB above; content not repeated here, only a unified diff against it follows (line numbers stripped).
   [ctx-dedupe] Repeated Bash call (git status), 1,204 chars, 12 lines of output: identical to the result of call toolu_01CD above; not repeated here.
Copies of a replaced output that the format keeps beside the result (Claude Code's
toolUseResult, Codex's exec_command_end events) get the marker line too, unless
--keep-mirrors. See docs/dedupe.md and docs/markers.md.

--hook claude-code makes it Claude Code's PostToolUse hook on Read: a read identical to the
last read of the same file and lines in the session's transcript reaches the model as a
pointer to it (docs/hooks.md, examples/hooks).

EXAMPLES:
   ctx-dedupe session.jsonl > smaller.jsonl
   ctx-dedupe --stats -i ~/.claude/projects/*/*.jsonl
   ctx-dedupe --keep latest < s.jsonl > smaller.jsonl
   ctx-dedupe --keep first --within 2 < history.json | ctx-summarize --loop 3   # before every request
   ctx-dedupe --all-tools --keep-recent 10 < s.jsonl | ctx-truncate | ctx-count`,
	Flags: cli.FilterFlags(keep, maxReads, within, noDiff, allTools, keepRecent, keepMirrors, cli.EncodingFlag, cli.HookFlag),
	Run:   runDedupe,
}

var (
	keep = &ucli.StringFlag{Name: "keep", Value: string(dedupe.KeepSeed), EnvVars: []string{"CTX_KEEP"},
		Usage: "the reads that stay whole: `RULE` seed (the first and last of each range, and samples; pointers point up), latest (the newest; earlier reads point down) or first (the first of each range only, for a live loop)"}
	maxReads = &ucli.IntFlag{Name: "max-reads", Value: dedupe.DefaultMaxReads, EnvVars: []string{"CTX_MAX_READS"},
		Usage: "keep at most `N` reads of a file and range whole by their count: the first, the last, and N-2 evenly spaced in between"}
	within = &ucli.IntFlag{Name: "within", EnvVars: []string{"CTX_WITHIN"},
		Usage: "point a re-read only at a read at most `N` results before or after it, for a live loop's pipe with ctx-summarize --loop N+1, which summarizes a result once N+1 results follow it; 0: at any"}
	noDiff = &ucli.BoolFlag{Name: "no-diff", EnvVars: []string{"CTX_NO_DIFF"},
		Usage: "keep a re-read of a changed file whole instead of replacing it with a diff"}
	allTools = &ucli.BoolFlag{Name: "all-tools", EnvVars: []string{"CTX_ALL_TOOLS"},
		Usage: "also replace a call of any other tool (git status, ls, grep...) with the same arguments and output as an earlier one; edits and writes excepted"}
	keepRecent  = cli.KeepRecentFlag("never replace the last `N` tool results")
	keepMirrors = cli.KeepMirrorsFlag("leave the copies of a replaced output that the format keeps beside it (Claude Code's toolUseResult) as they are")
)

func runDedupe(e *cli.Env) error {
	if e.IsSet(cli.HookFlag.Name) {
		return e.Hook(hookHandler(e))
	}
	ctr, err := e.Counter()
	if err != nil {
		return err
	}
	f, err := dedupe.New(dedupe.Options{
		Keep:        dedupe.Keep(e.String(keep.Name)),
		MaxReads:    e.Int(maxReads.Name),
		Within:      e.Int(within.Name),
		NoDiff:      e.Bool(noDiff.Name),
		AllTools:    e.Bool(allTools.Name),
		KeepRecent:  e.Int(keepRecent.Name),
		KeepMirrors: e.Bool(keepMirrors.Name),
		Counter:     ctr,
		Measure:     e.Bool(cli.StatsFlag.Name),
		Handle:      e.Handles(),
	})
	if err != nil {
		return cli.Usagef("--%v", err)
	}
	return cli.Filter(e, f, sharedIDs)
}

// sharedIDs says why results that would be replaced were not: their calls
// share ids, and a marker names a call by its id.
func sharedIDs(r dedupe.Report, _ string) string {
	if r.Shared == 0 {
		return ""
	}
	return fmt.Sprintf("%s left whole: their calls share ids with other calls (%s is one), and a marker names the call it points at by its id",
		textfmt.Plural(r.Shared, "result", "results"), strconv.Quote(r.SharedID))
}
