package summarize

import "testing"

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
