package playbook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func load(t testing.TB, path string) *transcript.Transcript {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.Parse(data, transcript.Options{Tools: tools.NewTable(nil)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tr
}

func reflector(t testing.TB) *Reflector {
	t.Helper()
	r, err := NewReflector(DefaultReflect())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func fixtures(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "fixtures", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return files
}

// describe is what a golden file holds: the observations, one a line,
// and the playbook they make, rendered as ACE's lines.
func describe(t *testing.T, obs []Observation, p *Playbook) []byte {
	var b strings.Builder
	b.WriteString("# observations: rule, tag, confidence, calls\n")
	for _, o := range obs {
		fmt.Fprintf(&b, "%s %s %.2f %s\n", o.Rule, o.Evidence.Tag, o.Confidence, strings.Join(o.Evidence.Calls, " "))
	}
	out, err := Render(p, RenderOptions{Format: ACE})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("# render --format ace\n")
	b.Write(out.Text)
	return []byte(b.String())
}

// TestFixtureGoldens: learn → render on a fixture with a known pattern
// each, named after its rule (none.json has none, loop.json patterns in an
// error loop); the rule finds it, and learning the same fixture again
// changes nothing.
func TestFixtureGoldens(t *testing.T) {
	r := reflector(t)
	for _, path := range fixtures(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			tr := load(t, path)
			obs := r.Reflect(tr, Source{File: name + ".json"})
			p := New()
			p.Learn(obs, DefaultSimilarity, epoch)
			testutil.Golden(t, filepath.Join("testdata", "golden", name+".golden"), describe(t, obs, p))
			switch name {
			case "none":
			case "loop": // a pattern inside an error loop is harmful, whatever its last call did
				if len(obs) == 0 || slices.ContainsFunc(obs, func(o Observation) bool { return o.Evidence.Tag != Harmful }) {
					t.Errorf("loop.json: observations %+v, want some, all harmful", obs)
				}
			default:
				if !slices.ContainsFunc(obs, func(o Observation) bool { return o.Rule == name }) {
					t.Errorf("the rule %s does not find its pattern in its fixture", name)
				}
			}
			before := p.Marshal()
			if rep := p.Learn(r.Reflect(tr, Source{File: name + ".json"}), DefaultSimilarity, epoch.Add(time.Hour)); rep.Changed() {
				t.Errorf("learning the fixture again changed the playbook: %+v", rep)
			}
			if after := p.Marshal(); string(after) != string(before) {
				t.Error("learning the fixture again changed the playbook's file")
			}
		})
	}
}

// TestNoPatternNoStrategy: a session whose calls form no pattern teaches
// nothing: no strategy is invented.
func TestNoPatternNoStrategy(t *testing.T) {
	obs := reflector(t).Reflect(load(t, filepath.Join("testdata", "fixtures", "none.json")), Source{File: "none.json"})
	if len(obs) != 0 {
		t.Errorf("none.json: %d observations, want none: %+v", len(obs), obs)
	}
}

// TestEveryRuleHasAFixture: each rule has the fixture that shows it.
func TestEveryRuleHasAFixture(t *testing.T) {
	for _, name := range RuleNames() {
		if _, err := os.Stat(filepath.Join("testdata", "fixtures", name+".json")); err != nil {
			t.Errorf("rule %s: no fixture: %v", name, err)
		}
	}
}

// learnAll learns files into one playbook, citing each file by its path.
func learnAll(t *testing.T, files []string) *Playbook {
	r := reflector(t)
	p := New()
	for _, path := range files {
		p.Learn(r.Reflect(load(t, path), Source{File: path}), DefaultSimilarity, epoch)
	}
	return p
}

// TestCorpusGolden: learn → render over the corpus of real transcripts.
func TestCorpusGolden(t *testing.T) {
	p := learnAll(t, testutil.CorpusFiles(t))
	out, err := Render(p, RenderOptions{Format: Markdown, MaxStrategies: 50, MaxTokens: 2000, Counter: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "corpus.md"), out.Text)
}

func counter(t testing.TB) tokens.Counter {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
