package usage

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Total is the usage and the cost of some requests.
type Total struct {
	Requests  int            `json:"requests"`
	Tokens    pricing.Tokens `json:"tokens"`
	Reasoning int64          `json:"reasoning_tokens,omitempty"`
	Cost      float64        `json:"cost_usd"`
	// Unpriced counts the requests whose model the price table does not
	// know: they are priced as the format's default model
	// (pricing.DefaultModel).
	Unpriced int `json:"unpriced,omitempty"`
	// Skipped counts the requests left out, not in Requests nor in any
	// sum, because their usage holds a count that cannot be
	// (Record.Impossible).
	Skipped int `json:"skipped,omitempty"`
	// RecordedCost is what the agents wrote that RecordedRequests of the
	// requests cost, by their own prices (Record.RecordedCost); Cost is
	// the estimate, by the table's.
	RecordedCost     float64 `json:"recorded_cost_usd,omitempty"`
	RecordedRequests int     `json:"recorded_requests,omitempty"`
}

// Margin is how far apart the cost an agent recorded and the estimate may
// be, as a share of the larger, and still agree: the two count tokens and
// round prices a little apart.
const Margin = 0.05

// Add counts a record's requests, priced at p (known: the table knows
// their model); a record whose usage cannot be is counted as skipped, and
// nothing of it is added.
func (t *Total) Add(r Record, p pricing.Price, known bool) {
	n := max(r.Requests, 1)
	if r.Impossible {
		t.Skipped += n
		return
	}
	t.Requests += n
	t.Tokens.Add(r.Tokens)
	t.Reasoning = pricing.Sum(t.Reasoning, r.Reasoning)
	t.Cost += r.Estimate(p)
	if !known {
		t.Unpriced += n
	}
	if r.CostRecorded {
		t.RecordedCost += r.RecordedCost
		t.RecordedRequests += n
	}
}

// Estimate is what the record's requests cost at the price p: a
// session's totals at the rates of its average request's prompt (a long
// prompt's rates are a request's, not a session's).
func (r Record) Estimate(p pricing.Price) float64 {
	return p.RatesFor(r.Tokens.Prompt() / int64(max(r.Requests, 1))).Cost(r.Tokens)
}

// Plus adds the total o to t.
func (t *Total) Plus(o Total) {
	t.Requests += o.Requests
	t.Tokens.Add(o.Tokens)
	t.Reasoning = pricing.Sum(t.Reasoning, o.Reasoning)
	t.Cost += o.Cost
	t.Unpriced += o.Unpriced
	t.Skipped += o.Skipped
	t.RecordedCost += o.RecordedCost
	t.RecordedRequests += o.RecordedRequests
}

// Recorded reports whether the agents recorded the cost of every request
// of the total: then RecordedCost and Cost are of the same requests.
func (t Total) Recorded() bool { return t.Requests > 0 && t.RecordedRequests == t.Requests }

// Differs reports whether the cost the agents recorded for every request
// and the estimate differ by more than Margin: the agent priced them at
// other rates (those of its day, its own table) or counted other tokens.
func (t Total) Differs() bool {
	if !t.Recorded() {
		return false
	}
	// Half a hundredth of a cent apart is the same amount as the reports
	// write it.
	d := math.Abs(t.RecordedCost - t.Cost)
	return d > Margin*max(t.RecordedCost, t.Cost) && d >= 0.00005
}

// Row is the total of one group.
type Row struct {
	Key string `json:"key"`
	Total
}

// Keys of the groupings: what a record is counted under.
var (
	ByModel   = func(r Record) string { return r.Model }
	BySession = func(r Record) string { return r.Session }
	ByProject = func(r Record) string { return r.Project }
	// ByDay is the record's local date (time.Local), "" without a time.
	ByDay = func(r Record) string {
		if r.Time.IsZero() {
			return ""
		}
		return r.Time.In(time.Local).Format(time.DateOnly)
	}
)

// Tally prices records of a transcript of format f with prices, each at
// its own model's rates, and adds them up by key; the rows come most
// costly first. A request whose ID was seen before, in these records or
// in seen, is left out, and its ID added to seen: a report over many
// files passes the same map to each.
func Tally(records []Record, f transcript.Format, prices *pricing.Table, key func(Record) string, seen map[string]bool) []Row {
	byKey := map[string]*Row{}
	for _, r := range records {
		if r.ID != "" && seen != nil {
			if seen[r.ID] {
				continue
			}
			seen[strings.Clone(r.ID)] = true // the ID may be a view of a file's bytes, which seen outlives
		}
		k := key(r)
		row := byKey[k]
		if row == nil {
			row = &Row{Key: k}
			byKey[k] = row
		}
		p, known := prices.For(r.Model, f)
		row.Add(r, p, known)
	}
	rows := make([]Row, 0, len(byKey))
	for _, r := range byKey {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Cost != rows[j].Cost {
			return rows[i].Cost > rows[j].Cost
		}
		return rows[i].Key < rows[j].Key
	})
	return rows
}

// Possible is the records whose counts can all be, and how many were left
// out (Record.Impossible), for a report that shows records one by one.
func Possible(records []Record) ([]Record, int) {
	kept := make([]Record, 0, len(records))
	for _, r := range records {
		if !r.Impossible {
			kept = append(kept, r)
		}
	}
	return kept, len(records) - len(kept)
}

// HourCache reports whether a session's records show its cache writes
// lasting an hour (Anthropic's 1-hour cache, which Claude Code uses) more
// than five minutes: a replay of it should price its writes so.
func HourCache(records []Record) bool {
	var hour, five int64
	for _, r := range records {
		if !r.Impossible {
			hour = pricing.Sum(hour, r.Tokens.CacheWrite1h)
			five = pricing.Sum(five, r.Tokens.CacheWrite)
		}
	}
	return hour > five
}
