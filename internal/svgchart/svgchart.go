// Package svgchart draws the few charts a report page needs as inline SVG:
// stacked columns (Columns), lines (Lines), a timeline of events in lanes
// (Strip) and horizontal bars (Bars). It writes markup alone, no script:
// a chart is a picture, styled by CSS (the page's, with this package's
// rules from CSS), read in a browser offline.
//
// Every text a chart holds (titles, labels, hover titles) is escaped here,
// so a caller may pass text from a transcript as it is; class names and
// ids are the caller's own words, and characters other than letters,
// digits, - and _ are dropped from them. The elements a browser test
// counts have classes of their own: "bar" (a column's segment, an event,
// a bar), "line" (a polyline, one point per value) and "mark".
package svgchart

import (
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Palette is the colours of the classes c0, c1, … that a chart's layers,
// series and events take: well apart from one another and from the red
// and black of Alarm and Stop, in the order a page gives them out.
var Palette = []string{
	"#4e79a7", // blue
	"#f28e2b", // orange
	"#59a14f", // green
	"#b07aa1", // purple
	"#76b7b2", // teal
	"#edc948", // yellow
	"#9c755f", // brown
	"#ff9da7", // pink
	"#a0cbe8", // light blue
	"#8cd17d", // light green
	"#bab0ac", // grey
	"#d4a6c8", // lilac
}

// The classes of the two colours that stand out: a failure, and a call
// that was not run.
const (
	Alarm = "alarm"
	Stop  = "stop"
)

// CSS is the style of the charts' parts and of the palette's classes, for
// the page's <style>. A palette class fills an SVG shape and, on an HTML
// element (a legend's swatch), its background and border.
func CSS() string {
	var b strings.Builder
	b.WriteString(`svg.chart{display:block;width:100%;height:auto;font:11px system-ui,sans-serif}
svg.chart text{fill:#444}
svg.chart .axis{stroke:#999;stroke-width:1}
svg.chart .grid{stroke:#e5e5e5;stroke-width:1}
svg.chart .line{fill:none;stroke-width:2}
svg.chart .dashed{stroke-dasharray:5 3}
svg.chart .mark{stroke:#fff;stroke-width:1}
svg.chart .marker{stroke:#555;stroke-width:1;stroke-dasharray:3 3}
svg.chart .span{fill:#d62728;fill-opacity:.12;stroke:#d62728;stroke-opacity:.5}
svg.chart .ghost{fill:#ddd}
svg.chart .dot{fill:#e15759}
svg.chart .inside{fill:#111;font-weight:600}
.alarm{fill:#d62728;stroke:#d62728;background:#d62728;border-color:#d62728}
.stop{fill:#222;stroke:#222;background:#222;border-color:#222}
`)
	for i, c := range Palette {
		b.WriteString(".c" + strconv.Itoa(i) + "{fill:" + c + ";stroke:" + c + ";background:" + c + ";border-color:" + c + "}\n")
	}
	return b.String()
}

// Class is the palette class of the i-th colour, round the palette.
func Class(i int) string { return "c" + strconv.Itoa(i%len(Palette)) }

// The canvas every chart is drawn on, in the units of its viewBox: the
// page scales it to its width.
const (
	width       = 960
	left        = 64 // room for the y axis' labels
	right       = 16
	top         = 12
	bottom      = 34 // the x axis' labels and its title
	plotHeight  = 220
	plotWidth   = width - left - right
	fontHeight  = 11
	yTicksWant  = 5
	xTicksWant  = 10
	markRadius  = 3
	laneHeight  = 22
	barHeight   = 18
	labelWidth  = 300 // Bars: the labels' column
	markerLabel = 4
)

// svg is a chart's markup as it is written.
type svg struct{ b strings.Builder }

// open starts the chart: an SVG element with its id, its size, and the
// accessible name a screen reader gives it (the table beside it holds its
// numbers).
func (s *svg) open(id, title string, height float64) {
	s.b.WriteString(`<svg class="chart" id="` + Name(id) + `" viewBox="0 0 ` + itoa(width) + ` ` + num(height) +
		`" role="img" aria-label="` + Text(title) + `" xmlns="http://www.w3.org/2000/svg">`)
	s.b.WriteString(`<title>` + Text(title) + `</title>`)
}

func (s *svg) close() string {
	s.b.WriteString(`</svg>`)
	return s.b.String()
}

// text writes a label at (x, y), anchored start, middle or end.
func (s *svg) text(x, y float64, anchor, class, label string) {
	s.b.WriteString(`<text x="` + num(x) + `" y="` + num(y) + `"`)
	if anchor != "start" {
		s.b.WriteString(` text-anchor="` + anchor + `"`)
	}
	if class != "" {
		s.b.WriteString(` class="` + Name(class) + `"`)
	}
	s.b.WriteString(`>` + Text(label) + `</text>`)
}

func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	s.b.WriteString(`<line class="` + Name(class) + `" x1="` + num(x1) + `" y1="` + num(y1) + `" x2="` + num(x2) + `" y2="` + num(y2) + `"/>`)
}

