package svgchart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

func label(i int) string { return strconv.Itoa(i + 1) }

func plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// charts are one of each kind, small enough to read, with markup in their
// texts.
func charts() map[string]interface{ SVG() string } {
	return map[string]interface{ SVG() string }{
		"columns": Columns{ID: "ctx", Title: "Tokens <sent>", Layers: []Layer{{"a", Class(0)}, {"b", Class(1)}},
			Values: [][]float64{{10, 5}, {0, 20}, {30, 0}}, Titles: []string{"one & <two>", "", "three"},
			Lines:   []Series{{Name: "before", Class: Stop, Dashed: true, Values: []float64{20, 30, 40}}},
			Markers: []Marker{{At: 2, Label: "compacted"}}, XLabel: label, XTitle: "request", YTitle: "tokens", YFormat: plain},
		"lines": Lines{ID: "cost", Title: "Cost", XLabel: label, XTitle: "request", YTitle: "$", YFormat: plain,
			Series: []Series{{Name: "as sent", Class: Class(0), Values: []float64{1, 2, 4}, Marks: []Mark{{At: 1, Title: "broke <here>"}}},
				{Name: "compacted", Class: Class(2), Values: []float64{1, 1.5, 2}}}},
		"strip": Strip{ID: "calls", Title: "Calls", Lanes: []Layer{{"read", Class(0)}, {"shell", Class(1)}}, Slots: 4,
			Events: []Event{{Lane: 0, At: 0, Size: 1, Class: Class(0), Title: `Read "a.go"`}, {Lane: 1, At: 1, Size: 0.1, Class: Alarm, Title: "Bash </script>"},
				{Lane: 1, At: 2, Size: 0.5, Class: Stop}, {Lane: 0, At: 3, Size: 0.5, Class: Class(0), Dot: true}},
			Spans: []Span{{From: 1, To: 2, Label: "loop 1", Title: "the same call failed"}}, XLabel: label, XTitle: "call"},
		"bars": Bars{ID: "largest", Title: "Largest", Format: plain,
			Bars: []Bar{{Label: "Bash <go test>", Value: 300, Class: Class(1)}, {Label: "Read a.go", Value: 50, Ghost: 200, Class: Class(0), Title: "was 200"}}},
		"share": Share{ID: "share", Title: "Share", Parts: []Part{{Name: "read", Class: Class(0), Value: 70, Title: "read 70%"}, {Name: "x", Class: Class(1), Value: 0}, {Name: "shell", Class: Class(1), Value: 30}}},
	}
}

// TestGolden pins each kind of chart (testdata/*.svg).
func TestGolden(t *testing.T) {
	for name, c := range charts() {
		svg := c.SVG()
		if err := wellFormed(svg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		testutil.Golden(t, filepath.Join("testdata", name+".svg"), []byte(svg+"\n"))
	}
}

// wellFormed parses an SVG as XML: every tag closed, every text escaped.
func wellFormed(svg string) error {
	d := xml.NewDecoder(strings.NewReader(svg))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// elements counts the elements of an SVG by tag and class, and the points
// of its polylines.
func elements(t *testing.T, svg string) (count map[string]int, points []int) {
	count = map[string]int{}
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return count, points
		}
		if err != nil {
			t.Fatal(err)
		}
		if el, ok := tok.(xml.StartElement); ok {
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "class":
					for _, c := range strings.Fields(a.Value) {
						count[el.Name.Local+"."+c]++
					}
				case "points":
					points = append(points, len(strings.Fields(a.Value)))
				}
			}
		}
	}
}

