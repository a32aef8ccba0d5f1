// Package sessionpage makes the page of a session that ctx-count --html
// writes: one self-contained HTML file, read offline, that shows where
// the tokens went request by request, what the session cost and would
// have cost with ctx-compact in the loop, the tool calls with their
// failures, denials, loops and re-reads, the largest results and what the
// filters made of them. Build reads a transcript into a Page (numbers and
// texts, no markup); WriteTo writes it, its charts drawn by
// internal/svgchart, every text from the transcript escaped.
package sessionpage

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/svgchart"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// Options say what a page shows beside the transcript's own tokens.
type Options struct {
	// Name is the transcript's name on the page: its file.
	Name    string
	Counter tokens.Counter
	// Prices price the replays and the usage records; nil leaves cost out.
	Prices *pricing.Table
	// Usage is the transcript's own usage records (usage.Read): those of
	// each request shown as the API reported them and priced as billed;
	// what the agent recorded that they cost shown beside. UsageSkipped is
	// how many more were left out, their counts impossible
	// (usage.Record.Impossible).
	Usage        []usage.Record
	UsageSkipped int
	// HourCache prices cache writes as Anthropic's 1-hour writes
	// (usage.HourCache of the records).
	HourCache bool
	// Policy is the compaction a replay puts in the loop (ctx-compact's),
	// for the cost it would have had; nil leaves it out.
	Policy replay.Policy
	// Model prices every request of the replays as this model (ctx-compact
	// --model); "" as the transcript says.
	Model string
	// Before is the transcript before a filter (ctx-count --before), named
	// BeforeName: its context beside this one's, its results' sizes before
	// they were replaced, and its texts of them.
	Before     *transcript.Transcript
	BeforeName string
	// Top is how many of the largest results to show.
	Top int
}

// Defaults are the options ctx-count --html builds the page of a
// transcript with, read from data, and named name: its own usage records,
// the embedded prices, ctx-compact with its defaults in the loop, the 10
// largest results.
func Defaults(name string, data []byte, t *transcript.Transcript, ctr tokens.Counter) (Options, error) {
	recs, skipped := usage.Possible(usage.Read(data, t.Format))
	hour := usage.HourCache(recs)
	copts := compact.Defaults(ctr)
	copts.HourCache = hour
	f, err := compact.New(copts)
	if err != nil {
		return Options{}, err
	}
	return Options{Name: name, Counter: ctr, Prices: pricing.Default(), Usage: recs, UsageSkipped: skipped, HourCache: hour, Top: 10,
		Policy: PolicyOf(f)}, nil
}

// PolicyOf is the policy of a ctx-compact filter in the loop.
func PolicyOf(f *compact.Filter) replay.Policy {
	return func(t *transcript.Transcript) replay.Advance { return f.Start(t).Advance }
}

// MaxColumns is the most columns a chart of requests draws, and rows its
// table holds: a longer session gets a column per run of requests (the
// largest of them shown), so that its page stays small.
const MaxColumns = 300

// The limits of the texts of the largest results: a text up to FullText
// bytes is on the page whole; a longer one by its first PreviewLines
// lines (PreviewText bytes at most), with the id that ctx-recall gives
// it back by.
const (
	FullText     = 8 << 10
	PreviewText  = 3 << 10
	PreviewLines = 40
)

// Page is what the page of a session shows.
type Page struct {
	Name, Format, Model string
	Cwd                 string // the session's working directory, where the transcript gives it
	Encoding            string
	// Start and End are the times of the first and last message, where
	// the transcript gives them ("" otherwise).
	Start, End string

	// Calls, Failed, Denied and Cancelled count the calls by how they
	// ended, as every report does (transcript.Tally).
	Messages, Requests, Calls int
	Failed, Denied, Cancelled int
	Tokens                    int // the whole history
	Sent                      int64
	Peak                      int // the largest request

	// Layers are what the tokens are (messages, thinking, tool inputs, the
	// output of each kind of tool), those the session has, with their
	// tokens in the whole history.
	Layers []Layer
	// Context is the tokens each request sent, by layer; Bucket is how
	// many requests a row holds (1 but for sessions of more than
	// MaxColumns requests).
	Context []Request
	Bucket  int
	// Restarts are the requests after which the agent compacted its own
	// history (1-based).
	Restarts []int
	// Before is the transcript before a filter, when given.
	Before *Before

	// Usage is the requests as the API reported them, when the transcript
	// has usage records; UsageBucket as Bucket. UsageSkipped is how many
	// records were left out, a count in them impossible.
	Usage        []UsageRow
	UsageBucket  int
	UsageSkipped int

	// Cost is the cost per request, when prices are given.
	Cost *Cost

	// Timeline is every tool call, in order; Loops the error loops among
	// them. A session of more than MaxColumns calls shows them by Slots
	// of CallBucket calls each.
	Timeline   []Call
	Loops      []Loop
	Slots      []CallSlot
	CallBucket int

	Largest []Result
	// Filters are the results a ctx-* filter replaced, by filter.
	Filters []Filter
}

