// Package compactcmd is ctx-compact: the live loop's filter, which
// compacts a history so that the prompt cache holds, and the replay that
// prices a session request by request, as it was and compacted.
package compactcmd

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Command is ctx-compact.
var Command = cli.Command{
	Name:      "ctx-compact",
	Usage:     "compact a live agent loop's history so that the prompt cache holds; --replay prices it",
	ArgsUsage: "[FILE ...]",
	Description: `Reads a transcript (Claude Code JSONL, Codex rollout, OpenAI or Anthropic messages, SWE-agent
trajectories) from FILE or stdin and writes it back in the same format, compacted as a live
agent loop should send it on its next request.

Every API caches the prompt's prefix: a token read from the cache costs a tenth of the input
price or less, and a change to an old message makes everything after it a cache write again.
A filter that rewrites old results on every request sends fewer tokens and pays more. So
ctx-compact changes each result at most twice in its life, near the end of the history:

   on arrival   before the model has seen it, which costs nothing: a long command output is
                cut to its head, its tail and the lines that say what failed (ctx-truncate's
                rules; --no-cut), and a re-read of a file that a whole read above shows the
                same points up at it (ctx-dedupe --keep first; --no-dedupe);
   once used    out of the window (the results of the last --recent model turns), a result is
                replaced by its summary (ctx-summarize's, or one line with --mode clear), an
                edit's or a write's arguments by a stub without the text they changed (the
                text a command's heredoc wrote to a file, too: cat > F <<EOF), and an edit's
                result by its first line (--keep-edits leaves edits whole), when the cost model
                says it pays; but what is still worth something to the agent stays whole: the
                text of a file it read, which it edits and writes from, often many turns later
                (--replace-reads), and a short result the model referred to while it was recent
                (--keep-referred).

The cost model: replacing the results that left the window from one on makes every token
after the first of them a cache write instead of a read on this request; what they save is
read from the cache on every later request, and a session is expected to run --horizon times
the requests it has run. The point of greatest worth wins, if it is worth anything. Prices are
those of the model at work (--model, else the transcript's) from the embedded table (--price,
--prices change it); --cache-ttl says which write Anthropic bills (auto: as the session's own
records show). Failed results, the lines that say what went wrong, and results a pointer points
at are never replaced. The output is a function of the history alone: run it before every
request, from the whole history, and two processes, or a restart, send the same bytes. A
second run changes nothing. See docs/compact.md.

With --replay, nothing is written: each FILE (or every session under a DIR) is replayed request
by request, as it was sent and as ctx-compact would have sent it (request k sends the history
before the model's k-th turn; it reads from the cache its longest common prefix with the
request before, and writes the rest), and priced: a table of requests, tokens sent, cache reads
and writes, output, the cost in dollars and as a ratio, the peak context and its ratio, and the
cache breaks, two rows a session and a total; then what the compacted requests hid that the
model went on to use (the names, paths and numbers it wrote that only a tool result had shown),
and the cost with a request to fetch back each result that showed them. --prefix counts the
system prompt and tool definitions that a transcript does not hold. --json for scripts.

EXAMPLES:
   ctx-compact session.jsonl > request.jsonl
   ctx-compact --stats --archive ~/archive.db < history.json > request.json
   ctx-compact --mode clear --recent 2 -o compacted ~/.codex/sessions
   ctx-compact --replay ~/.claude/projects
   ctx-compact --replay --prefix 20k --json ~/.claude/projects/-home-dev-app/ > replay.json
   ctx-compact --replay --model claude-sonnet-4-5 --cache-ttl 5m session.jsonl
   ctx-compact --replay --price claude-opus-4-6:cache_read=0.4 --prices my-prices.json DIR
   ctx-compact --replay --horizon 1 --no-cut session.jsonl    # what a knob is worth
   ctx-compact --replay --replace-reads session.jsonl         # cheaper, and what it hides

The transcript goes to stdout (or back to FILE with -i, or to -o DIR). --stats prints one line
a file on stderr; --json prints that report as JSON on stderr instead (with --replay, the
replay's report on stdout).`,
	Flags: cli.FilterFlags(append(policy.Flags(), cli.PriceFlag, cli.PricesFlag, replayFlag, prefix, keepMirrors, jsonFlag, cli.EncodingFlag)...),
	Run:   runCompact,
}

var (
	policy     = NewPolicyFlags("")
	replayFlag = &ucli.BoolFlag{Name: "replay", EnvVars: []string{"CTX_REPLAY"},
		Usage: "write no transcript: replay each session request by request, as it was and compacted, and report what each cost"}
	prefix = &ucli.StringFlag{Name: "prefix", Value: "0", EnvVars: []string{"CTX_PREFIX"},
		Usage: "with --replay, the `N` tokens (20000, 20k) an agent sends before the history on every request, which a transcript does not hold: system prompt, tool definitions; read from the cache after the first request"}
	keepMirrors = cli.KeepMirrorsFlag("leave the copies of a replaced output that the format keeps beside it (Claude Code's toolUseResult) as they are")
	jsonFlag    = cli.JSONFlag("print the report as JSON (schema in docs/compact.md): on stderr instead of the --stats lines, or with --replay on stdout")
)

// compactReport is ctx-compact's --json output, without --replay.
type compactReport struct {
	Version  int              `json:"version"`
	Encoding string           `json:"encoding"`
	Mode     string           `json:"mode"`
	Files    []compact.Report `json:"files"`
}

// schema is the version of both --json schemas.
const schema = 1

// setup is what both modes build from the flags: the policy, with the
// options of ctx-compact's own.
type setup struct{ *Policy }

func newSetup(e *cli.Env) (*setup, error) {
	ctr, err := e.Counter()
	if err != nil {
		return nil, err
	}
	prices, err := e.Prices()
	if err != nil {
		return nil, err
	}
	p, err := policy.Policy(e, ctr, prices, func(opts *compact.Options) {
		opts.KeepMirrors, opts.Measure, opts.Handle = e.Bool(keepMirrors.Name), e.Bool(cli.StatsFlag.Name) || e.Bool(jsonFlag.Name), e.Handles()
	})
	return &setup{p}, err
}

// Apply compacts a transcript with the filter its cache's life calls for.
func (s *setup) Apply(t *transcript.Transcript) compact.Report {
	return s.For(t.Bytes(), t.Format).Apply(t)
}

func runCompact(e *cli.Env) error {
	s, err := newSetup(e)
	if err != nil {
		return err
	}
	if e.Bool(replayFlag.Name) {
		return runReplay(e, s)
	}
	if e.IsSet(prefix.Name) {
		return cli.Usagef("--prefix is the replay's: give --replay too")
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
	report := compactReport{Version: schema, Encoding: s.Counter.Name(), Mode: string(s.Mode), Files: []compact.Report{}}
	var note func(compact.Report, string) string
	if asJSON {
		note = func(r compact.Report, where string) string {
			r.File = where
			report.Files = append(report.Files, r)
			return ""
		}
	}
	if err := cli.Filter(e, s, note); err != nil || !asJSON {
		return err
	}
	return cli.WriteJSON(e.Stderr, report)
}
