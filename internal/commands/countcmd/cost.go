package countcmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/timespan"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// costFlag is ctx-count --cost: what sessions cost by their own usage
// records.
var costFlag = &ucli.BoolFlag{Name: "cost", EnvVars: []string{"CTX_COST"},
	Usage: "what the sessions cost, from their own usage records (Claude Code's message.usage, Codex's token_count, mini-swe-agent's responses, SWE-agent's totals): requests, input, cache reads, 5-minute and 1-hour cache writes, output and reasoning tokens, and dollars, beside the cost the agent recorded where it did, by model (or --by day, project, session, file)"}

// costHelp is what --help says of --cost.
const costHelp = `
COST (--cost): what the sessions cost, as ccusage reports it, from the usage that the API
returned for each request and the agent kept: Claude Code's message.usage (input, cache reads,
5-minute and 1-hour cache writes, output), Codex's token_count events (input, cached input,
output, reasoning), mini-swe-agent's responses (prompt, cached, completion), SWE-agent's
totals (tokens sent and received, API calls). Each request is priced as the model that
answered it, from the embedded table (--price, --prices change it); a request seen in two
files (a resumed session) counts once. Where the agent wrote what it reckoned the requests
cost (mini-swe-agent, SWE-agent, early Claude Code), RECORDED shows it beside COST, with the
ratio of the two where they are more than 5% apart. Rows by model, or by day, project,
session or file with --by (with the models of each); --since and --until keep the requests
made in that span. A file without usage records says so on stderr; with none in any file,
exit 1.`

// costBys are the groupings of --cost: a request has a model, a time, a
// session, a project and a file, not a tool.
var costBys = []count.By{count.ByModel, count.ByDay, count.ByProject, count.BySession, count.ByFile}

// notedWithout is how many files without usage records get a line each on
// stderr; the others, a line together: a directory of Codex rollouts from
// before token_count would fill the screen.
const notedWithout = 3

// costReport is ctx-count --cost's report, and its --json form.
type costReport struct {
	Version int        `json:"version"`
	By      count.By   `json:"by"`
	Prices  string     `json:"prices"` // the date of the embedded table
	Since   *time.Time `json:"since,omitempty"`
	Until   *time.Time `json:"until,omitempty"`
	Files   int        `json:"files"`
	// WithoutRecords lists the files that hold no usage records.
	WithoutRecords []string  `json:"without_records"`
	Rows           []costRow `json:"rows"`
	Total          costTotal `json:"total"`
}

// costRow is one group's total, and (but by model) each model's in it.
type costRow struct {
	Key string `json:"key"`
	costTotal
	Models []usage.Row `json:"models,omitempty"`
}

// costTotal is a total, and whether the cost the agents recorded for it
// differs from the estimate (usage.Total.Differs).
type costTotal struct {
	usage.Total
	RecordedDiffers bool `json:"recorded_differs,omitempty"`
}

// judged is t with RecordedDiffers set, once it is whole.
func judged(t usage.Total) costTotal { return costTotal{Total: t, RecordedDiffers: t.Differs()} }

// countCost is ctx-count --cost: the usage records of every input, priced
// and added up by group.
func countCost(e *cli.Env) error {
	for _, f := range []ucli.Flag{tee, before, budget, cli.EachLineFlag} {
		if e.Given(f) {
			return cli.Usagef("--%s does not go with --cost", f.Names()[0])
		}
	}
	group := count.ByModel
	if s := e.String(by.Name); s != "" {
		b, err := count.ParseBy(s)
		if err != nil || !slices.Contains(costBys, b) {
			return cli.Usagef("--by %s: --cost groups by model, day, project, session or file", s)
		}
		group = b
	}
	var w count.Window
	var err error
	if w.Since, w.Until, err = timespan.Span(e.String(since.Name), e.String(until.Name), time.Local); err != nil {
		return cli.Usagef("--%v", err)
	}
	prices, err := e.Prices()
	if err != nil {
		return err
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	c := newCosts(group, w)
	partial := e.Bool(partialFlag.Name)
	err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		t, err := e.Load(in)
		if err != nil {
			return nil, err
		}
		recs := usage.Read(in.Data, t.Format)
		name := in.Display()
		return func() error {
			if len(recs) == 0 && !partial && len(c.without) < notedWithout {
				e.Note(name + ": no usage records: " + noRecords(t.Format))
			}
			c.add(name, t.Format, recs, prices)
			return nil
		}, nil
	})
	if err != nil {
		return err
	}
	if partial {
		return writePartial(e, c.marshalPartial)
	}
	return c.report(e, notedWithout)
}