// Layer is one kind of token: its name, its colour and its tokens in the
// whole history.
type Layer struct {
	Name   string
	Class  string
	Tokens int
}

// Request is a row of Context: requests First to Last (1-based), shown by
// request At, the largest of them.
type Request struct {
	Span
	Layers []int // tokens by Page.Layers
	Total  int
	// Before is what the request sent in the transcript before the filter
	// (with Page.Before), -1 when it has no such request.
	Before int
}

// Before is the transcript a filter was run on.
type Before struct {
	Name         string
	Tokens, Peak int
	Sent         int64
}

// UsageRow is a row of Usage: the API's records First to Last, shown by
// record At, the one with the largest prompt.
type UsageRow struct {
	Span
	Tokens pricing.Tokens
	// Billed is what the records up to Last cost in all.
	Billed float64
	Model  string
}

// Cost is what the session cost request by request, each way of sending
// it a run: as sent, replayed; with ctx-compact in the loop, replayed; the
// transcript before the filter, replayed; as billed, by the usage
// records.
type Cost struct {
	Model string // as the transcript names it, "" for none
	Known bool   // the price table knows the model
	// Default is the model of the format the session is priced as when
	// the table does not know its own.
	Default string
	Date    string
	// Prefix is the tokens the replays send before the history on every
	// request, which the transcript does not hold (the system prompt, the
	// tool definitions), estimated from the usage records (prefixOf): so
	// that a replay counts what the bill counts. 0 without records.
	Prefix int
	// Records is the usage records priced, and what the agent recorded
	// that their requests cost (RecordedCost), where it did.
	Records usage.Total
	// Columns are the requests each column of the chart shows, Bucket
	// requests each.
	Columns []Span
	Bucket  int
	Runs    []CostRun
	// Hidden is what ctx-compact's requests hid that the model went on to
	// use, and its cost with the requests that fetch it back; nil without
	// ctx-compact's replay, or when the model used no fact.
	Hidden *Hidden
}

// Hidden is what a replay with ctx-compact hid of the facts the model
// used (internal/facts), and its cost with the recalls (replay.Run).
type Hidden struct {
	Used, Hidden, Recalls int
	WithRecalls           float64
	// Change is the cost with recalls' change from the replay as sent.
	Change string
}

// Span is a run of requests, 1-based, shown by request At.
type Span struct{ First, Last, At int }

// CostRun is one way of sending the session.
type CostRun struct {
	Name   string // in a sentence
	Short  string // on a card
	Class  string
	Dashed bool
	Cost   float64 // in all
	// Change is its cost's change from Against's, the run it is compared
	// with: the replay with ctx-compact against the one as sent, the one
	// as sent against the one before the filter, else against the bill;
	// "" for none.
	Change, Against string
	Sent            int64 // prompt tokens in all
	Breaks          int   // requests that broke the cache
	// Cum is the cost up to each column's last request, and Broke whether
	// a request of the column broke the cache; a run shorter than the
	// others has fewer.
	Cum   []float64
	Broke []bool
}

// Call is one tool call of the timeline.
type Call struct {
	N       int    // 1-based
	ID      string // the call's id
	Request int    // the request that asked for it: its model turn, 1-based; 0 outside a turn
	Tool    string
	Kind    tools.Kind
	Target  string
	// Path is the file a read read (transcript.Reads); "" for any other
	// call.
	Path   string
	Tokens int // of all its results
	// Status is how it ended: "ok", "failed", "denied", "cancelled" or
	// "no result" (outcome.End).
	Status string
	Loop   int  // the loop it is part of, 1-based; 0 for none
	Reread bool // a read of lines an earlier read read
	// Filter is the ctx-* filter that replaced its result, "" for none.
	Filter string
	// Error is what a failed call's output says of how it failed, in a
	// line (outcome.Outcome.Message); "" for the others.
	Error string
}

