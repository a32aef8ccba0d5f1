package count

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// By is what ctx-count --by groups the tokens of many transcripts by.
type By string

// The groupings. A transcript's project, session and file are the same for
// all of it; a message's day and model are its own, so that a session that
// ran past midnight or switched models is split between them; a tool's and
// a kind's tokens are its calls' arguments and results.
const (
	ByProject By = "project" // the session's working directory
	ByDay     By = "day"     // the message's local date
	BySession By = "session" // the session's id, else the file
	ByTool    By = "tool"    // the tool's name
	ByKind    By = "kind"    // the call's kind (a shell call's, its command's)
	ByFile    By = "file"    // the transcript file
	ByModel   By = "model"   // the model at work
)

// Bys lists the groupings, in the order --help shows them.
var Bys = []By{ByProject, ByDay, BySession, ByTool, ByKind, ByFile, ByModel}

// ParseBy reads a --by value.
func ParseBy(s string) (By, error) {
	for _, b := range Bys {
		if strings.EqualFold(strings.TrimSpace(s), string(b)) {
			return b, nil
		}
	}
	names := make([]string, len(Bys))
	for i, b := range Bys {
		names[i] = string(b)
	}
	return "", fmt.Errorf("unknown grouping %q (want %s)", s, strings.Join(names, ", "))
}

// The keys of what has no project, day, model or tool.
const (
	Unknown = "(unknown)" // no working directory, timestamp or model in the transcript
	NoTool  = "(no tool)" // the messages' own text and thinking, by tool or kind
	NoCall  = "(no call)" // a result whose call is not in the transcript
)

// Window is the span of time counted, by the messages' own timestamps:
// from Since (inclusive) to Until (exclusive). A zero bound is open.
type Window struct {
	Since, Until time.Time
}

// Open reports whether the window has no bound: everything counts, with or
// without a timestamp.
func (w Window) Open() bool { return w.Since.IsZero() && w.Until.IsZero() }

// Has reports whether a message written at t counts. With a bound, a
// message without a time does not.
func (w Window) Has(t time.Time) bool {
	switch {
	case w.Open():
		return true
	case t.IsZero():
		return false
	}
	return !t.Before(w.Since) && (w.Until.IsZero() || t.Before(w.Until))
}

// Group is one row of ctx-count --by: the tokens of what falls in it, over
// every transcript counted.
type Group struct {
	Key              string  `json:"key"`
	Sessions         int     `json:"sessions"` // transcripts with something in the group
	ToolCalls        int     `json:"tool_calls"`
	Errors           int     `json:"errors"`
	Tokens           int     `json:"tokens"`
	Share            float64 `json:"share"` // of all the tokens counted
	ToolOutputTokens int     `json:"tool_output_tokens"`
	ToolOutputShare  float64 `json:"tool_output_share"` // of the group's tokens
	// RereadTokens are the tokens of reads of lines already read before
	// in the same transcript; DedupeTokens what ctx-dedupe with its
	// defaults saves of them.
	RereadTokens int         `json:"reread_tokens"`
	DedupeTokens int         `json:"dedupe_tokens"`
	TopTools     []ToolShare `json:"top_tools"` // the tools that took most of the group's tokens
	// First and Last are the times of its earliest and latest message,
	// where the transcripts give them.
	First *time.Time `json:"first,omitempty"`
	Last  *time.Time `json:"last,omitempty"`

	tools map[string]int // the tokens of each tool: arguments and results
}

// ToolShare is a tool's part of a group.
type ToolShare struct {
	Name   string  `json:"name"`
	Tokens int     `json:"tokens"`
	Share  float64 `json:"share"` // of the group's tokens
}

// topTools is how many tools a group lists.
const topTools = 3

// Partial is one transcript's tokens by group: small, and holding nothing
// of the transcript's bytes, so that the transcript can go once it is
// made.
type Partial struct {
	groups map[string]*Group
}