// report writes the report of the costs counted, after a line on stderr
// for each file without usage records past the first noted (those were
// noted as they came), and fails when no file had any.
func (c *costs) report(e *cli.Env, noted int) error {
	for _, w := range c.without[min(noted, len(c.without)):min(notedWithout, len(c.without))] {
		e.Note(w.File + ": no usage records: " + w.Why)
	}
	if n := len(c.without) - notedWithout; n > 0 {
		e.Note("and " + textfmt.Plural(n, "more file", "more files") + " without usage records (--json lists them all)")
	}
	rep := c.finish()
	if rep.Total.Requests == 0 && len(rep.WithoutRecords) == rep.Files {
		if rep.Files == 0 {
			return nil // every input failed, and said so
		}
		return cli.Failf("no usage records in %s: nothing to price (ctx-compact --replay estimates a session's cost from its transcript)", textfmt.Plural(rep.Files, "file", "files"))
	}
	return e.Report(e.Bool(jsonFlag.Name), rep, rep.writeText)
}

// groupKey is the key of a request's group: its own model, day, project
// or session (else its file), or its file.
func groupKey(by count.By, file string) func(usage.Record) string {
	switch by {
	case count.ByDay:
		return func(r usage.Record) string { return orUnknown(usage.ByDay(r)) }
	case count.ByProject:
		return func(r usage.Record) string { return orUnknown(usage.ByProject(r)) }
	case count.BySession:
		return func(r usage.Record) string {
			if s := usage.BySession(r); s != "" {
				return s
			}
			return file
		}
	case count.ByFile:
		return func(usage.Record) string { return file }
	}
	return func(r usage.Record) string { return orUnknown(usage.ByModel(r)) }
}

func orUnknown(s string) string {
	if s == "" {
		return count.Unknown
	}
	return s
}

// noRecords says why a transcript of format f holds no usage records.
func noRecords(f transcript.Format) string {
	switch f {
	case transcript.ClaudeCode:
		return "no assistant line has message.usage"
	case transcript.Codex:
		return "no token_count event"
	case transcript.OpenAI:
		return "no message keeps its response's usage (mini-swe-agent's extra.response.usage), and it keeps no totals (info.model_stats)"
	case transcript.SWEAgent:
		return "no totals (info.model_stats with api_calls)"
	}
	return "the " + string(f) + " format keeps none"
}

// writeText writes the report as a table, most costly first (by day, in
// order), and the total, with a note on what a mark in it says.
func (r costReport) writeText(w io.Writer) error {
	span := ""
	if r.Since != nil {
		span += " since " + r.Since.Format(time.RFC3339)
	}
	if r.Until != nil {
		span += " until " + r.Until.Format(time.RFC3339)
	}
	if _, err := fmt.Fprintf(w, "Cost by %s, from the usage records of %s%s: %s, prices of %s\n\n", r.By,
		textfmt.Plural(r.Files-len(r.WithoutRecords), "file", "files"), span, textfmt.Plural(r.Total.Requests, "request", "requests"), r.Prices); err != nil {
		return err
	}
	tb := r.table()
	if err := tb.Write(w); err != nil {
		return err
	}
	for _, note := range r.notes() {
		if _, err := fmt.Fprintf(w, "\n%s\n", textfmt.Wrap(note, 100, "")); err != nil {
			return err
		}
	}
	return nil
}

// recorded reports whether an agent recorded the cost of any request of
// the report: it then has a RECORDED column.
func (r costReport) recorded() bool { return r.Total.RecordedRequests > 0 }

