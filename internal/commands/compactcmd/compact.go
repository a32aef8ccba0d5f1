// Package compactcmd is ctx-compact: the live loop's filter, which
// compacts a history so that the prompt cache holds, and the replay that
// prices a session request by request, as it was and compacted.
package compactcmd

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
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
	Flags: cli.FilterFlags(recent, horizon, mode, noCut, noDedupe, keepEdits, replaceReads, keepReferred, model, cli.PriceFlag, cli.PricesFlag, cacheTTL,
		replayFlag, prefix, keepMirrors, jsonFlag, cli.EncodingFlag),
	Run: runCompact,
}

var (
	recent = &ucli.IntFlag{Name: "recent", Value: compact.DefaultWindow, EnvVars: []string{"CTX_RECENT"},
		Usage: "keep whole the results of the last `N` model turns (1: the results the model has not answered yet); a result is replaced once it is older, if it pays"}
	horizon = &ucli.Float64Flag{Name: "horizon", Value: compact.DefaultHorizon, EnvVars: []string{"CTX_HORIZON"},
		Usage: "expect a session that has run k requests to run `H` times k more: what a replacement saves is weighed over them (0: replace only what pays on its own request)"}
	mode  = cli.ModeFlag(string(summarize.ModeSummary), "what replaces a result once used: `MODE` summary (ctx-summarize's, made for the tool's kind) or clear (one line: the tool, its target, the size removed, and the lines that say what went wrong)")
	noCut = &ucli.BoolFlag{Name: "no-cut", EnvVars: []string{"CTX_NO_CUT"},
		Usage: "do not cut long command outputs on arrival"}
	noDedupe = &ucli.BoolFlag{Name: "no-dedupe", EnvVars: []string{"CTX_NO_DEDUPE"},
		Usage: "do not make a re-read that a whole read above shows the same a pointer up at it"}
	keepEdits = &ucli.BoolFlag{Name: "keep-edits", EnvVars: []string{"CTX_KEEP_EDITS"},
		Usage: "leave edits and writes whole: their arguments (and what a command's heredoc writes to a file) and their results"}
	replaceReads = &ucli.BoolFlag{Name: "replace-reads", EnvVars: []string{"CTX_REPLACE_READS"},
		Usage: "replace a read's result once used, as any other (by default the text of a file the agent read stays whole: it edits and writes from it, often many turns later); cheaper, and hides more of what the model goes on to use"}
	keepReferred = &ucli.IntFlag{Name: "keep-referred", Value: compact.DefaultKeepReferred, EnvVars: []string{"CTX_KEEP_REFERRED"},
		Usage: "keep whole a result of at most `N` tokens that the model referred to (wrote a name, path or number it shows) while it was recent; 0: none"}
	model = &ucli.StringFlag{Name: "model", EnvVars: []string{"CTX_MODEL"},
		Usage: "price every request as `MODEL` (a name the price table knows, or one --price gives), for the cost model and the replay; by default, as the model the transcript says answered it"}
	cacheTTL = &ucli.StringFlag{Name: "cache-ttl", Value: ttlAuto, EnvVars: []string{"CTX_CACHE_TTL"},
		Usage: "the life of a cache write, which sets its price: `TTL` 5m (Anthropic's 1.25x input), 1h (2x input, as Claude Code writes), or auto (as the session's own usage records show; else 5m)"}
	replayFlag = &ucli.BoolFlag{Name: "replay", EnvVars: []string{"CTX_REPLAY"},
		Usage: "write no transcript: replay each session request by request, as it was and compacted, and report what each cost"}
	prefix = &ucli.StringFlag{Name: "prefix", Value: "0", EnvVars: []string{"CTX_PREFIX"},
		Usage: "with --replay, the `N` tokens (20000, 20k) an agent sends before the history on every request, which a transcript does not hold: system prompt, tool definitions; read from the cache after the first request"}
	keepMirrors = cli.KeepMirrorsFlag("leave the copies of a replaced output that the format keeps beside it (Claude Code's toolUseResult) as they are")
	jsonFlag    = cli.JSONFlag("print the report as JSON (schema in docs/compact.md): on stderr instead of the --stats lines, or with --replay on stdout")
)