// TestCounts: a chart draws a bar for each value above 0, each event and
// each row, and a point for each value of a line.
func TestCounts(t *testing.T) {
	cs := charts()
	cols := cs["columns"].(Columns)
	n, pts := elements(t, cols.SVG())
	if n["rect.bar"] != cols.Bars() || cols.Bars() != 4 || !slices.Equal(pts, []int{3}) || n["line.marker"] != 1 {
		t.Errorf("columns: %d bars (Bars says %d, want 4), points %v, %d markers", n["rect.bar"], cols.Bars(), pts, n["line.marker"])
	}
	n, pts = elements(t, cs["lines"].SVG())
	if !slices.Equal(pts, []int{3, 3}) || n["circle.mark"] != 1 {
		t.Errorf("lines: points %v, %d marks", pts, n["circle.mark"])
	}
	n, _ = elements(t, cs["strip"].SVG())
	if n["rect.bar"] != 4 || n["rect.span"] != 1 || n["circle.dot"] != 1 || n["rect.alarm"] != 1 || n["rect.stop"] != 1 {
		t.Errorf("strip: %v", n)
	}
	n, _ = elements(t, cs["bars"].SVG())
	if n["rect.bar"] != 2 || n["rect.ghost"] != 1 {
		t.Errorf("bars: %v", n)
	}
	n, _ = elements(t, cs["share"].SVG())
	if n["rect.bar"] != 2 {
		t.Errorf("share: %v", n)
	}
}

// TestScale: the columns' heights are their values on the y axis' scale,
// whose top is a round number above the largest stack.
func TestScale(t *testing.T) {
	c := Columns{ID: "c", Layers: []Layer{{"a", "c0"}}, Values: [][]float64{{50}, {100}, {0}}, XLabel: label, YFormat: plain}
	var heights []string
	d := xml.NewDecoder(strings.NewReader(c.SVG()))
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "rect" {
			for _, a := range el.Attr {
				if a.Name.Local == "height" {
					heights = append(heights, a.Value)
				}
			}
		}
	}
	// The axis runs to 100 over plotHeight units.
	if want := []string{num(plotHeight / 2), num(plotHeight)}; !slices.Equal(heights, want) {
		t.Errorf("heights %v, want %v", heights, want)
	}
}

func TestNiceStep(t *testing.T) {
	cases := []struct {
		max  float64
		want float64
	}{{100, 20}, {99, 20}, {143185, 50000}, {1, 0.2}, {0.3, 0.1}, {7, 2}, {0, 1}, {math.NaN(), 1}, {math.Inf(1), 1}}
	for _, c := range cases {
		if got := niceStep(c.max, 5); got != c.want {
			t.Errorf("niceStep(%v) = %v, want %v", c.max, got, c.want)
		}
	}
}

func TestXTicks(t *testing.T) {
	cases := []struct {
		n    int
		want []int
	}{{0, nil}, {1, []int{0}}, {2, []int{0, 1}}, {5, []int{0, 1, 2, 3, 4}}, {152, []int{0, 19, 39, 59, 79, 99, 119, 139, 151}}, {21, []int{0, 4, 9, 14, 20}}}
	for _, c := range cases {
		if got := xTicks(c.n); !slices.Equal(got, c.want) {
			t.Errorf("xTicks(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<b class="x">'a' & b</b>`, `&lt;b class=&#34;x&#34;&gt;&#39;a&#39; &amp; b&lt;/b&gt;`},
		{"tab\tline\nesc\x1b nul\x00 \ufffe \xff", "tab\tline\nesc\ufffd nul\ufffd \ufffd \ufffd"},
		{"é 😀", "é 😀"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Name(`c0 bar"><script>`); got != "c0 barscript" {
		t.Errorf("Name = %q", got)
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{1: "1", 1.25: "1.3", -0.01: "0", 12.04: "12", math.NaN(): "0", math.Inf(-1): "0"} {
		if got := num(in); got != want {
			t.Errorf("num(%v) = %q, want %q", in, got, want)
		}
	}
}

// FuzzText: any text, escaped, is well-formed character data and an
// attribute's value, and reads back as itself but for the characters
// Clean replaces.
func FuzzText(f *testing.F) {
	for _, s := range []string{"<a>", `" onload="x`, "]]>", "\x00\x1b\ufffe\xff", "&amp;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := `<t a="` + Text(s) + `">` + Text(s) + `</t>`
		d := xml.NewDecoder(bytes.NewReader([]byte(doc)))
		d.Strict = true
		var got struct {
			A    string `xml:"a,attr"`
			Text string `xml:",chardata"`
		}
		if err := d.Decode(&got); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		// XML normalizes line breaks in text and white space in attributes.
		want := strings.ReplaceAll(Clean(s), "\r", "\ufffd")
		if got.Text != want {
			t.Errorf("text %q reads back as %q, want %q", s, got.Text, want)
		}
	})
}
