package sessionpage

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/svgchart"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/usage"
)

//go:embed page.html.tmpl
var pageTemplate string

//go:embed page.css
var pageCSS string

// style is the page's stylesheet: its own and the charts'.
var style = pageCSS + svgchart.CSS()

// policy is the page's Content-Security-Policy: nothing is loaded, nothing
// runs; only its own stylesheet applies (by its hash), so that a page
// opened from a file asks the network for nothing.
var policy = "default-src 'none'; style-src 'sha256-" + hash(style) + "'; base-uri 'none'; form-action 'none'"

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"int":      func(n any) string { return textfmt.Int(toInt(n)) },
	"usd":      usd,
	"share":    func(part, whole any) string { return share(toInt(part), toInt(whole)) },
	"change":   func(before, after any) string { return change(float64(toInt(before)), float64(toInt(after))) },
	"text":     text,
	"line":     line,
	"clip":     func(n int, s string) string { return textfmt.Clip(line(s), n) },
	"req":      rowLabel,
	"plural":   func(n any, one, many string) string { return textfmt.Plural(toInt(n), one, many) },
	"recorded": recorded,
}).Parse(pageTemplate))

// Charts are a page's charts, drawn from its numbers.
type Charts struct {
	Share   svgchart.Share
	Context svgchart.Columns
	Usage   *svgchart.Columns // nil without usage records
	Cost    *svgchart.Lines   // nil without prices
	Calls   *svgchart.Strip   // nil without calls
	Largest *svgchart.Bars    // nil without results
}

// WriteTo writes the page: one HTML file that needs nothing else.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	ch := p.Charts()
	svg := map[string]template.HTML{
		// svgchart escapes every text it draws.
		"share":   template.HTML(ch.Share.SVG()),
		"context": template.HTML(ch.Context.SVG()),
	}
	if ch.Usage != nil {
		svg["usage"] = template.HTML(ch.Usage.SVG())
	}
	if ch.Cost != nil {
		svg["cost"] = template.HTML(ch.Cost.SVG())
	}
	if ch.Calls != nil {
		svg["calls"] = template.HTML(ch.Calls.SVG())
	}
	if ch.Largest != nil {
		svg["largest"] = template.HTML(ch.Largest.SVG())
	}
	var b bytes.Buffer
	err := tmpl.Execute(&b, struct {
		*Page
		SVG    map[string]template.HTML
		Style  template.CSS
		Policy string
		Kinds  []lane
	}{p, svg, template.CSS(style), policy, p.kinds()})
	if err != nil {
		return 0, err
	}
	return b.WriteTo(w)
}

// lane is a lane of the timeline: a kind of tool, its colour and its
// calls.
type lane struct {
	Kind  tools.Kind
	Class string
	Calls int
}

// kinds are the lanes of the timeline: the kinds of tool the calls have,
// in the order of tools.Kinds, with their layers' colours.
func (p *Page) kinds() []lane {
	n := map[tools.Kind]int{}
	for _, c := range p.Timeline {
		n[kindLane(c.Kind)]++
	}
	var out []lane
	for _, k := range tools.Kinds {
		if n[k] > 0 {
			out = append(out, lane{Kind: k, Class: layerClass[string(k)], Calls: n[k]})
		}
	}
	return out
}

// Charts draws the page's charts.
func (p *Page) Charts() Charts {
	var ch Charts
	for _, l := range p.Layers {
		ch.Share.Parts = append(ch.Share.Parts, svgchart.Part{Name: l.Name, Class: l.Class, Value: float64(l.Tokens),
			Title: l.Name + ": " + textfmt.Int(l.Tokens) + " tokens, " + share(l.Tokens, p.Tokens)})
	}
	ch.Share.ID, ch.Share.Title = "chart-share", "The history's "+textfmt.Int(p.Tokens)+" tokens by what they are"
	ch.Context = p.contextChart()
	if len(p.Usage) > 0 {
		ch.Usage = p.usageChart()
	}
	if p.Cost != nil {
		ch.Cost = p.costChart()
	}
	if len(p.Timeline) > 0 {
		ch.Calls = p.callsChart()
	}
	if len(p.Largest) > 0 {
		b := &svgchart.Bars{ID: "chart-largest", Title: "The largest tool results, in tokens", Format: func(v float64) string { return textfmt.Int(int(v)) + " tokens" }}
		for _, r := range p.Largest {
			bar := svgchart.Bar{Label: textfmt.Clip(textfmt.Escape(r.Tool+" "+r.Target), 46), Value: float64(r.Tokens), Ghost: float64(r.Before),
				Class: layerClass[string(kindLane(tools.Kind(r.Kind)))], Title: r.Tool + " " + r.Target + ": " + textfmt.Int(r.Tokens) + " tokens"}
			if r.Before > 0 {
				bar.Title += ", " + textfmt.Int(r.Before) + " before the filter"
			}
			b.Bars = append(b.Bars, bar)
		}
		ch.Largest = b
	}
	return ch
}