// table is the report's rows and its total.
func (r costReport) table() *textfmt.Table {
	withModels := r.By != count.ByModel
	tb := &textfmt.Table{Indent: "  ", Right: map[int]bool{}}
	head := []string{strings.ToUpper(string(r.By))}
	if withModels {
		head = append(head, "MODELS")
	}
	head = append(head, "REQUESTS", "INPUT", "CACHE READ", "CACHE WRITE 5M", "CACHE WRITE 1H", "OUTPUT", "REASONING", "COST")
	if r.recorded() {
		head = append(head, "RECORDED")
	}
	for i := 1; i < len(head); i++ {
		tb.Right[i] = !withModels || i > 1
	}
	tb.Row(head...)
	row := func(key string, models []usage.Row, t costTotal) {
		cells := []string{key}
		if withModels {
			names := make([]string, len(models))
			for i, m := range models {
				names[i] = m.Key
			}
			cells = append(cells, strings.Join(names, ", "))
		}
		cost := textfmt.Dollars(t.Cost)
		if t.Unpriced > 0 {
			cost += "*"
		}
		tk := t.Tokens
		cells = append(cells, textfmt.Int(t.Requests), int64s(tk.Input), int64s(tk.CacheRead), int64s(tk.CacheWrite), int64s(tk.CacheWrite1h),
			int64s(tk.Output), int64s(t.Reasoning), cost)
		if r.recorded() {
			cells = append(cells, recordedCell(t))
		}
		tb.Row(cells...)
	}
	for _, x := range r.Rows {
		row(x.Key, x.Models, x.costTotal)
	}
	row("total", nil, r.Total)
	return tb
}

// recordedCell is what the agents recorded of a row's cost: the amount;
// with its ratio to the estimate where they differ; with how many requests
// it is of where it is not of all; "-" for none.
func recordedCell(t costTotal) string {
	switch {
	case t.RecordedRequests == 0:
		return "-"
	case !t.Recorded():
		return fmt.Sprintf("%s (%s of %s)", textfmt.Dollars(t.RecordedCost), textfmt.Int(t.RecordedRequests), textfmt.Int(t.Requests))
	case t.RecordedDiffers:
		return textfmt.Dollars(t.RecordedCost) + " (" + textfmt.Times(t.RecordedCost, t.Cost) + ")"
	}
	return textfmt.Dollars(t.RecordedCost)
}

// notes say what the marks of the table mean, those it has.
func (r costReport) notes() []string {
	var unpriced int
	var differs, partial bool
	for _, x := range append(r.Rows, costRow{costTotal: r.Total}) {
		differs = differs || x.RecordedDiffers
		partial = partial || x.RecordedRequests > 0 && !x.Recorded()
	}
	for _, x := range r.Rows {
		unpriced += x.Unpriced
	}
	var out []string
	if unpriced > 0 {
		out = append(out, fmt.Sprintf("* %s name a model the price table does not know, or none: priced as their format's usual model (give its prices with --price MODEL:input=N,output=N).",
			textfmt.Plural(unpriced, "request", "requests")))
	}
	if r.recorded() {
		note := "RECORDED: what the agent wrote that the requests cost, by its own prices; COST is the estimate from their tokens by the table of " + r.Prices + "."
		if differs {
			note += fmt.Sprintf(" (N×): the two are more than %.0f%% apart, the recorded cost N times the estimate: the agent priced the requests at other rates (its own table, the prices of its day) or counted other tokens; --price sets the table's.", usage.Margin*100)
		}
		if partial {
			note += " (N of M): the agent recorded the cost of N of the M requests."
		}
		out = append(out, note)
	}
	if n := r.Total.Skipped; n > 0 {
		out = append(out, fmt.Sprintf("%s left out of every sum: a count of tokens in the usage that cannot be (below 0, with a fraction, or over %s).",
			textfmt.Plural(n, "request", "requests"), textfmt.Int(usage.MaxTokens)))
	}
	return out
}

func int64s(n int64) string { return textfmt.Int(int(n)) }
