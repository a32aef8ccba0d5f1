package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// ReadLedger reads the entries of a ledger, in order. A line that is not
// an entry is an error that names it.
func ReadLedger(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("line %d: not a ledger entry: %v", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Row is what the requests of a session cost, as sent and as the client
// sent them.
type Row struct {
	Session string `json:"session"`
	// Model is the model of most of the session's requests.
	Model    string    `json:"model,omitempty"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	Requests int       `json:"requests"`
	// Unmetered counts the requests whose answer said no usage: they are
	// in neither bill.
	Unmetered int `json:"requests_without_usage,omitempty"`
	// Replaced is the most results and edits' arguments that one request
	// of the session was sent without (the total's: the sessions' added).
	Replaced        int            `json:"replaced"`
	Usage           pricing.Tokens `json:"usage"`
	Uncompacted     pricing.Tokens `json:"uncompacted"`
	Cost            float64        `json:"cost_usd"`
	UncompactedCost float64        `json:"uncompacted_cost_usd"`
	Saved           float64        `json:"saved_usd"`
	// Ratio is Cost over UncompactedCost (1 without a cost).
	Ratio float64 `json:"ratio"`
}

// Report is a ledger's sessions, in the order they started, and their
// total.
type Report struct {
	Sessions []Row `json:"sessions"`
	Total    Row   `json:"total"`
}

// Summarize adds a ledger's entries up by session.
func Summarize(entries []Entry) Report {
	rows := map[string]*Row{}
	models := map[string]map[string]int{}
	var order []string
	total := Row{Session: "total"}
	for _, e := range entries {
		r := rows[e.Session]
		if r == nil {
			r = &Row{Session: e.Session, First: e.Time}
			rows[e.Session], models[e.Session] = r, map[string]int{}
			order = append(order, e.Session)
		}
		models[e.Session][e.Model]++
		for _, r := range []*Row{r, &total} {
			r.add(e)
		}
	}
	var rep Report
	total.Replaced = 0 // the sessions' own, added up below
	for _, s := range order {
		r := rows[s]
		best := 0
		for m, n := range models[s] {
			if n > best || n == best && m < r.Model {
				r.Model, best = m, n
			}
		}
		rep.Sessions = append(rep.Sessions, r.done())
		total.Replaced += r.Replaced
	}
	sort.SliceStable(rep.Sessions, func(i, j int) bool { return rep.Sessions[i].First.Before(rep.Sessions[j].First) })
	rep.Total = total.done()
	return rep
}

func (r *Row) add(e Entry) {
	if r.First.IsZero() || e.Time.Before(r.First) {
		r.First = e.Time
	}
	if e.Time.After(r.Last) {
		r.Last = e.Time
	}
	r.Requests++
	r.Replaced = max(r.Replaced, e.Replaced)
	if e.Usage == nil || e.Uncompacted == nil {
		r.Unmetered++
		return
	}
	r.Usage.Add(*e.Usage)
	r.Uncompacted.Add(*e.Uncompacted)
	r.Cost += e.Cost
	r.UncompactedCost += e.UncompactedCost
}

func (r Row) done() Row {
	r.Saved, r.Ratio = r.UncompactedCost-r.Cost, 1
	if r.UncompactedCost > 0 {
		r.Ratio = r.Cost / r.UncompactedCost
	}
	return r
}

// WriteJSON writes the report as one JSON document.
func (rep Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// WriteTable writes the report as a table: each session's requests, its
// prompt tokens and its bill as the client sent it → as the proxy sent
// it, and what that saved; then the total.
func (rep Report) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	if len(rep.Sessions) == 0 {
		b.WriteString("The ledger has no requests yet.\n")
		_, err := w.Write(b.Bytes())
		return err
	}
	t := &textfmt.Table{Right: map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true}}
	t.Row("SESSION", "MODEL", "REQUESTS", "REPLACED", "PROMPT TOKENS", "BILL", "SAVED")
	for _, r := range append(rep.Sessions, rep.Total) {
		t.Row(r.Session, r.Model, textfmt.Int(r.Requests), textfmt.Int(r.Replaced),
			textfmt.Int(int(r.Uncompacted.Prompt()))+" → "+textfmt.Int(int(r.Usage.Prompt())),
			textfmt.Dollars(r.UncompactedCost)+" → "+textfmt.Dollars(r.Cost),
			textfmt.Dollars(r.Saved)+" ("+textfmt.Percent(1-r.Ratio)+")")
	}
	if err := t.Write(&b); err != nil {
		return err
	}
	switch n := rep.Total.Unmetered; {
	case n == 1:
		b.WriteString("1 request had no usage in its answer: it is in neither bill.\n")
	case n > 1:
		fmt.Fprintf(&b, "%s requests had no usage in their answers: they are in neither bill.\n", textfmt.Int(n))
	}
	_, err := w.Write(b.Bytes())
	return err
}
