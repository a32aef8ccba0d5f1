package countcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/timespan"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// costFlag is ctx-count --cost: what sessions cost by their own usage
// records.
var costFlag = &ucli.BoolFlag{Name: "cost", EnvVars: []string{"CTX_COST"},
	Usage: "what the sessions cost, from their own usage records (Claude Code's message.usage, Codex's token_count, mini-swe-agent's responses): requests, input, cache reads, 5-minute and 1-hour cache writes, output and reasoning tokens, and dollars, by model (or --by day, project, session, file)"}

// costHelp is what --help says of --cost.
const costHelp = `
COST (--cost): what the sessions cost, as ccusage reports it, from the usage that the API
returned for each request and the agent kept: Claude Code's message.usage (input, cache reads,
5-minute and 1-hour cache writes, output), Codex's token_count events (input, cached input,
output, reasoning), mini-swe-agent's responses (prompt, cached, completion). Each request is
priced as the model that answered it, from the embedded table (--price, --prices change it); a
request seen in two files (a resumed session) counts once. Rows by model, or by day, project,
session or file with --by (with the models of each); --since and --until keep the requests made
in that span. A file without usage records says so on stderr; with none in any file, exit 1.`

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
	WithoutRecords []string    `json:"without_records"`
	Rows           []costRow   `json:"rows"`
	Total          usage.Total `json:"total"`
}

// costRow is one group's total, and (but by model) each model's in it.
type costRow struct {
	Key string `json:"key"`
	usage.Total
	Models []usage.Row `json:"models,omitempty"`
}

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

// costs is --cost's sum over files, in a form that adds up: the requests,
// tokens and exact cost of each group's models, the files without usage
// records, and the requests counted, to count each once. Files added in
// order, or partial costs of them merged in that order, give the same
// report to the last bit of a dollar.
type costs struct {
	by      count.By
	prices  string // the date of the embedded table
	w       count.Window
	files   int
	without []withoutRecords
	cells   map[cell]*cellTotal
	seen    map[string]bool // the IDs of the requests counted
}

// cell is a group's model.
type cell struct{ group, model string }

// cellTotal is a cell's total, its cost (Total.Cost unset) added up exactly.
type cellTotal struct {
	usage.Total
	cost count.Sum
}

// withoutRecords is a file without usage records, and why.
type withoutRecords struct {
	File string `json:"file"`
	Why  string `json:"why"`
}

func newCosts(by count.By, w count.Window) *costs {
	return &costs{by: by, prices: pricing.Default().Date(), w: w, cells: map[cell]*cellTotal{}, seen: map[string]bool{}}
}

// add adds a file's records, those in the window, priced by prices.
func (c *costs) add(name string, f transcript.Format, recs []usage.Record, prices *pricing.Table) {
	c.files++
	if len(recs) == 0 {
		c.without = append(c.without, withoutRecords{name, noRecords(f)})
		return
	}
	var kept []usage.Record
	for _, r := range recs {
		if c.w.Has(r.Time) {
			kept = append(kept, r)
		}
	}
	key := groupKey(c.by, name)
	for _, row := range usage.Tally(kept, f, prices, func(r usage.Record) string { return key(r) + "\x00" + r.Model }, c.seen) {
		k, model, _ := strings.Cut(row.Key, "\x00")
		x := c.cells[cell{k, model}]
		if x == nil {
			// A key is a view of the file's bytes: a copy lets them go.
			x = &cellTotal{}
			c.cells[cell{strings.Clone(k), strings.Clone(model)}] = x
		}
		x.cost.Add(row.Cost)
		row.Cost = 0
		x.Plus(row.Total)
	}
}

// finish is the report of the costs counted: a row a group, with its
// models (but by model), and the total.
func (c *costs) finish() costReport {
	since, until := c.w.Bounds()
	rep := costReport{Version: count.SchemaVersion, By: c.by, Prices: c.prices, Since: since, Until: until, Files: c.files,
		WithoutRecords: make([]string, len(c.without)), Rows: []costRow{}}
	for i, w := range c.without {
		rep.WithoutRecords[i] = w.File
	}
	type acc struct {
		row  costRow
		cost count.Sum
	}
	groups := map[string]*acc{}
	var all count.Sum
	for k, x := range c.cells {
		g := groups[k.group]
		if g == nil {
			g = &acc{row: costRow{Key: k.group}}
			groups[k.group] = g
		}
		m := usage.Row{Key: orUnknown(k.model), Total: x.Total}
		m.Cost = x.cost.Float64()
		g.row.Plus(x.Total)
		g.cost.Plus(x.cost)
		rep.Total.Plus(x.Total)
		all.Plus(x.cost)
		if c.by != count.ByModel {
			g.row.Models = append(g.row.Models, m)
		}
	}
	rep.Total.Cost = all.Float64()
	for _, g := range groups {
		g.row.Cost = g.cost.Float64()
		sort.Slice(g.row.Models, func(i, j int) bool {
			a, b := g.row.Models[i], g.row.Models[j]
			return a.Cost > b.Cost || a.Cost == b.Cost && a.Key < b.Key
		})
		rep.Rows = append(rep.Rows, g.row)
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		if c.by == count.ByDay { // a calendar reads in order
			return a.Key < b.Key
		}
		if a.Cost != b.Cost {
			return a.Cost > b.Cost
		}
		return a.Key < b.Key
	})
	return rep
}

// partialCost is the value of "partial" in a partial --cost count.
const partialCost = "cost"