// CallSlot is a run of calls shown together, First to Last (1-based),
// by the kind of their tools.
type CallSlot struct {
	First, Last int
	Kinds       []KindCalls // in the order of tools.Kinds
	Tokens      int         // their results'
	Failed      int
	Denied      int
	Rereads     int
}

// KindCalls are a slot's calls of one kind of tool.
type KindCalls struct {
	Kind           tools.Kind
	Calls, Tokens  int
	Largest        int // the largest result's tokens
	Failed, Denied int
	Rereads        int
}

// Loop is one error loop.
type Loop struct {
	N                  int
	Kind               loops.Kind
	Tool, What, Error  string
	Calls, First, Last int // how many; the first and last call, 1-based
	Verdict            string
}

// Result is one of the largest results.
type Result struct {
	Call               int // 1-based; 0 for a result without a call
	Tool, Kind, Target string
	Tokens             int
	Before             int // its tokens before the filter (with Page.Before); 0 when the same
	Status             string
	Filter, Marker     string // the filter that replaced it and its marker's line
	Text               string // what the page shows of it: whole, or its start
	Whole              bool
	Lines, Bytes       int    // of the text the full output is
	Handle             string // the id ctx-recall gives the full output back by
	// HandleCited says the marker cites the handle (an archive holds the
	// output); else it is the id the archive would keep it under.
	HandleCited bool
}

// Replaced is how many results the filters replaced.
func (p *Page) Replaced() int {
	n := 0
	for _, f := range p.Filters {
		n += f.Results
	}
	return n
}

// Filter is what one filter replaced.
type Filter struct {
	Name    string // dedupe, truncate, …
	Results int
	Tokens  int // their tokens now
	Before  int // and before (with Page.Before)
}

// layer names, in the order of the stack from the bottom, with their
// colours: the tool kinds keep theirs in the timeline.
const (
	layerMessages = "messages"
	layerThinking = "thinking"
	layerInputs   = "tool inputs"
)

var layerClass = map[string]string{
	layerMessages:        svgchart.Class(10),
	layerThinking:        svgchart.Class(11),
	layerInputs:          svgchart.Class(6),
	string(tools.Read):   svgchart.Class(0),
	string(tools.Edit):   svgchart.Class(2),
	string(tools.Write):  svgchart.Class(9),
	string(tools.Shell):  svgchart.Class(1),
	string(tools.List):   svgchart.Class(4),
	string(tools.Search): svgchart.Class(5),
	string(tools.Git):    svgchart.Class(7),
	string(tools.Web):    svgchart.Class(8),
	string(tools.Other):  svgchart.Class(3),
}

// allLayers is every layer, in the stack's order.
func allLayers() []string {
	out := []string{layerMessages, layerThinking, layerInputs}
	for _, k := range tools.Kinds {
		out = append(out, string(k))
	}
	return out
}

// session is a transcript with its counts, read once.
type session struct {
	t     *transcript.Transcript
	tl    stats.Tally
	turns []transcript.Turn
	msgs  [][]int // each message's tokens, by layer (allLayers)
	sent  [][]int // each request's
}

func read(t *transcript.Transcript, ctr tokens.Counter) *session {
	s := &session{t: t, tl: stats.Count(t, ctr), turns: t.Turns()}
	s.msgs = messageLayers(t, s.tl)
	s.sent = requestLayers(t, s.turns, s.msgs)
	return s
}

// Build reads t into its page.
func Build(t *transcript.Transcript, opts Options) *Page {
	s := read(t, opts.Counter)
	var before *session
	if opts.Before != nil {
		before = read(opts.Before, opts.Counter)
	}
	p := &Page{Name: opts.Name, Format: string(t.Format), Cwd: t.Cwd, Encoding: opts.Counter.Name(),
		Messages: len(t.Messages), Requests: len(s.turns), Tokens: s.tl.Tokens(),
		Model: mostModel(t), Restarts: restarts(s.turns)}
	p.Start, p.End = span(t)
	p.context(s, before)
	if p.Before != nil {
		p.Before.Name = opts.BeforeName
	}
	p.readUsage(opts)
	if opts.Prices != nil {
		first := 0
		if len(s.sent) > 0 {
			first = sum(s.sent[0])
		}
		p.Cost = costOf(t, opts, first)
	}
	p.calls(s)
	p.errors(s.t)
	p.slots()
	pairs := matchBefore(t, opts.Before)
	p.largest(s, before, pairs, opts.Top)
	p.filters(s, before, pairs)
	return p
}