func (p *Page) contextChart() svgchart.Columns {
	c := svgchart.Columns{ID: "chart-context", Title: "Tokens sent per request, by what they are",
		XTitle: "request", YTitle: "tokens sent", YFormat: short,
		XLabel: func(i int) string { return strconv.Itoa(p.Context[i].First) }}
	for _, l := range p.Layers {
		c.Layers = append(c.Layers, svgchart.Layer{Name: l.Name, Class: l.Class})
	}
	var before []float64
	for _, r := range p.Context {
		vs := make([]float64, len(r.Layers))
		title := spanText(r.Span, "request") + ": " + textfmt.Int(r.Total) + " tokens"
		for j, n := range r.Layers {
			vs[j] = float64(n)
			if n > 0 {
				title += "\n" + p.Layers[j].Name + " " + textfmt.Int(n)
			}
		}
		if r.Before >= 0 {
			before = append(before, float64(r.Before))
			title += "\nbefore the filter " + textfmt.Int(r.Before)
		}
		c.Values = append(c.Values, vs)
		c.Titles = append(c.Titles, title)
	}
	if p.Before != nil {
		c.Lines = append(c.Lines, svgchart.Series{Name: "before the filter: " + p.Before.Name, Class: svgchart.Stop, Dashed: true, Values: before})
	}
	c.Markers = p.markers(p.Bucket)
	return c
}

// markers mark the columns, of bucket requests each, where the agent
// compacted its history.
func (p *Page) markers(bucket int) []svgchart.Marker {
	var out []svgchart.Marker
	for _, k := range p.Restarts {
		out = append(out, svgchart.Marker{At: (k - 1) / max(bucket, 1), Label: "compacted"})
	}
	return out
}

// usageLayers are the layers of the usage chart: how the API billed the
// prompt, and the output.
var usageLayers = []svgchart.Layer{
	{Name: "cache reads", Class: svgchart.Class(8)},
	{Name: "cache writes", Class: svgchart.Class(1)},
	{Name: "input", Class: svgchart.Class(5)},
	{Name: "output", Class: svgchart.Class(2)},
}

// UsageLayers are the names of the usage chart's layers, for the page's
// legend.
func (p *Page) UsageLayers() []Layer {
	out := make([]Layer, len(usageLayers))
	for i, l := range usageLayers {
		out[i] = Layer{Name: l.Name, Class: l.Class}
	}
	return out
}

func (p *Page) usageChart() *svgchart.Columns {
	c := &svgchart.Columns{ID: "chart-usage", Title: "Tokens per request as the API reported them", Layers: usageLayers,
		XTitle: "request (the API's records)", YTitle: "tokens", YFormat: short,
		XLabel: func(i int) string { return strconv.Itoa(p.Usage[i].First) }}
	for _, r := range p.Usage {
		tk := r.Tokens
		vs := []float64{float64(tk.CacheRead), float64(tk.CacheWrite + tk.CacheWrite1h), float64(tk.Input), float64(tk.Output)}
		c.Values = append(c.Values, vs)
		title := spanText(r.Span, "request") + ": " + textfmt.Int(int(tk.Prompt())) + " tokens sent"
		for j, v := range vs {
			title += "\n" + usageLayers[j].Name + " " + textfmt.Int(int(v))
		}
		c.Titles = append(c.Titles, title)
	}
	return c
}

func (p *Page) costChart() *svgchart.Lines {
	cost := p.Cost
	c := &svgchart.Lines{ID: "chart-cost", Title: "Cumulative cost per request, in US dollars", XTitle: "request", YTitle: "US dollars",
		YFormat: usd, XLabel: func(i int) string { return strconv.Itoa(cost.Columns[i].Last) }}
	for _, r := range cost.Runs {
		s := svgchart.Series{Name: r.Name, Class: r.Class, Dashed: r.Dashed, Values: r.Cum}
		for i, b := range r.Broke {
			if b {
				s.Marks = append(s.Marks, svgchart.Mark{At: i, Title: r.Name + ": the cache broke at " + spanText(cost.Columns[i], "request")})
			}
		}
		c.Series = append(c.Series, s)
	}
	c.Markers = p.markers(cost.Bucket)
	return c
}

