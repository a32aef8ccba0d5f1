package countcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

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

// cellTotal is a cell's total, its cost and the cost the agents recorded
// (Total.Cost and Total.RecordedCost unset) added up exactly.
type cellTotal struct {
	usage.Total
	cost, recorded count.Sum
}

// whole is x's total with its costs, each rounded once.
func (x *cellTotal) whole() usage.Total {
	t := x.Total
	t.Cost, t.RecordedCost = x.cost.Float64(), x.recorded.Float64()
	return t
}

// plus adds o's total and sums to x's.
func (x *cellTotal) plus(o *cellTotal) {
	x.Plus(o.Total)
	x.cost.Plus(o.cost)
	x.recorded.Plus(o.recorded)
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
		x.recorded.Add(row.RecordedCost)
		row.Cost, row.RecordedCost = 0, 0
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
		row costRow
		sum cellTotal
	}
	groups := map[string]*acc{}
	var all cellTotal
	for k, x := range c.cells {
		g := groups[k.group]
		if g == nil {
			g = &acc{row: costRow{Key: k.group}}
			groups[k.group] = g
		}
		g.sum.plus(x)
		all.plus(x)
		if c.by != count.ByModel {
			g.row.Models = append(g.row.Models, usage.Row{Key: orUnknown(k.model), Total: x.whole()})
		}
	}
	rep.Total = judged(all.whole())
	for _, g := range groups {
		g.row.costTotal = judged(g.sum.whole())
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

// partialCell is a cell's total: cost_usd and recorded_cost_usd rounded,
// cost_exact and recorded_cost_exact exact.
type partialCell struct {
	Group string `json:"key"`
	Model string `json:"model"`
	usage.Total
	Exact         count.Sum `json:"cost_exact"`
	RecordedExact count.Sum `json:"recorded_cost_exact"`
}

func (c *costs) marshalPartial() ([]byte, error) {
	since, until := c.w.Bounds()
	p := partialCosts{Partial: partialCost, Version: count.SchemaVersion, By: c.by, Prices: c.prices, Since: since, Until: until,
		Files: c.files, Without: c.without, Cells: make([]partialCell, 0, len(c.cells)), Requests: make([]string, 0, len(c.seen))}
	if p.Without == nil {
		p.Without = []withoutRecords{}
	}
	for k, x := range c.cells {
		pc := partialCell{Group: k.group, Model: k.model, Total: x.whole(), Exact: x.cost, RecordedExact: x.recorded}
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
		t := &cellTotal{Total: x.Total, cost: x.Exact, recorded: x.RecordedExact}
		t.Cost, t.RecordedCost = 0, 0
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
			y.plus(x)
		} else {
			c.cells[k] = x
		}
	}
	return nil
}
