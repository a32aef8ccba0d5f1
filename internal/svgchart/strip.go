package svgchart

import "math"

// Strip is a timeline of events in lanes (a session's tool calls, a lane
// per kind of tool), one slot per event in order, with spans across the
// lanes (a loop of calls).
type Strip struct {
	ID, Title string
	Lanes     []Layer // from the top
	Slots     int
	Events    []Event
	Spans     []Span
	XLabel    func(i int) string
	XTitle    string
}

// Event is one event of a Strip.
type Event struct {
	Lane, At int
	// Size is its height, a share of the lane's (at least a fifth).
	Size  float64
	Class string // its colour: the lane's, Alarm, Stop
	// Dot puts a dot above it (a call that repeats an earlier one).
	Dot   bool
	Title string
}

// Span is a band across the lanes from slot From to slot To, with its
// label and hover title.
type Span struct {
	From, To     int
	Label, Title string
}

// SVG draws the chart.
func (c Strip) SVG() string {
	var s svg
	plot := float64(len(c.Lanes) * laneHeight)
	s.open(c.ID, c.Title, top0+fontHeight+plot+bottom)
	y0 := float64(top0 + fontHeight) // the spans' labels above the lanes
	slot := plotWidth / math.Max(float64(c.Slots), 1)
	x := func(i int) float64 { return left + slot*(float64(i)+0.5) }
	for i, l := range c.Lanes {
		y := y0 + float64(i*laneHeight)
		s.line(left, y+laneHeight, width-right, y+laneHeight, "grid")
		s.text(left-6, y+laneHeight/2+fontHeight/3, "end", "", l.Name)
	}
	for _, sp := range c.Spans {
		x0, x1 := x(sp.From)-slot/2, x(sp.To)+slot/2
		s.rect(x0, y0, x1-x0, plot, "span", sp.Title)
		s.text(x0, y0-3, "start", "", sp.Label)
	}
	w := math.Max(slot*0.8, 1)
	for _, e := range c.Events {
		if e.Lane < 0 || e.Lane >= len(c.Lanes) {
			continue
		}
		h := (laneHeight - 4) * math.Min(math.Max(e.Size, 0.2), 1)
		bottom := y0 + float64((e.Lane+1)*laneHeight) - 2
		s.rect(x(e.At)-w/2, bottom-h, w, h, "bar "+e.Class, e.Title)
		if e.Dot {
			s.b.WriteString(`<circle class="dot" cx="` + num(x(e.At)) + `" cy="` + num(bottom-h-3) + `" r="2"/>`)
		}
	}
	s.xAxis(y0+plot, c.Slots, x, c.XLabel, c.XTitle)
	return s.close()
}

// Bars is a chart of horizontal bars, one a row with its label, and a
// lighter bar behind each for what it was before.
type Bars struct {
	ID, Title string
	Bars      []Bar
	Format    func(float64) string
}

// Bar is one row of Bars.
type Bar struct {
	Label string
	Value float64
	// Ghost is the value before (a result's size before a filter replaced
	// it), drawn behind; 0 for none.
	Ghost float64
	Class string
	Title string
}

// SVG draws the chart.
func (c Bars) SVG() string {
	var s svg
	row := float64(barHeight + 6)
	s.open(c.ID, c.Title, top0+row*float64(len(c.Bars))+fontHeight)
	peak := 0.0
	for _, b := range c.Bars {
		peak = math.Max(peak, math.Max(b.Value, b.Ghost))
	}
	if peak == 0 {
		peak = 1
	}
	room := float64(width - labelWidth - right - 80) // the value's text after the bar
	for i, b := range c.Bars {
		y := top0 + row*float64(i)
		s.text(labelWidth-8, y+barHeight/2+fontHeight/3, "end", "", b.Label)
		if b.Ghost > 0 {
			s.rect(labelWidth, y, room*b.Ghost/peak, barHeight, "ghost", "")
		}
		w := math.Max(room*b.Value/peak, 1)
		s.rect(labelWidth, y, w, barHeight, "bar "+b.Class, b.Title)
		s.text(labelWidth+math.Max(w, room*b.Ghost/peak)+6, y+barHeight/2+fontHeight/3, "start", "", c.Format(b.Value))
	}
	return s.close()
}

// Share is one bar across the width, cut into its parts by their share of
// the whole, each named inside it where it has the room.
type Share struct {
	ID, Title string
	Parts     []Part
}

// Part is one part of a Share.
type Part struct {
	Name, Class string
	Value       float64
	Title       string
}

// SVG draws the chart.
func (c Share) SVG() string {
	var s svg
	const h = 30
	s.open(c.ID, c.Title, h)
	total := 0.0
	for _, p := range c.Parts {
		total += math.Max(p.Value, 0)
	}
	x := 0.0
	for _, p := range c.Parts {
		if !(p.Value > 0) {
			continue
		}
		w := width * p.Value / total
		s.rect(x, 0, w, h, "bar "+p.Class, p.Title)
		if label := p.Name; w > float64(len(label)*7+12) {
			s.text(x+6, h/2+fontHeight/3, "start", "inside", label)
		}
		x += w
	}
	return s.close()
}
