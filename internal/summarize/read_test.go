package summarize

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outline"
)

// TestNameLines: each name once with its lines, a top-level definition's
// nested ones on the lines after it, the top-level ones without any
// together, on lines of at most outlineWidth characters.
func TestNameLines(t *testing.T) {
	defs := []outline.Def{
		{Line: 1, Kind: outline.Module, Name: "Store", Depth: 0},
		{Line: 3, Kind: outline.Func, Name: "get", Depth: 1},
		{Line: 9, Kind: outline.Func, Name: "get", Depth: 1},
		{Line: 12, Kind: outline.Func, Name: "put", Depth: 1},
		{Line: 20, Kind: outline.Func, Name: "helper", Depth: 0},
		{Line: 25, Kind: outline.Func, Name: "main", Depth: 0},
	}
	want := "\nStore 1:\n  get 3, 9; put 12\nhelper 20; main 25"
	if got := nameLines(defs, true); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := nameLines(defs, false); got != "\nStore:\n  get; put\nhelper; main" {
		t.Errorf("without lines: %q", got)
	}
	var many []outline.Def
	for i := range 60 {
		many = append(many, outline.Def{Line: 10 * i, Kind: outline.Func, Name: strings.Repeat("f", i%7+3) + strconv.Itoa(i)})
	}
	for _, line := range strings.Split(nameLines(many, true), "\n") {
		if len(line) > outlineWidth {
			t.Errorf("a line of %d characters: %q", len(line), line)
		}
	}
}
