package summarize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// TestCovered: a summary names the paths of its groups and of a search's
// file lines, and only counts those of a directory's count line.
func TestCovered(t *testing.T) {
	covered := Covered("[ctx-summarize] Grep \"x\": …\nstore/{a.go, b.go}\ncmd/main.go: 3, 12-14\nweb/app.ts (2 matches)\nlib/ (12 files): c.go, … (11 more)\ndocs/ (3 files)")
	for p, want := range map[string][2]bool{
		"x/store/a.go": {true, true}, "x/cmd/main.go": {true, true}, "x/web/app.ts": {true, true},
		"x/lib/c.go": {true, true}, "x/lib/d.go": {false, true}, "x/docs/a.md": {false, true}, "x/other.go": {false, false},
	} {
		if named, counted := covered(p); named != want[0] || counted != want[1] {
			t.Errorf("%s: named %v, counted %v; want %v, %v", p, named, counted, want[0], want[1])
		}
	}
}

// TestGroupedCut: a listing that ctx-truncate grouped is not summarized
// again (its lines would be read as paths); it shows every path, those of
// its head and those its grouped lines name, and its clear names or
// counts each of them.
func TestGroupedCut(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "/repo/internal/pkg%02d/file%03d.go\n", i%20, i)
	}
	r := truncate.DefaultRules()
	r.Kind = tools.List
	cut, ok := truncate.Cut(b.String(), r)
	if !ok || !strings.Contains(cut, "grouped here") {
		t.Fatalf("not grouped: %.300s", cut)
	}
	tr := oneCall(t, kindCase{Name: "Bash", Input: json.RawMessage(`{"command":"find /repo -name '*.go'"}`)}, cut)
	if s, ok := (Rules{Cwd: "/repo"}).Summarize(tr.Calls[0], cut); ok {
		t.Errorf("summarized again:\n%.600s", s)
	}
	cleared, ok := (Clear{Cwd: "/repo", Counter: approx(t)}).Summarize(tr.Calls[0], cut)
	if !ok {
		t.Fatal("not cleared")
	}
	shown := ShownPaths(tr.Calls[0], cut, "/repo")
	covered := Covered(cleared)
	seen := map[string]bool{}
	for _, p := range shown {
		seen[p] = true
		if _, counted := covered(p); !counted {
			t.Errorf("the clear neither names nor counts %s:\n%.600s", p, cleared)
		}
	}
	if len(seen) != 400 || !seen["internal/pkg19/file399.go"] || !seen["internal/pkg00/file000.go"] {
		t.Errorf("ShownPaths: %d paths, want the 400 of the listing", len(seen))
	}
}
