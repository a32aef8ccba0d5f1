package commands

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/playbookcmd"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
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

// TestLearnCorpusCitesWhatExists: ctx-playbook learn over the corpus's
// directory (every fixture's where there is none) writes a playbook whose
// every piece of evidence names a file that is there and, in it, calls that
// the transcript has; and render fits its limits.
func TestLearnCorpusCitesWhatExists(t *testing.T) {
	dir := testutil.CorpusDir(t)
	if len(testutil.CorpusIfPresent(t)) == 0 {
		dir = filepath.Join(testutil.Root(t), "testdata", "formats")
	}
	pb := filepath.Join(t.TempDir(), "playbook.json")
	var stdout, stderr bytes.Buffer
	if code := cli.Run(playbookcmd.Command, []string{"ctx-playbook", "learn", "--playbook", pb, dir}, strings.NewReader(""), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("learn: exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := playbook.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Strategies) == 0 {
		t.Fatal("nothing learned")
	}
	calls := map[string]map[string]bool{} // file → call ids with a result
	for _, s := range p.Strategies {
		for _, e := range s.Evidence {
			if !filepath.IsAbs(e.File) {
				t.Errorf("%s cites %s: not an absolute path", s.ID, e.File)
			}
			ids, ok := calls[e.File]
			if !ok {
				raw, err := os.ReadFile(e.File)
				if err != nil {
					t.Fatalf("%s cites %s: %v", s.ID, e.File, err)
				}
				tr, err := transcript.Parse(raw, transcript.Options{})
				if err != nil {
					t.Fatalf("%s cites %s: %v", s.ID, e.File, err)
				}
				ids = map[string]bool{}
				for _, c := range tr.Calls {
					if c.Result != nil {
						ids[c.ID] = true
					}
				}
				calls[e.File] = ids
			}
			for _, id := range e.Calls {
				if !ids[id] {
					t.Errorf("%s cites call %s of %s, which it does not have", s.ID, id, e.File)
				}
			}
		}
	}
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []string{"50", "200", "2000"} {
		stdout.Reset()
		if code := cli.Run(playbookcmd.Command, []string{"ctx-playbook", "render", "--playbook", pb, "--max-tokens", limit}, strings.NewReader(""), &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("render: exit %d: %s", code, stderr.String())
		}
		if n, max := ctr.Count(stdout.String()), mustAtoi(t, limit); n > max {
			t.Errorf("render --max-tokens %s: %d tokens", limit, n)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
