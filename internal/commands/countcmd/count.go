// Package countcmd is ctx-count: a transcript's tokens by role, tool and
// file, many transcripts by group, before and after a filter.
package countcmd

import (
	"bytes"
	"errors"
	"io"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/timespan"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Command is ctx-count.
var Command = cli.Command{
	Name:      "ctx-count",
	Usage:     "count a transcript's tokens by role, tool and file",
	ArgsUsage: "[FILE ...]",
	Description: `Reads transcripts (Claude Code JSONL, Codex rollouts, OpenAI or Anthropic messages; the
format is detected) from the FILEs or stdin and reports their tokens: the total, by role,
by tool (calls, failures, input and result tokens), the largest tool results, and the files
read with the tokens spent re-reading them. Several FILEs get a row each and a total.

What is counted: the text the model sees (message text, thinking, tool arguments and tool
results) with the chosen encoding; images are estimated from their size. JSON syntax,
metadata (ids, timestamps, usage), and lines the model never sees (progress, snapshots) are
not counted. A provider bills a little more: per-message overhead, the system prompt and tool
definitions that a transcript file does not hold. See docs/count.md.

GROUPS (--by): one table of all the transcripts, a row per group, most tokens first, with
the share of tool output, the re-reads, what ctx-dedupe saves and the top tools of each:
   project  the session's working directory      session  the session's id, else the file
   day      each message's local date            file     the transcript file
   model    the model that wrote each message    tool     the tool (text: "(no tool)")
   kind     the tool's kind (a shell call's, its command's)
--since and --until count only the messages written in that span, by the transcripts' own
timestamps (TIMES below). The files are counted --jobs at a time, each let go once counted; a
progress bar shows on stderr when it is a terminal (not with --quiet). See docs/scale.md.
` + costHelp + `
` + partialHelp + `
` + cli.TimesHelp + `
` + htmlHelp + `
EXAMPLES:
   ctx-count session.jsonl
   ctx-count --by project ~/.claude/projects ~/.codex/sessions
   ctx-count --by day --since 2026-05-01 --json ~/.claude/projects
   ctx-count --cost ~/.claude/projects ~/.codex/sessions
   ctx-count --cost --by day --since 2026-05-01 ~/.claude/projects
   ctx-count --each-line < trajectories.jsonl > reports.jsonl
   ctx-count --by project --partial part1/ > 1.json; ctx-count --merge --json 1.json 2.json
   ctx-count --json ~/.claude/projects/*/*.jsonl
   ctx-dedupe < s.jsonl | ctx-count --before s.jsonl
   ctx-count --html session.jsonl > session.html
   cat s.jsonl | ctx-count --tee --budget 200000 | ctx-truncate > out.jsonl`,
	Flags: append([]ucli.Flag{cli.EncodingFlag, jsonFlag, top, budget, window, tee, before, by, since, until, costFlag, cli.PriceFlag, cli.PricesFlag,
		partialFlag, mergeFlag, cli.EachLineFlag, cli.JobsFlag, cli.QuietFlag, cli.FormatFlag, cli.ToolKindFlag,
		htmlFlag, outDir}, policy.Flags()...),
	Run: runCount,
}

var (
	jsonFlag = cli.JSONFlag("print the report as JSON (schema in docs/count.md)")
	top      = &ucli.IntFlag{Name: "top", Value: 10, EnvVars: []string{"CTX_TOP"}, Usage: "list the `N` largest tool results"}
	budget   = cli.BudgetFlag("", "show the total as a share of a budget of `N` tokens (200000, 140k, or a share of --window: 70%): the whole context window, or what ctx-summarize --budget fits a history to.")
	window   = cli.WindowFlag("the model's context window in `N` tokens, of which --budget can be a share")
	tee      = &ucli.BoolFlag{Name: "tee", EnvVars: []string{"CTX_TEE"}, Usage: "pass the transcript through to stdout unchanged and print the report to stderr; if stdout closes early, the report still goes out and the exit status is 1"}
	before   = &ucli.StringFlag{Name: "before", EnvVars: []string{"CTX_BEFORE"}, Usage: "compare with `FILE`, the transcript before filtering: tokens before, after, and saved"}
	by       = &ucli.StringFlag{Name: "by", EnvVars: []string{"CTX_BY"}, Usage: "one table of all the transcripts, a row per `GROUP`: project, day, session, tool, kind, file or model (GROUPS above); with --cost, model (the default), day, project, session or file"}
	since    = cli.SinceFlag("with --by or --cost, count the messages (the requests) written from `TIME` on: " + timespan.Forms)
	until    = cli.UntilFlag("with --by or --cost, count the messages (the requests) written before `TIME` (as --since); a date counts all of that day")
)

func runCount(e *cli.Env) error {
	if e.Bool(mergeFlag.Name) {
		return runMerge(e)
	}
	if e.Bool(partialFlag.Name) && !e.IsSet(by.Name) && !e.Bool(costFlag.Name) {
		return cli.Usagef("--partial is a partial count of --by or --cost: give one of them (or --merge)")
	}
	if e.Bool(htmlFlag.Name) || e.Given(outDir) {
		return runHTML(e)
	}
	for _, f := range policy.Flags() {
		if e.Given(f) {
			return cli.Usagef("--%s is the page's replay with ctx-compact: give --html too", f.Names()[0])
		}
	}
	if e.Bool(costFlag.Name) {
		return countCost(e)
	}
	top, ctr, err := topAndCounter(e)
	if err != nil {
		return err
	}
	if e.Bool(cli.EachLineFlag.Name) {
		return countEachLine(e, ctr, top)
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	if e.IsSet(by.Name) {
		return countBy(e, srcs, ctr)
	}
	for _, f := range []ucli.Flag{since, until} {
		if e.Given(f) {
			return cli.Usagef("--%s counts the messages of a span of time by group: give --by too", f.Names()[0])
		}
	}
	return countFiles(e, srcs, ctr, top)
}

// countEachLine is ctx-count --each-line: a report a line, a JSON line
// each.
func countEachLine(e *cli.Env, ctr tokens.Counter, top int) error {
	for _, f := range []ucli.Flag{tee, before, budget, by, since, until} {
		if e.Given(f) {
			return cli.Usagef("--%s does not go with --each-line, which gives every line its own report", f.Names()[0])
		}
	}
	return e.EachLine(func(t *transcript.Transcript, in cli.LineInput) ([]byte, string, error) {
		r := count.Count(t, ctr, top)
		r.File = in.Name
		out, err := cli.MarshalLine(count.LineReport{Version: count.SchemaVersion, Encoding: ctr.Name(), Line: in.Line, Report: r})
		return out, "", err
	})
}

// countFiles is ctx-count's report of each file and their total, with
// --budget, --before and --tee.
func countFiles(e *cli.Env, srcs []cli.Source, ctr tokens.Counter, top int) error {
	limit, _, err := e.Budget()
	if err != nil {
		return err
	}
	teeing := e.Bool(tee.Name)
	if teeing && cli.Several(srcs) {
		return cli.Usagef("--tee passes one transcript through; a directory or %d files given", len(srcs))
	}
	s := count.Summary{Version: count.SchemaVersion, Encoding: ctr.Name()}
	var teed []byte
	err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		t, err := e.Load(in)
		if err != nil {
			return nil, err
		}
		r := count.Count(t, ctr, top)
		r.File = in.Display()
		var data []byte // only --tee's one input is kept past its count
		if teeing {
			data = in.Data
		}
		return func() error {
			s.Files = append(s.Files, r)
			teed = data
			return nil
		}, nil
	})
	if err != nil || len(s.Files) == 0 {
		return err
	}
	s.Total = s.Files[0]
	if len(s.Files) > 1 {
		s.Total = count.Merge(s.Files, top)
	}
	s.Total.File = "" // the total is of every file, even of one
	if limit > 0 {
		s.Budget = count.NewBudget(limit, s.Total.Tokens)
	}
	if name := e.String(before.Name); name != "" {
		ins, err := e.ReadFile(name)
		if err != nil {
			return err
		}
		t, err := e.Load(ins)
		if err != nil {
			return err
		}
		s.Before = count.NewBefore(ins.Display(), count.Count(t, ctr, 0).Tokens, s.Total.Tokens)
	}
	return writeSummary(e, s, top, teed)
}