func (p *Page) callsChart() *svgchart.Strip {
	lanes := map[tools.Kind]int{}
	c := &svgchart.Strip{ID: "chart-calls", Title: "Tool calls in order, a lane per kind of tool", Slots: len(p.Timeline),
		XTitle: "tool call", XLabel: func(i int) string { return strconv.Itoa(i*p.CallBucket + 1) }}
	for i, l := range p.kinds() {
		lanes[l.Kind] = i
		c.Lanes = append(c.Lanes, svgchart.Layer{Name: string(l.Kind), Class: l.Class})
	}
	most := 1
	for _, call := range p.Timeline {
		most = max(most, call.Tokens)
	}
	size := func(tokens int) float64 { return math.Sqrt(float64(tokens) / float64(most)) }
	class := func(kind tools.Kind, failed, denied bool) string {
		switch {
		case failed:
			return svgchart.Alarm
		case denied:
			return svgchart.Stop
		}
		return layerClass[string(kind)]
	}
	if p.CallBucket > 1 {
		c.Slots = len(p.Slots)
		for i, slot := range p.Slots {
			for _, k := range slot.Kinds {
				c.Events = append(c.Events, svgchart.Event{Lane: lanes[k.Kind], At: i, Size: size(k.Largest),
					Class: class(k.Kind, k.Failed > 0, k.Denied > 0), Dot: k.Rereads > 0, Title: slotTitle(slot, k)})
			}
		}
	} else {
		for _, call := range p.Timeline {
			kind := kindLane(call.Kind)
			c.Events = append(c.Events, svgchart.Event{Lane: lanes[kind], At: call.N - 1, Size: size(call.Tokens),
				Class: class(kind, call.Status == "failed", call.Status == "denied"), Dot: call.Reread, Title: callTitle(call)})
		}
	}
	for _, l := range p.Loops {
		c.Spans = append(c.Spans, svgchart.Span{From: (l.First - 1) / p.CallBucket, To: (l.Last - 1) / p.CallBucket,
			Label: "loop " + strconv.Itoa(l.N), Title: "loop " + strconv.Itoa(l.N) + ": " + l.Verdict})
	}
	return c
}

// slotTitle says what the calls of one kind in a slot were.
func slotTitle(s CallSlot, k KindCalls) string {
	out := "calls " + strconv.Itoa(s.First) + "–" + strconv.Itoa(s.Last) + ": " + textfmt.Plural(k.Calls, string(k.Kind)+" call", string(k.Kind)+" calls") +
		", " + textfmt.Int(k.Tokens) + " tokens"
	for _, n := range []struct {
		n    int
		what string
	}{{k.Failed, "failed"}, {k.Denied, "denied"}, {k.Rereads, "re-read"}} {
		if n.n > 0 {
			out += ", " + strconv.Itoa(n.n) + " " + n.what
		}
	}
	return out
}

func callTitle(c Call) string {
	s := "#" + strconv.Itoa(c.N) + " " + c.Tool
	if c.Target != "" {
		s += " " + textfmt.Clip(c.Target, 80)
	}
	s += "\n" + textfmt.Int(c.Tokens) + " tokens, " + c.Status
	if c.Error != "" {
		s += ": " + textfmt.Clip(c.Error, 200)
	}
	if c.Reread {
		s += ", re-read"
	}
	if c.Filter != "" {
		s += ", replaced by ctx-" + c.Filter
	}
	if c.Loop > 0 {
		s += ", loop " + strconv.Itoa(c.Loop)
	}
	return s
}

// spanText names a column's requests: "request 7", or "requests 301-310
// (the largest, 305)".
func spanText(s Span, noun string) string {
	if s.First == s.Last {
		return noun + " " + strconv.Itoa(s.First)
	}
	return noun + "s " + strconv.Itoa(s.First) + "–" + strconv.Itoa(s.Last) + " (shown: " + strconv.Itoa(s.At) + ")"
}

// rowLabel names a column's requests in a table: "7", or "301–310 (305)".
func rowLabel(s Span) string {
	if s.First == s.Last {
		return strconv.Itoa(s.First)
	}
	return strconv.Itoa(s.First) + "–" + strconv.Itoa(s.Last) + " (" + strconv.Itoa(s.At) + ")"
}

// short writes a count of tokens short: 950, 12k, 1.2M.
func short(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// recorded says how the cost an agent recorded stands to the table's
// price of the same requests, or of how many it is where not of all.
func recorded(t usage.Total) string {
	switch {
	case !t.Recorded():
		return "of " + textfmt.Int(t.RecordedRequests) + " of the " + textfmt.Plural(t.Requests, "request", "requests")
	case t.Differs():
		return textfmt.Times(t.RecordedCost, t.Cost) + " the table's price of them, " + usd(t.Cost)
	}
	return "the table prices them at " + usd(t.Cost)
}

// usd writes dollars: to the cent, or to four places under ten cents.
func usd(v float64) string {
	if v < 0.1 && v != 0 {
		return "$" + strconv.FormatFloat(v, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 2, 64)
}

func share(part, whole int) string {
	if whole == 0 {
		return "0%"
	}
	return textfmt.Percent(float64(part) / float64(whole))
}

// change is "-42.0%" from before to after.
func change(before, after float64) string {
	if before == 0 {
		return ""
	}
	d := (after - before) / before
	s := textfmt.Percent(d)
	if d > 0 {
		s = "+" + s
	}
	return s
}

func toInt(n any) int {
	switch v := n.(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}

// text is a transcript's text as the page shows it: its lines, each with
// its control characters as escapes (textfmt.Escape), and none of the
// characters a page may not hold.
func text(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = textfmt.Escape(l)
	}
	return svgchart.Clean(strings.Join(lines, "\n"))
}

// line is a one-line text from a transcript (a tool's name, a command):
// its line breaks as escapes too.
func line(s string) string { return svgchart.Clean(textfmt.Escape(s)) }
