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

// ReadLedger reads the entries of a ledger, in order, and the numbers of
// the lines it skipped: lines that are not whole entries, which a crash
// in the middle of a write leaves. The next proxy's first line is then
// appended to the cut one: the entry that starts after the cut is read.
func ReadLedger(r io.Reader) (entries []Entry, skipped []int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, long, err := readLine(br)
		if err == io.EOF && len(line) == 0 && !long {
			return entries, skipped, nil
		}
		if err != nil && err != io.EOF {
			return nil, nil, err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 || long {
			e, whole, ok := entryOf(line)
			if ok && !long {
				entries = append(entries, e)
			}
			if !whole || long {
				skipped = append(skipped, n)
			}
		}
		if err == io.EOF {
			return entries, skipped, nil
		}
	}
}

// maxLedgerLine is the longest line of a ledger read: an entry is a few
// hundred bytes, and a longer line is skipped without being held.
const maxLedgerLine = 1 << 20

// readLine reads a line without its newline; long reports one over
// maxLedgerLine, of which it returns nothing.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	for {
		part, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(part) > maxLedgerLine {
				long, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimSuffix(line, []byte("\n")), long, err
		}
	}
}

// entryOf reads an entry from a line: the whole line (whole), else what
// follows the last start of an entry in it (a line cut short, and the
// next appended to it).
func entryOf(line []byte) (e Entry, whole, ok bool) {
	if json.Unmarshal(line, &e) == nil {
		return e, true, true
	}
	if i := bytes.LastIndex(line, []byte(`{"time":`)); i > 0 && json.Unmarshal(line[i:], &e) == nil {
		return e, false, true
	}
	return Entry{}, false, false
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