// context reads the tokens each request sent, by layer, and the
// transcript before the filter's.
func (p *Page) context(s, before *session) {
	present := make([]int, len(allLayers())) // each layer's tokens in the whole history
	for _, m := range s.msgs {
		for j, n := range m {
			present[j] += n
		}
	}
	var keep []int // the layers the session has
	for j, name := range allLayers() {
		if present[j] > 0 {
			keep = append(keep, j)
			p.Layers = append(p.Layers, Layer{Name: name, Class: layerClass[name], Tokens: present[j]})
		}
	}
	for _, row := range s.sent {
		n := sum(row)
		p.Sent += int64(n)
		p.Peak = max(p.Peak, n)
	}
	var beforeSent []int
	if before != nil {
		p.Before = &Before{Tokens: before.tl.Tokens()}
		for _, row := range before.sent {
			n := sum(row)
			beforeSent = append(beforeSent, n)
			p.Before.Sent += int64(n)
			p.Before.Peak = max(p.Before.Peak, n)
		}
	}
	p.Bucket = bucket(len(s.sent))
	for _, sp := range columns(len(s.sent), func(k int) int64 { return int64(sum(s.sent[k])) }) {
		at := sp.At - 1
		row := Request{Span: sp, Total: sum(s.sent[at]), Before: -1}
		for _, j := range keep {
			row.Layers = append(row.Layers, s.sent[at][j])
		}
		if at < len(beforeSent) {
			row.Before = beforeSent[at]
		}
		p.Context = append(p.Context, row)
	}
}

// bucket is how many requests a column holds for n requests.
func bucket(n int) int { return max(1, (n+MaxColumns-1)/MaxColumns) }

