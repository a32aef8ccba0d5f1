package outcome

import (
	"reflect"
	"testing"
)

func TestParseWindow(t *testing.T) {
	cases := []struct {
		name, text string
		want       Window
		ok         bool
	}{
		{"whole", "[File: /r/a.py (3 lines total)]\n1:import os\n2:\n3:print(os.sep)\n\n(Open file: /r/a.py)\n(Current directory: /r)\nbash-$",
			Window{Path: "/r/a.py", Total: 3, First: 1, Last: 3, Lines: []string{"import os", "", "print(os.sep)"}}, true},
		{"a window, after an edit's note, with a terminal's line ends", "Replaced 1 occurrences.\r\n[File: /r/b.py (300 lines total)]\r\n(100 more lines above)\r\n101:a\r\n102:b: c\r\n(198 more lines below)\n",
			Window{Path: "/r/b.py", Total: 300, First: 101, Last: 102, Lines: []string{"a", "b: c"}}, true},
		{"empty file", "[File: /r/e.py (0 lines total)]\n", Window{Path: "/r/e.py"}, true},
		{"no window", "Found 1 matches for \"x\" in /r:\n/r/x.py\n", Window{}, false},
		{"numbers that do not count up", "[File: /r/a.py (9 lines total)]\n1:a\n3:c\n", Window{Path: "/r/a.py", Total: 9, First: 1, Last: 1, Lines: []string{"a"}}, true},
	}
	for _, c := range cases {
		got, ok := ParseWindow(c.text)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ParseWindow = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if w := (Window{Total: 3, First: 1, Last: 3}); !w.Whole() {
		t.Error("a window of every line is not the whole file")
	}
}

func TestObservationState(t *testing.T) {
	cases := []struct {
		text, open string
		printed    bool
		dir        string
	}{
		{"8.2\n\n(Open file: /r/tests/a.py)\n(Current directory: /r)\nbash-$", "/r/tests/a.py", true, "/r"},
		{"Found 1 matches\r\n(Open file: n/a)\n(Current directory: /r)\nbash-$", "", true, "/r"},
		{"8.2", "", false, ""},
	}
	for _, c := range cases {
		open, printed, dir := ObservationState(c.text)
		if open != c.open || printed != c.printed || dir != c.dir {
			t.Errorf("ObservationState(%q) = %q, %v, %q; want %q, %v, %q", c.text, open, printed, dir, c.open, c.printed, c.dir)
		}
	}
}
