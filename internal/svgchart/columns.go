package svgchart

import "math"

// Layer is one part of a stacked column: its name and its class.
type Layer struct {
	Name  string
	Class string
}

// Series is a line over the slots of a chart.
type Series struct {
	Name  string
	Class string // its colour (Class(i), Alarm, Stop)
	// Dashed draws it dashed: another run to compare with.
	Dashed bool
	Values []float64 // one per slot
	// Marks are the slots marked with a red dot on the line, each with
	// its hover title.
	Marks []Mark
}

// Mark is a marked slot.
type Mark struct {
	At    int
	Title string
}

// Marker is a vertical line across a plot at a slot, with its label: an
// event that changes what follows.
type Marker struct {
	At    int
	Label string
}

// Columns is a chart of stacked columns, one per slot (a request), each
// cut into its layers, with lines over them (another run's totals).
type Columns struct {
	ID, Title string
	Layers    []Layer
	// Values are each slot's values, a value per layer.
	Values [][]float64
	// Titles are each column's hover title.
	Titles  []string
	Lines   []Series
	Markers []Marker
	// XLabel is a slot's label on the x axis; XTitle and YTitle name the
	// axes; YFormat writes a value of the y axis.
	XLabel         func(i int) string
	XTitle, YTitle string
	YFormat        func(float64) string
}

// Bars is the number of column segments drawn: the values above 0.
func (c Columns) Bars() int {
	n := 0
	for _, vs := range c.Values {
		for _, v := range vs {
			if v > 0 {
				n++
			}
		}
	}
	return n
}

// SVG draws the chart.
func (c Columns) SVG() string {
	var s svg
	s.open(c.ID, c.Title, top0+plotHeight+bottom)
	n := len(c.Values)
	for _, l := range c.Lines {
		n = max(n, len(l.Values))
	}
	peak := 0.0
	for _, vs := range c.Values {
		sum := 0.0
		for _, v := range vs {
			sum += math.Max(v, 0)
		}
		peak = math.Max(peak, sum)
	}
	for _, l := range c.Lines {
		for _, v := range l.Values {
			peak = math.Max(peak, v)
		}
	}
	y := s.yAxis(peak, c.YFormat, c.YTitle)
	slot := plotWidth / math.Max(float64(n), 1)
	x := func(i int) float64 { return left + slot*(float64(i)+0.5) }
	gap := math.Min(slot*0.15, 2)
	for i, vs := range c.Values {
		s.b.WriteString(`<g>`)
		if i < len(c.Titles) && c.Titles[i] != "" {
			s.b.WriteString(`<title>` + Text(c.Titles[i]) + `</title>`)
		}
		base := 0.0
		for j, v := range vs {
			if !(v > 0) || j >= len(c.Layers) {
				continue
			}
			y0, y1 := y(base), y(base+v)
			s.rect(x(i)-slot/2+gap/2, y1, slot-gap, y0-y1, "bar "+c.Layers[j].Class, "")
			base += v
		}
		s.b.WriteString(`</g>`)
	}
	for _, l := range c.Lines {
		s.polyline(l, x, y)
	}
	s.markers(c.Markers, x)
	s.xAxis(top0+plotHeight, n, x, c.XLabel, c.XTitle)
	return s.close()
}

// polyline draws a series: a point per value, and its marks.
func (s *svg) polyline(l Series, x func(int) float64, y func(float64) float64) {
	class := "line " + l.Class
	if l.Dashed {
		class += " dashed"
	}
	s.b.WriteString(`<polyline class="` + Name(class) + `" points="`)
	for i, v := range l.Values {
		if i > 0 {
			s.b.WriteByte(' ')
		}
		s.b.WriteString(num(x(i)) + "," + num(y(v)))
	}
	s.b.WriteString(`"><title>` + Text(l.Name) + `</title></polyline>`)
	for _, m := range l.Marks {
		if m.At < 0 || m.At >= len(l.Values) {
			continue
		}
		s.b.WriteString(`<circle class="mark ` + Alarm + `" cx="` + num(x(m.At)) + `" cy="` + num(y(l.Values[m.At])) +
			`" r="` + num(markRadius) + `"><title>` + Text(m.Title) + `</title></circle>`)
	}
}

// markers draws the vertical markers across the plot.
func (s *svg) markers(ms []Marker, x func(int) float64) {
	for _, m := range ms {
		s.line(x(m.At), top0, x(m.At), top0+plotHeight, "marker")
		s.text(x(m.At)+markerLabel, top0+fontHeight, "start", "", m.Label)
	}
}

// Lines is a chart of lines over the same slots (cumulative cost per
// request, as it was and as a policy would have it).
type Lines struct {
	ID, Title      string
	Series         []Series
	Markers        []Marker
	XLabel         func(i int) string
	XTitle, YTitle string
	YFormat        func(float64) string
}

// SVG draws the chart.
func (c Lines) SVG() string {
	var s svg
	s.open(c.ID, c.Title, top0+plotHeight+bottom)
	n, peak := 0, 0.0
	for _, l := range c.Series {
		n = max(n, len(l.Values))
		for _, v := range l.Values {
			peak = math.Max(peak, v)
		}
	}
	y := s.yAxis(peak, c.YFormat, c.YTitle)
	// A point per slot, from the plot's left edge to its right.
	x := func(i int) float64 {
		if n <= 1 {
			return left + plotWidth/2
		}
		return left + plotWidth*float64(i)/float64(n-1)
	}
	for _, l := range c.Series {
		s.polyline(l, x, y)
	}
	s.markers(c.Markers, x)
	s.xAxis(top0+plotHeight, n, x, c.XLabel, c.XTitle)
	return s.close()
}