// rect writes a rectangle with a hover title ("" for none).
func (s *svg) rect(x, y, w, h float64, class, title string) {
	s.b.WriteString(`<rect class="` + Name(class) + `" x="` + num(x) + `" y="` + num(y) + `" width="` + num(w) + `" height="` + num(h) + `"`)
	if title == "" {
		s.b.WriteString(`/>`)
		return
	}
	s.b.WriteString(`><title>` + Text(title) + `</title></rect>`)
}

// yAxis draws the y axis of a plot from 0 to max, its grid and labels, and
// its title; it returns the scale: a value's y.
func (s *svg) yAxis(max float64, format func(float64) string, title string) func(float64) float64 {
	step := niceStep(max, yTicksWant)
	ceil := step * math.Ceil(max/step)
	if ceil == 0 {
		ceil = step
	}
	scale := func(v float64) float64 { return yOf(v, ceil) }
	for k := 0; float64(k)*step <= ceil+step/2; k++ {
		v := float64(k) * step
		y := scale(v)
		s.line(left, y, width-right, y, "grid")
		s.text(left-6, y+fontHeight/3, "end", "", format(v))
	}
	s.line(left, scale(0), left, scale(ceil), "axis")
	if title != "" {
		s.b.WriteString(`<text x="12" y="` + num(top0+plotHeight/2) + `" text-anchor="middle" transform="rotate(-90 12 ` + num(top0+plotHeight/2) + `)">` + Text(title) + `</text>`)
	}
	return scale
}

// top0 is where a plot starts; yOf's origin.
const top0 = top

func yOf(v, max float64) float64 { return top0 + plotHeight*(1-v/max) }

// xAxis draws the x axis at y, under a plot of n slots, with labels at a
// few of them (label gives a slot's) and its title.
func (s *svg) xAxis(y float64, n int, x func(i int) float64, label func(i int) string, title string) {
	s.line(left, y, width-right, y, "axis")
	for _, i := range xTicks(n) {
		s.line(x(i), y, x(i), y+4, "axis")
		s.text(x(i), y+4+fontHeight, "middle", "", label(i))
	}
	if title != "" {
		s.text(left+plotWidth/2, y+bottom-4, "middle", "", title)
	}
}

// xTicks picks the slots to label: about xTicksWant of them, at round
// steps, the first and the last always.
func xTicks(n int) []int {
	if n <= 0 {
		return nil
	}
	step := int(niceStep(float64(n), xTicksWant))
	if step < 1 {
		step = 1
	}
	out := []int{0}
	for i := step - 1; i < n-1; i += step {
		if i > 0 && float64(n-1-i) > float64(step)/2 {
			out = append(out, i)
		}
	}
	if n > 1 {
		out = append(out, n-1)
	}
	return out
}

// niceStep is a round step (1, 2 or 5 times a power of ten) that cuts
// [0, max] into about want pieces.
func niceStep(max float64, want int) float64 {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1
	}
	raw := max / float64(want)
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

// Text escapes text for SVG and HTML, in an element or a quoted
// attribute: the markup characters, and what Clean replaces.
func Text(s string) string { return html.EscapeString(Clean(s)) }

// Clean replaces the characters XML does not allow (control characters
// but tab and newline, U+FFFE, U+FFFF, bytes that are not UTF-8) with
// U+FFFD: a page that holds them is not well-formed.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r >= 0x20 && r != 0x7f && r != 0xfffe && r != 0xffff {
			return r
		}
		return utf8.RuneError
	}, s)
}

// Name keeps of a class name or an id the letters, digits, -, _ and the
// spaces between classes.
func Name(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ' ' {
			return r
		}
		return -1
	}, s)
}

// num formats a coordinate to a tenth, without a needless ".0".
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
