package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/testutil"
)

// TestConcurrentLearns runs many ctx-playbook learn processes at once on
// one playbook, two for each fixture: none loses another's update, so the
// playbook holds what one process learning them all makes.
func TestConcurrentLearns(t *testing.T) {
	run, dir := shell(t)
	files, err := filepath.Glob(filepath.Join(testutil.Root(t), "internal", "playbook", "testdata", "fixtures", "*.json"))
	if err != nil || len(files) < 2 {
		t.Fatalf("fixtures: %v", err)
	}
	var script strings.Builder
	script.WriteString("pids=()\n")
	for range 2 {
		for _, f := range files {
			fmt.Fprintf(&script, "ctx-playbook learn --playbook together.json %q & pids+=($!)\n", f)
		}
	}
	script.WriteString("for p in \"${pids[@]}\"; do wait \"$p\" || exit 1; done\n")
	script.WriteString("ctx-playbook learn --playbook alone.json")
	for _, f := range files {
		fmt.Fprintf(&script, " %q", f)
	}
	if _, errs, err := run(script.String()); err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	read := func(name string) []string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := playbook.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range p.Strategies {
			var ev []string
			for _, e := range s.Evidence {
				ev = append(ev, filepath.Base(e.File)+":"+strings.Join(e.Calls, ",")+":"+string(e.Tag))
			}
			slices.Sort(ev)
			out = append(out, fmt.Sprintf("%s %q %d/%d/%d %v", s.Category, s.Content, s.Helpful, s.Harmful, s.Neutral, ev))
		}
		slices.Sort(out)
		return out
	}
	together, alone := read("together.json"), read("alone.json")
	if !slices.Equal(together, alone) {
		t.Errorf("learned by %d processes at once:\n%s\nby one:\n%s", 2*len(files), strings.Join(together, "\n"), strings.Join(alone, "\n"))
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".together.json.ctx-*.tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestParseAge(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 0, false},
		{"90d", 90 * 24 * time.Hour, false},
		{"1d12h", 36 * time.Hour, false},
		{"2h30m", 150 * time.Minute, false},
		{"0d", 0, true},
		{"-1d", 0, true},
		{"soon", 0, true},
		{"d", 0, true},
		{"3dd", 0, true},
	}
	for _, c := range cases {
		got, err := parseAge(c.in)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("parseAge(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzParseAge: any --older-than is an age above 0, none, or an error.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"90d", "1d12h", "2h30m", "", "-5m", "99999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseAge(s)
		if err == nil && d < 0 {
			t.Fatalf("parseAge(%q) = %v", s, d)
		}
	})
}