// columns cuts n requests into columns of bucket(n), each shown by its
// largest request by size.
func columns(n int, size func(k int) int64) []Span {
	b := bucket(n)
	var out []Span
	for lo := 0; lo < n; lo += b {
		hi := min(lo+b, n)
		at := lo
		for k := lo; k < hi; k++ {
			if size(k) > size(at) {
				at = k
			}
		}
		out = append(out, Span{First: lo + 1, Last: hi, At: at + 1})
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// messageLayers is each message's tokens by layer (allLayers).
func messageLayers(t *transcript.Transcript, tl stats.Tally) [][]int {
	names := allLayers()
	index := map[string]int{}
	for j, n := range names {
		index[n] = j
	}
	out := make([][]int, len(t.Messages))
	for i, m := range t.Messages {
		row := make([]int, len(names))
		for j, b := range m.Blocks {
			if b.Type == transcript.Thinking {
				row[index[layerThinking]] += tl.Blocks[i][j]
			} else {
				row[index[layerMessages]] += tl.Blocks[i][j]
			}
		}
		for _, c := range m.Calls {
			row[index[layerInputs]] += tl.Calls[c.Index]
		}
		for _, r := range m.Results {
			row[index[string(kindOf(r))]] += tl.Results[r.Index]
		}
		out[i] = row
	}
	return out
}

// kindOf is the kind of a result's call: a shell call's, its command's;
// other for a result without a call.
func kindOf(r *transcript.Result) tools.Kind {
	if r.Call == nil || r.Call.Kind == "" {
		return tools.Other
	}
	return r.Call.Kind
}

// requestLayers is the tokens each request sent, by layer: the messages
// of its history (transcript.Turn).
func requestLayers(t *transcript.Transcript, turns []transcript.Turn, byMsg [][]int) [][]int {
	width := len(allLayers())
	prefix := make([][]int, len(t.Messages)+1) // sums of the messages before i
	prefix[0] = make([]int, width)
	for i, row := range byMsg {
		next := slices.Clone(prefix[i])
		for j, n := range row {
			next[j] += n
		}
		prefix[i+1] = next
	}
	out := make([][]int, len(turns))
	for k, tn := range turns {
		row := make([]int, width)
		for j := range row {
			row[j] = prefix[tn.Messages[0]][j] - prefix[tn.Start][j]
		}
		out[k] = row
	}
	return out
}

// restarts are the requests (1-based) whose history starts after the one
// before's: the agent compacted its own history.
func restarts(turns []transcript.Turn) []int {
	var out []int
	for k := 1; k < len(turns); k++ {
		if turns[k].Start != turns[k-1].Start {
			out = append(out, k+1)
		}
	}
	return out
}

// mostModel is the model that wrote most of the assistant's messages, ""
// when the transcript names none.
func mostModel(t *transcript.Transcript) string {
	n := map[string]int{}
	for _, m := range t.Messages {
		if m.Role == "assistant" && m.Model != "" {
			n[m.Model]++
		}
	}
	best := ""
	for name, k := range n {
		if k > n[best] || k == n[best] && name < best {
			best = name
		}
	}
	return best
}

// span is the times of the first and last message, in UTC.
func span(t *transcript.Transcript) (string, string) {
	var first, last time.Time
	for _, m := range t.Messages {
		if m.Time.IsZero() {
			continue
		}
		if first.IsZero() {
			first = m.Time
		}
		last = m.Time
	}
	if first.IsZero() {
		return "", ""
	}
	const layout = "2006-01-02 15:04 UTC"
	return first.UTC().Format(layout), last.UTC().Format(layout)
}

// readUsage reads the usage records of each request into rows.
func (p *Page) readUsage(opts Options) {
	recs := perRequest(opts.Usage)
	p.UsageSkipped = opts.UsageSkipped
	if len(recs) == 0 {
		return
	}
	p.UsageBucket = bucket(len(recs))
	billed := make([]float64, len(recs)) // cumulative
	total := 0.0
	for i, r := range recs {
		if opts.Prices != nil {
			pr, _ := opts.Prices.For(r.Model, transcript.Format(p.Format))
			total += r.Estimate(pr)
		}
		billed[i] = total
	}
	for _, sp := range columns(len(recs), func(k int) int64 { return recs[k].Tokens.Prompt() }) {
		r := recs[sp.At-1]
		p.Usage = append(p.Usage, UsageRow{Span: sp, Tokens: r.Tokens, Billed: billed[sp.Last-1], Model: r.Model})
	}
}

// perRequest are the records of one request each: a session's totals
// (SWE-agent's) are not drawn request by request.
func perRequest(recs []usage.Record) []usage.Record {
	if slices.ContainsFunc(recs, func(r usage.Record) bool { return r.Requests > 1 }) {
		return nil
	}
	return recs
}

// prefixOf is the tokens an agent sent before the history on every
// request, which the transcript does not hold (the system prompt, the
// tool definitions), as the usage records show them: the first request's
// prompt as the API counted it, less first, the history the transcript
// holds for it. 0 without records of each request.
func prefixOf(recs []usage.Record, first int) int {
	if len(recs) == 0 {
		return 0
	}
	return max(int(recs[0].Tokens.Prompt())-first, 0)
}

// costOf replays the session as it was, with the policy, and the
// transcript before the filter, each with the prefix that the usage
// records show (first is the tokens the transcript holds of the first
// request), and prices the usage records.
func costOf(t *transcript.Transcript, opts Options, first int) *Cost {
	recs := perRequest(opts.Usage)
	pre := prefixOf(recs, first)
	ropts := replay.Options{Counter: opts.Counter, Prices: opts.Prices, HourCache: opts.HourCache, Model: opts.Model, Prefix: pre}
	var steps [2][]replay.Step
	ropts.Trace = func(compacted bool, s replay.Step) {
		i := 0
		if compacted {
			i = 1
		}
		steps[i] = append(steps[i], s)
	}
	s := replay.Replay(t, opts.Policy, ropts)
	c := &Cost{Model: s.Model, Known: s.Known, Default: pricing.DefaultModel(t.Format), Date: opts.Prices.Date(), Prefix: pre}
	for _, r := range opts.Usage {
		pr, known := opts.Prices.For(r.Model, t.Format)
		c.Records.Add(r, pr, known)
	}
	var runs [][]replay.Step
	add := func(name, short, class string, dashed bool, ss []replay.Step) int {
		c.Runs = append(c.Runs, CostRun{Name: name, Short: short, Class: class, Dashed: dashed})
		runs = append(runs, ss)
		return len(runs) - 1
	}
	bill, before, compacted := -1, -1, -1
	if len(recs) > 0 {
		bill = add("Billed, by the API's usage records", "billed (usage records)", svgchart.Stop, false, billedSteps(recs, t.Format, opts.Prices))
	}
	if opts.Before != nil {
		var ss []replay.Step
		ropts.Trace = func(_ bool, s replay.Step) { ss = append(ss, s) }
		replay.Replay(opts.Before, nil, ropts)
		before = add("Before the filter, replayed", "replayed, before the filter", svgchart.Class(10), true, ss)
	}
	sent := add("As sent, replayed", "replayed, as sent", svgchart.Class(0), false, steps[0])
	if s.Compacted != nil {
		compacted = add("With ctx-compact in the loop, replayed", "replayed, with ctx-compact", svgchart.Class(2), false, steps[1])
	}
	if s.Compacted != nil && s.FactsUsed > 0 {
		c.Hidden = &Hidden{Used: s.FactsUsed, Hidden: s.Compacted.Hidden, Recalls: s.Compacted.Recalls,
			WithRecalls: s.Compacted.WithRecalls, Change: change(s.AsIs.Cost, s.Compacted.WithRecalls)}
	}
	c.draw(runs)
	// Each run is compared with the one it is like: a replay with the
	// bill, which counts the same prefix, or with the replay before it.
	c.compare(before, bill, "the bill")
	if before >= 0 {
		c.compare(sent, before, "the replay before the filter")
	} else {
		c.compare(sent, bill, "the bill")
	}
	c.compare(compacted, sent, "the replay as sent")
	return c
}

// compare states run i's cost against run j's, named against; nothing
// when either is missing.
func (c *Cost) compare(i, j int, against string) {
	if i < 0 || j < 0 {
		return
	}
	if ch := change(c.Runs[j].Cost, c.Runs[i].Cost); ch != "" {
		c.Runs[i].Change, c.Runs[i].Against = ch, against
	}
}

// draw adds up each run's steps into its cost, its prompt tokens and its
// cache breaks, and cuts them into the chart's columns.
func (c *Cost) draw(runs [][]replay.Step) {
	n := 0
	for _, ss := range runs {
		n = max(n, len(ss))
	}
	c.Columns, c.Bucket = columns(n, func(k int) int64 { return int64(k) }), bucket(n)
	for i, ss := range runs {
		r := &c.Runs[i]
		total := 0.0
		cum := make([]float64, len(ss))
		for k, st := range ss {
			total += st.Cost
			cum[k] = total
			r.Sent += st.Tokens.Prompt()
			if st.Break {
				r.Breaks++
			}
		}
		r.Cost = total
		for _, sp := range c.Columns {
			if sp.Last > len(ss) {
				break
			}
			broke := false
			for _, st := range ss[sp.First-1 : sp.Last] {
				broke = broke || st.Break
			}
			r.Cum = append(r.Cum, cum[sp.Last-1])
			r.Broke = append(r.Broke, broke)
		}
	}
}

// billedSteps are the usage records as the steps of a run, priced. A
// record that read less from the cache than the one before it read and
// wrote there broke the cache (or found it expired).
func billedSteps(recs []usage.Record, f transcript.Format, prices *pricing.Table) []replay.Step {
	out := make([]replay.Step, len(recs))
	for i, r := range recs {
		pr, _ := prices.For(r.Model, f)
		out[i] = replay.Step{Turn: i, Tokens: r.Tokens, Cost: r.Estimate(pr)}
		if i > 0 {
			prev := recs[i-1].Tokens
			out[i].Break = r.Tokens.CacheRead < prev.CacheRead+prev.CacheWrite+prev.CacheWrite1h
		}
	}
	return out
}

// calls reads the timeline: every call, how it ended, its loop, whether
// it re-read lines. A command and the calls that poll it are one call
// (transcript.Call.Command), with the tokens of all their results.
func (p *Page) calls(s *session) {
	t, tl := s.t, s.tl
	turnOf := make([]int, len(t.Messages)) // 1-based, 0 outside a turn
	for k, tn := range s.turns {
		for _, i := range tn.Messages {
			turnOf[i] = k + 1
		}
	}
	read, again := t.Reads()
	at := places(t)
	for c := range t.Commands() {
		call := Call{N: len(p.Timeline) + 1, ID: c.ID, Request: turnOf[c.Message.Index], Tool: c.Name, Kind: c.Kind,
			Target: c.Args.Label(c.Kind, t.Cwd), Path: read[c.Index], Status: c.End().String(), Reread: again[c.Index]}
		for r := range c.Results() {
			call.Tokens += tl.Results[r.Index]
			if call.Filter == "" {
				call.Filter, _, _ = replacedBy(r)
			}
		}
		p.Timeline = append(p.Timeline, call)
	}
	n := t.Tally()
	p.Calls, p.Failed, p.Denied, p.Cancelled = n.Calls, n.Failed, n.Denied, n.Cancelled
	var steps []loops.Step
	var callOf []int // each step's place in the timeline: its command's
	for _, c := range t.Calls {
		k := len(steps)
		if steps = loops.AddStep(steps, c, t.Cwd); len(steps) > k {
			callOf = append(callOf, at[c.Command().Index])
		}
	}
	d, err := loops.New(loops.Options{Min: loops.DefaultMin, Cycles: loops.DefaultCycles})
	if err != nil {
		panic(err) // the defaults are valid
	}
	for i, l := range d.Find(steps) {
		lp := Loop{N: i + 1, Kind: l.Kind, Tool: l.Tool, What: l.What, Error: l.Error, Calls: len(l.Steps), Verdict: l.Verdict(),
			First: callOf[l.Steps[0]] + 1, Last: callOf[l.Steps[len(l.Steps)-1]] + 1}
		for _, s := range l.Steps {
			if c := &p.Timeline[callOf[s]]; c.Loop == 0 {
				c.Loop = lp.N
			}
		}
		p.Loops = append(p.Loops, lp)
	}
}

// places gives each call the place of its command in the timeline,
// 0-based.
func places(t *transcript.Transcript) []int {
	at := make([]int, len(t.Calls))
	n := 0
	for _, c := range t.Calls {
		if c.IsPoll() {
			at[c.Index] = at[c.Continues.Index]
			continue
		}
		at[c.Index] = n
		n++
	}
	return at
}

// errors reads what each failed command's output says of how it failed:
// its latest result (a poll's, where it was polled), as the timeline has
// one place a command.
func (p *Page) errors(t *transcript.Transcript) {
	i := 0
	for c := range t.Commands() {
		if r := c.Last(); r != nil && p.Timeline[i].Status == "failed" {
			p.Timeline[i].Error = c.Outcome().Message(r.Text())
		}
		i++
	}
}

// replacedBy says which ctx-* filter replaced a result, and its marker's
// line: the marker that starts the text, or the line of a cut
// (ctx-truncate's, between the head and the tail it kept). ctx-loops'
// denial is a call's answer, not a replacement.
func replacedBy(r *transcript.Result) (tool, line string, ok bool) {
	if r.End() == outcome.Denied {
		return "", "", false
	}
	text := r.Text()
	if tool, line, ok := marker.Parse(text); ok {
		return tool, line, true
	}
	if cut, ok := marker.CutLine(text); ok {
		tool, line, _ := marker.Parse(cut)
		return tool, line, true
	}
	return "", "", false
}

// slots cuts the calls of a session of more than MaxColumns of them into
// slots of CallBucket calls.
func (p *Page) slots() {
	p.CallBucket = bucket(len(p.Timeline))
	if p.CallBucket == 1 {
		return
	}
	for lo := 0; lo < len(p.Timeline); lo += p.CallBucket {
		hi := min(lo+p.CallBucket, len(p.Timeline))
		slot := CallSlot{First: lo + 1, Last: hi}
		by := map[tools.Kind]*KindCalls{}
		for _, c := range p.Timeline[lo:hi] {
			k := by[kindLane(c.Kind)]
			if k == nil {
				k = &KindCalls{Kind: kindLane(c.Kind)}
				by[k.Kind] = k
			}
			k.Calls++
			k.Tokens += c.Tokens
			k.Largest = max(k.Largest, c.Tokens)
			slot.Tokens += c.Tokens
			switch c.Status {
			case "failed":
				k.Failed++
				slot.Failed++
			case "denied":
				k.Denied++
				slot.Denied++
			}
			if c.Reread {
				k.Rereads++
				slot.Rereads++
			}
		}
		for _, kind := range tools.Kinds {
			if k := by[kind]; k != nil {
				slot.Kinds = append(slot.Kinds, *k)
			}
		}
		p.Slots = append(p.Slots, slot)
	}
}

// kindLane is the lane of a kind of tool: other for a call without one.
func kindLane(k tools.Kind) tools.Kind {
	if k == "" {
		return tools.Other
	}
	return k
}

// status says how a result's call ended, in the words of every report:
// its command's end.
func status(r *transcript.Result) string {
	if r.Call != nil {
		return r.Call.End().String()
	}
	return r.End().String()
}

// largest picks the largest results: by their size before the filter
// when the transcript before it is given, so that what a filter replaced
// shows.
func (p *Page) largest(s, before *session, pairs []*transcript.Result, top int) {
	t, tl := s.t, s.tl
	size := func(r *transcript.Result) int {
		if b := pairs[r.Index]; b != nil {
			return before.tl.Results[b.Index]
		}
		return tl.Results[r.Index]
	}
	at := places(t)
	order := slices.Clone(t.Results)
	slices.SortStableFunc(order, func(a, b *transcript.Result) int { return cmp.Compare(size(b), size(a)) })
	for _, r := range order[:min(max(top, 0), len(order))] {
		if size(r) == 0 {
			break
		}
		res := Result{Tool: "(no call)", Kind: string(tools.Other), Tokens: tl.Results[r.Index], Status: status(r)}
		if c := r.Call; c != nil {
			cmd := c.Command()
			res.Call, res.Tool, res.Kind, res.Target = at[c.Index]+1, cmd.Name, string(cmd.Kind), cmd.Args.Label(cmd.Kind, t.Cwd)
		}
		text := r.Text()
		full := text // the output as the tool gave it, where the page has it
		res.Filter, res.Marker, _ = replacedBy(r)
		if b := pairs[r.Index]; b != nil && b.Text() != text {
			res.Before, full = before.tl.Results[b.Index], b.Text()
		}
		res.Handle = marker.CitedIn(text)
		res.HandleCited = res.Handle != ""
		if res.Handle == "" {
			res.Handle = marker.Handle(t, r)
		}
		if res.Filter != "" && full == text && !marker.IsCut(text) {
			full = "" // the page has the marker alone; the output is in the archive, if anywhere
		}
		res.Bytes, res.Lines = len(full), lineCount(full)
		res.Text, res.Whole = preview(full)
		p.Largest = append(p.Largest, res)
	}
}

// matchBefore pairs each result with its result in the transcript before
// the filter: filters keep the results and their order, so the same
// position, with the same call id.
func matchBefore(t, before *transcript.Transcript) []*transcript.Result {
	out := make([]*transcript.Result, len(t.Results))
	if before == nil {
		return out
	}
	for i, r := range t.Results {
		if i < len(before.Results) && before.Results[i].CallID == r.CallID {
			out[i] = before.Results[i]
		}
	}
	return out
}

// preview is what the page shows of a text: all of it up to FullText
// bytes, else its first lines.
func preview(text string) (string, bool) {
	if len(text) <= FullText {
		return text, true
	}
	cut := len(text)
	if i := nthIndex(text, '\n', PreviewLines); i >= 0 {
		cut = i
	}
	cut = min(cut, PreviewText)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut], false
}

// nthIndex is the index of the n-th c in s, -1 when s has fewer.
func nthIndex(s string, c byte, n int) int {
	at := -1
	for range n {
		i := strings.IndexByte(s[at+1:], c)
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	return at
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// filters adds up the results each ctx-* filter replaced.
func (p *Page) filters(s, before *session, pairs []*transcript.Result) {
	by := map[string]*Filter{}
	for _, r := range s.t.Results {
		tool, _, ok := replacedBy(r)
		if !ok {
			continue
		}
		f := by[tool]
		if f == nil {
			f = &Filter{Name: tool}
			by[tool] = f
		}
		f.Results++
		f.Tokens += s.tl.Results[r.Index]
		if b := pairs[r.Index]; b != nil {
			f.Before += before.tl.Results[b.Index]
		}
	}
	for _, f := range by {
		p.Filters = append(p.Filters, *f)
	}
	slices.SortFunc(p.Filters, func(a, b Filter) int { return strings.Compare(a.Name, b.Name) })
}
