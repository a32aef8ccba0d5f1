package tools

import "testing"

func TestRangeContains(t *testing.T) {
	whole := Range{}
	cases := []struct {
		r, o Range
		want bool
	}{
		{whole, whole, true},
		{whole, Range{Start: 50, End: 120}, true},
		{whole, Range{Last: 30}, true},
		{Range{Start: 1, End: 200}, Range{Start: 50, End: 120}, true},
		{Range{Start: 1, End: 200}, Range{Start: 1, End: 200}, true},
		{Range{Start: 1, End: 200}, Range{Start: 150, End: 250}, false},
		{Range{Start: 1, End: 200}, Range{Start: 150}, false},
		{Range{Start: 1, End: 200}, whole, false},
		{Range{Start: 40}, Range{Start: 50, End: 60}, true},
		{Range{Start: 40}, Range{Start: 30, End: 60}, false},
		{Range{Start: 40}, Range{Start: 45}, true},
		{Range{Start: 40}, Range{Last: 10}, false}, // the file's length decides
		{Range{Last: 30}, Range{Last: 20}, true},
		{Range{Last: 20}, Range{Last: 30}, false},
		{Range{Last: 30}, Range{Start: 1, End: 5}, false},
		{Range{Start: 1, End: 10}, Range{Last: 5}, false},
	}
	for _, c := range cases {
		if got := c.r.Contains(c.o); got != c.want {
			t.Errorf("%+v.Contains(%+v) = %v, want %v", c.r, c.o, got, c.want)
		}
	}
}