// writeSummary writes the report of s, on stdout or, with --tee, on
// stderr after the transcript teed.
func writeSummary(e *cli.Env, s count.Summary, top int, teed []byte) error {
	teeing := e.Bool(tee.Name)
	reportTo := e.Stdout
	if teeing {
		reportTo = e.Stderr
	}
	var report bytes.Buffer
	if e.Bool(jsonFlag.Name) {
		if err := cli.WriteJSON(&report, s); err != nil {
			return err
		}
	} else if err := s.WriteText(&report, count.TextOptions{Top: top, Color: cli.ColorOK(reportTo)}); err != nil {
		return err
	}
	if teeing {
		if n, err := e.Stdout.Write(teed); err != nil {
			// The report still goes out, and the status says that the
			// transcript passed on was cut.
			if _, err := reportTo.Write(report.Bytes()); err != nil {
				return err
			}
			if cli.IsBrokenPipe(err) {
				err = errors.New("stdout was closed")
			}
			return cli.Failf("--tee: %v after %s of %s bytes: the transcript passed on is cut", err, textfmt.Int(n), textfmt.Int(len(teed)))
		}
	}
	_, err := reportTo.Write(report.Bytes())
	return err
}

// countBy is ctx-count --by: one table of all the transcripts, a row per
// group, the transcripts counted on --jobs goroutines, each let go once
// its tokens are added to its groups.
func countBy(e *cli.Env, srcs []cli.Source, ctr tokens.Counter) error {
	group, err := count.ParseBy(e.String(by.Name))
	if err != nil {
		return cli.Usagef("--by: %v", err)
	}
	for _, f := range []ucli.Flag{tee, before, budget} {
		if e.Given(f) {
			return cli.Usagef("--%s does not go with --by", f.Names()[0])
		}
	}
	var w count.Window
	if w.Since, w.Until, err = timespan.Span(e.String(since.Name), e.String(until.Name), time.Local); err != nil {
		return cli.Usagef("--%v", err)
	}
	g := count.NewGrouped(ctr.Name(), group, w)
	err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		t, err := e.Load(in)
		if err != nil {
			return nil, err
		}
		p := count.GroupTokens(t, ctr, group, w, in.Display())
		return func() error { g.Add(p); return nil }, nil
	})
	switch {
	case err != nil:
		return err
	case e.Bool(partialFlag.Name):
		return writePartial(e, g.MarshalPartial)
	case g.Sessions+g.Skipped == 0:
		return nil
	}
	return reportBy(e, g)
}

// reportBy writes the report of --by: the table, or --json.
func reportBy(e *cli.Env, g *count.Grouped) error {
	g.Finish()
	rows := 0
	if e.IsSet(top.Name) {
		rows = max(e.Int(top.Name), 1)
	}
	return e.Report(e.Bool(jsonFlag.Name), g, func(w io.Writer) error { return g.WriteText(w, rows, cli.ColorOK(e.Stdout)) })
}