// partialCosts is the JSON form of a partial --cost count.
type partialCosts struct {
	Partial  string           `json:"partial"`
	Version  int              `json:"version"`
	By       count.By         `json:"by"`
	Prices   string           `json:"prices"`
	Since    *time.Time       `json:"since,omitempty"`
	Until    *time.Time       `json:"until,omitempty"`
	Files    int              `json:"files"`
	Without  []withoutRecords `json:"without_records"`
	Cells    []partialCell    `json:"cells"`
	Requests []string         `json:"requests"` // the IDs of the requests counted
}

// partialCell is a cell's total: cost_usd rounded, cost_exact exact.
type partialCell struct {
	Group string `json:"key"`
	Model string `json:"model"`
	usage.Total
	Exact count.Sum `json:"cost_exact"`
}

func (c *costs) marshalPartial() ([]byte, error) {
	since, until := c.w.Bounds()
	p := partialCosts{Partial: partialCost, Version: count.SchemaVersion, By: c.by, Prices: c.prices, Since: since, Until: until,
		Files: c.files, Without: c.without, Cells: make([]partialCell, 0, len(c.cells)), Requests: make([]string, 0, len(c.seen))}
	if p.Without == nil {
		p.Without = []withoutRecords{}
	}
	for k, x := range c.cells {
		pc := partialCell{Group: k.group, Model: k.model, Total: x.Total, Exact: x.cost}
		pc.Cost = x.cost.Float64()
		p.Cells = append(p.Cells, pc)
	}
	sort.Slice(p.Cells, func(i, j int) bool {
		a, b := p.Cells[i], p.Cells[j]
		return a.Group < b.Group || a.Group == b.Group && a.Model < b.Model
	})
	for id := range c.seen {
		p.Requests = append(p.Requests, id)
	}
	sort.Strings(p.Requests)
	return json.Marshal(p)
}

// unmarshalCosts reads what marshalPartial wrote.
func unmarshalCosts(data []byte) (*costs, error) {
	var p partialCosts
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if p.Version != count.SchemaVersion {
		return nil, fmt.Errorf("a partial count of schema version %d (this ctx-count reads %d)", p.Version, count.SchemaVersion)
	}
	if !slices.Contains(costBys, p.By) {
		return nil, fmt.Errorf("costs by %q", p.By)
	}
	c := &costs{by: p.By, prices: p.Prices, w: count.WindowOf(p.Since, p.Until), files: p.Files, without: p.Without,
		cells: make(map[cell]*cellTotal, len(p.Cells)), seen: make(map[string]bool, len(p.Requests))}
	for _, x := range p.Cells {
		k := cell{x.Group, x.Model}
		if c.cells[k] != nil {
			return nil, fmt.Errorf("model %q of %q twice", x.Model, x.Group)
		}
		t := &cellTotal{Total: x.Total, cost: x.Exact}
		t.Cost = 0
		c.cells[k] = t
	}
	for _, id := range p.Requests {
		c.seen[id] = true
	}
	return c, nil
}

// merge adds the costs of other files, counted alike, after those of c. A
// request that both counted would count once in one run; a merge cannot
// take it back, and fails.
func (c *costs) merge(o *costs) error {
	switch {
	case c.by != o.by:
		return fmt.Errorf("costs by %s, not by %s", o.by, c.by)
	case c.prices != o.prices:
		return fmt.Errorf("priced by the table of %s, not of %s", o.prices, c.prices)
	case !c.w.Equal(o.w):
		return errors.New("counted over another span of time (--since, --until)")
	}
	twice := 0
	for id := range o.seen {
		if c.seen[id] {
			twice++
		}
	}
	if twice > 0 {
		return fmt.Errorf("%s counted in two partial counts (a resumed session's files in two parts): count a directory's files in one part",
			textfmt.Plural(twice, "request", "requests"))
	}
	for id := range o.seen {
		c.seen[id] = true
	}
	c.files += o.files
	c.without = append(c.without, o.without...)
	for k, x := range o.cells {
		if y := c.cells[k]; y != nil {
			y.Plus(x.Total)
			y.cost.Plus(x.cost)
		} else {
			c.cells[k] = x
		}
	}
	return nil
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
		return "no message keeps its response's usage (mini-swe-agent's extra.response.usage)"
	}
	return "the " + string(f) + " format keeps none"
}

// writeText writes the report as a table, most costly first (by day, in
// order), and the total.
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
	withModels := r.By != count.ByModel
	tb := textfmt.Table{Indent: "  ", Right: map[int]bool{}}
	head := []string{strings.ToUpper(string(r.By))}
	if withModels {
		head = append(head, "MODELS")
	}
	for i := range 8 {
		tb.Right[len(head)+i] = true
	}
	tb.Row(append(head, "REQUESTS", "INPUT", "CACHE READ", "CACHE WRITE 5M", "CACHE WRITE 1H", "OUTPUT", "REASONING", "COST")...)
	unpriced := 0
	row := func(key string, models []usage.Row, t usage.Total) {
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
		tb.Row(append(cells, textfmt.Int(t.Requests), int64s(tk.Input), int64s(tk.CacheRead), int64s(tk.CacheWrite), int64s(tk.CacheWrite1h),
			int64s(tk.Output), int64s(t.Reasoning), cost)...)
	}
	for _, x := range r.Rows {
		row(x.Key, x.Models, x.Total)
		unpriced += x.Unpriced
	}
	row("total", nil, r.Total)
	if err := tb.Write(w); err != nil {
		return err
	}
	if unpriced > 0 {
		_, err := fmt.Fprintf(w, "\n* %s name a model the price table does not know, or none: priced as their format's usual model (give its prices with --price MODEL:input=N,output=N).\n",
			textfmt.Plural(unpriced, "request", "requests"))
		return err
	}
	return nil
}

func int64s(n int64) string { return textfmt.Int(int(n)) }