// The values of --cache-ttl.
const (
	ttlAuto = "auto"
	ttl5m   = "5m"
	ttl1h   = "1h"
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

// setup is what both modes build from the flags.
type setup struct {
	ctr    tokens.Counter
	prices *pricing.Table
	ttl    string
	mode   summarize.Mode
	// five and hour are the filter with 5-minute and with 1-hour cache
	// writes: --cache-ttl auto picks one for each session.
	five, hour *compact.Filter
}

func newSetup(e *cli.Env) (*setup, error) {
	ctr, err := e.Counter()
	if err != nil {
		return nil, err
	}
	prices, err := e.Prices()
	if err != nil {
		return nil, err
	}
	s := &setup{ctr: ctr, prices: prices, ttl: e.String(cacheTTL.Name)}
	switch s.ttl {
	case "": // an empty twin is no twin
		s.ttl = ttlAuto
	case ttlAuto, ttl5m, ttl1h:
	default:
		return nil, cli.Usagef("--cache-ttl %s: want 5m, 1h or auto", s.ttl)
	}
	if m := e.String(model.Name); m != "" {
		if _, ok := prices.Lookup(m); !ok {
			return nil, cli.Usagef("--model %s: not in the price table; give its prices with --price %s:input=N,output=N (or --prices FILE)", m, m)
		}
	}
	if e.Int(recent.Name) < 1 {
		return nil, cli.Usagef("--recent %d: want 1 or more (1 keeps whole the results the model has not answered yet)", e.Int(recent.Name))
	}
	opts := compact.Defaults(ctr)
	opts.Prices, opts.Model = prices, e.String(model.Name)
	opts.Window, opts.Horizon = e.Int(recent.Name), e.Float64(horizon.Name)
	opts.Dedupe, opts.KeepEdits = !e.Bool(noDedupe.Name), e.Bool(keepEdits.Name)
	opts.KeepReads, opts.KeepReferred = !e.Bool(replaceReads.Name), e.Int(keepReferred.Name)
	if opts.KeepReferred < 0 {
		return nil, cli.Usagef("--keep-referred %d: want 0 or more tokens", opts.KeepReferred)
	}
	opts.KeepMirrors, opts.Measure, opts.Handle = e.Bool(keepMirrors.Name), e.Bool(cli.StatsFlag.Name) || e.Bool(jsonFlag.Name), e.Handles()
	if e.Bool(noCut.Name) {
		opts.Cut = nil
	}
	switch s.mode = summarize.Mode(e.String(mode.Name)); s.mode {
	case "": // an empty twin is no twin
		s.mode = summarize.ModeSummary
	case summarize.ModeSummary:
	case summarize.ModeClear:
		opts.Summarizer = compact.Clears(ctr)
	default:
		return nil, cli.Usagef("--mode %s: want summary or clear", s.mode)
	}
	if s.five, err = compact.New(opts); err != nil {
		return nil, cli.Usagef("--%v", err)
	}
	opts.HourCache = true
	if s.hour, err = compact.New(opts); err != nil {
		return nil, cli.Usagef("--%v", err)
	}
	return s, nil
}

// hourCache reports whether a session's cache writes last an hour: as
// --cache-ttl says, or as its own usage records show.
func (s *setup) hourCache(data []byte, f transcript.Format) bool {
	switch s.ttl {
	case ttl1h:
		return true
	case ttl5m:
		return false
	}
	return usage.HourCache(usage.Read(data, f))
}

// filterFor is the filter for a session.
func (s *setup) filterFor(data []byte, f transcript.Format) *compact.Filter {
	if s.hourCache(data, f) {
		return s.hour
	}
	return s.five
}

// Apply compacts a transcript with the filter its cache's life calls for.
func (s *setup) Apply(t *transcript.Transcript) compact.Report {
	return s.filterFor(t.Bytes(), t.Format).Apply(t)
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
	report := compactReport{Version: schema, Encoding: s.ctr.Name(), Mode: string(s.mode), Files: []compact.Report{}}
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