// GroupTokens measures one transcript's tokens by group, counting only the
// messages in the window (calls and results go with the message that holds
// them). file names the transcript, for --by file and a session without an
// id.
func GroupTokens(t *transcript.Transcript, ctr tokens.Counter, by By, w Window, file string) Partial {
	p := Partial{groups: map[string]*Group{}}
	in := make([]bool, len(t.Messages))
	counted := false
	for i, m := range t.Messages {
		in[i] = w.Has(m.Time)
		counted = counted || in[i]
	}
	if !counted {
		return p
	}
	tl := stats.Count(t, ctr)
	key := keyer(t, by, file)
	group := func(k string) *Group {
		g := p.groups[k]
		if g == nil {
			// A copy: the key may point into the transcript's bytes.
			g = &Group{Key: strings.Clone(k), Sessions: 1, tools: map[string]int{}}
			p.groups[g.Key] = g
		}
		return g
	}
	seen := func(g *Group, m *transcript.Message) {
		if m.Time.IsZero() {
			return
		}
		if g.First == nil || m.Time.Before(*g.First) {
			g.First = &m.Time
		}
		if g.Last == nil || m.Time.After(*g.Last) {
			g.Last = &m.Time
		}
	}
	for i, m := range t.Messages {
		if !in[i] {
			continue
		}
		g := group(key(m, nil, false))
		seen(g, m)
		for _, n := range tl.Blocks[i] {
			g.Tokens += n
		}
	}
	for i, c := range t.Calls {
		if !in[c.Message.Index] {
			continue
		}
		g := group(key(c.Message, c.Command(), true))
		seen(g, c.Message)
		g.Tokens += tl.Calls[i]
		g.tools[c.Command().Name] += tl.Calls[i]
		if !c.IsPoll() {
			g.ToolCalls++
			if c.End() == outcome.Failed {
				g.Errors++
			}
		}
	}
	_, again := t.Reads()
	saved := dedupeSavings(t, ctr, tl)
	for i, r := range t.Results {
		if !in[r.Message.Index] {
			continue
		}
		var cmd *transcript.Call
		name := NoCall
		if r.Call != nil {
			cmd = r.Call.Command()
			name = cmd.Name
		}
		g := group(key(r.Message, cmd, true))
		seen(g, r.Message)
		cost := tl.Results[i]
		g.Tokens += cost
		g.ToolOutputTokens += cost
		g.tools[name] += cost
		if cmd != nil && again[cmd.Index] {
			g.RereadTokens += cost
		}
		g.DedupeTokens += saved[r]
	}
	for _, g := range p.groups {
		// The times point into the transcript's messages: copies let it go.
		if g.First != nil {
			first, last := *g.First, *g.Last
			g.First, g.Last = &first, &last
		}
		names := make(map[string]int, len(g.tools))
		for name, n := range g.tools {
			names[strings.Clone(name)] = n
		}
		g.tools = names
	}
	return p
}

// keyer returns the function that names the group of a message's own text
// (tool false), or of a call's arguments or a result (tool true; c is nil
// for a result without a call).
func keyer(t *transcript.Transcript, by By, file string) func(m *transcript.Message, c *transcript.Call, tool bool) string {
	orUnknown := func(s string) string {
		if s == "" {
			return Unknown
		}
		return s
	}
	switch by {
	case ByProject:
		k := orUnknown(t.Cwd)
		return func(*transcript.Message, *transcript.Call, bool) string { return k }
	case BySession:
		k := t.SessionID
		if k == "" {
			k = file
		}
		return func(*transcript.Message, *transcript.Call, bool) string { return k }
	case ByFile:
		return func(*transcript.Message, *transcript.Call, bool) string { return file }
	case ByDay:
		return func(m *transcript.Message, _ *transcript.Call, _ bool) string {
			if m.Time.IsZero() {
				return Unknown
			}
			return m.Time.Local().Format(time.DateOnly)
		}
	case ByModel:
		return func(m *transcript.Message, _ *transcript.Call, _ bool) string { return orUnknown(m.Model) }
	}
	return func(_ *transcript.Message, c *transcript.Call, tool bool) string {
		switch {
		case !tool:
			return NoTool
		case c == nil:
			return NoCall
		case by == ByKind:
			return string(c.Kind)
		}
		return c.Name
	}
}

// Grouped is ctx-count --by's report, the sum of the transcripts' Partials.
// Its JSON form is the --by --json schema (docs/count.md).
type Grouped struct {
	Version  int        `json:"version"`
	Encoding string     `json:"encoding"`
	By       By         `json:"by"`
	Since    *time.Time `json:"since,omitempty"`
	Until    *time.Time `json:"until,omitempty"`
	// Sessions are the transcripts counted; Skipped those with nothing in
	// the window (with --since or --until: no message in it, or no
	// timestamps at all).
	Sessions int     `json:"sessions"`
	Skipped  int     `json:"skipped"`
	Total    Group   `json:"total"`
	Groups   []Group `json:"groups"`

	byKey map[string]*Group
}

// NewGrouped starts an empty report.
func NewGrouped(encoding string, by By, w Window) *Grouped {
	g := &Grouped{Version: SchemaVersion, Encoding: encoding, By: by, byKey: map[string]*Group{}}
	if !w.Since.IsZero() {
		g.Since = &w.Since
	}
	if !w.Until.IsZero() {
		g.Until = &w.Until
	}
	return g
}

// Add adds one transcript's Partial.
func (g *Grouped) Add(p Partial) {
	if len(p.groups) == 0 {
		g.Skipped++
		return
	}
	g.Sessions++
	for k, x := range p.groups {
		if y := g.byKey[k]; y != nil {
			y.add(x)
		} else {
			g.byKey[k] = x
		}
	}
}

// add adds another group's numbers to g.
func (g *Group) add(x *Group) {
	g.Sessions += x.Sessions
	g.ToolCalls += x.ToolCalls
	g.Errors += x.Errors
	g.Tokens += x.Tokens
	g.ToolOutputTokens += x.ToolOutputTokens
	g.RereadTokens += x.RereadTokens
	g.DedupeTokens += x.DedupeTokens
	for name, n := range x.tools {
		g.tools[name] += n
	}
	if x.First != nil && (g.First == nil || x.First.Before(*g.First)) {
		g.First = x.First
	}
	if x.Last != nil && (g.Last == nil || x.Last.After(*g.Last)) {
		g.Last = x.Last
	}
}

// Finish sorts the groups by tokens, most first (then by key), adds them
// up into the total and computes the shares and the top tools. by tool,
// a group's top tool is itself, and none is listed.
func (g *Grouped) Finish() {
	g.Groups = g.Groups[:0]
	total := Group{Key: "total", tools: map[string]int{}}
	for _, x := range g.byKey {
		total.add(x)
		g.Groups = append(g.Groups, *x)
	}
	total.Sessions = g.Sessions
	sort.Slice(g.Groups, func(i, j int) bool {
		a, b := g.Groups[i], g.Groups[j]
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		return a.Key < b.Key
	})
	g.Total = total
	for _, x := range append([]*Group{&g.Total}, pointers(g.Groups)...) {
		x.Share = round4(share(x.Tokens, total.Tokens))
		x.ToolOutputShare = round4(share(x.ToolOutputTokens, x.Tokens))
		x.TopTools = []ToolShare{}
		if g.By != ByTool {
			x.TopTools = top(x.tools, x.Tokens)
		}
	}
	if g.Groups == nil {
		g.Groups = []Group{}
	}
}

func pointers(gs []Group) []*Group {
	out := make([]*Group, len(gs))
	for i := range gs {
		out[i] = &gs[i]
	}
	return out
}

// top lists the tools with the most tokens, at most topTools.
func top(tools map[string]int, total int) []ToolShare {
	out := make([]ToolShare, 0, len(tools))
	for name, n := range tools {
		if n > 0 {
			out = append(out, ToolShare{Name: name, Tokens: n, Share: round4(share(n, total))})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tokens != out[j].Tokens {
			return out[i].Tokens > out[j].Tokens
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(len(out), topTools)]
}

// WriteText writes the grouped report for people: a headline, then a row
// per group, most tokens first, and the total. rows is how many groups to
// list (0: all); the rest are added up in one line.
func (g *Grouped) WriteText(w io.Writer, rows int, color bool) error {
	p := &printer{w: w, color: color}
	t := g.Total
	p.line("By %s: %s, %s tokens (%s), %s of them tool output", g.By, textfmt.Plural(g.Sessions, "session", "sessions"),
		textfmt.Int(t.Tokens), g.Encoding, textfmt.Percent(t.ToolOutputShare))
	if g.Since != nil || g.Until != nil {
		span := "messages"
		if g.Since != nil {
			span += " since " + g.Since.Format(time.RFC3339)
		}
		if g.Until != nil {
			span += " until " + g.Until.Format(time.RFC3339)
		}
		p.line("%s; %s with none left out", span, textfmt.Plural(g.Skipped, "session", "sessions"))
	}
	p.line("")
	tb := textfmt.Table{Indent: "  ", Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true}}
	tb.Row(strings.ToUpper(string(g.By)), "SESSIONS", "CALLS", "TOKENS", "SHARE", "TOOL OUTPUT", "RE-READ", "DEDUPE", "TOP TOOLS")
	row := func(x Group) {
		tops := make([]string, len(x.TopTools))
		for i, s := range x.TopTools {
			tops[i] = s.Name + " " + textfmt.Percent(s.Share)
		}
		tb.Row(x.Key, textfmt.Int(x.Sessions), textfmt.Int(x.ToolCalls), textfmt.Int(x.Tokens), textfmt.Percent(x.Share),
			textfmt.Percent(x.ToolOutputShare), textfmt.Int(x.RereadTokens), textfmt.Int(x.DedupeTokens), strings.Join(tops, ", "))
	}
	shown := g.Groups
	if rows > 0 && len(shown) > rows {
		shown = shown[:rows]
	}
	for _, x := range shown {
		row(x)
	}
	row(t)
	p.table(&tb)
	if rest := g.Groups[len(shown):]; len(rest) > 0 {
		n := 0
		for _, x := range rest {
			n += x.Tokens
		}
		noun := string(g.By)
		if len(rest) > 1 {
			noun += "s"
		}
		p.line("  ... and %s more %s, %s tokens", textfmt.Int(len(rest)), noun, textfmt.Int(n))
	}
	return p.err
}
