package playbook

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	weakref "weak"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestEvidenceExists: over every fixture and corpus file, every strategy
// learned cites a transcript that was learned from and, in it, two calls or
// more that it has, each with a result, in the order the transcript has
// them; and every observation is at least as sure as the bound.
func TestEvidenceExists(t *testing.T) {
	r := reflector(t)
	p := New()
	trs := map[string]*transcript.Transcript{}
	files := append(testutil.FixturesAndCorpus(t), fixtures(t)...)
	for _, path := range files {
		tr := load(t, path)
		trs[path] = tr
		for _, o := range r.Reflect(tr, Source{File: path}) {
			if o.Confidence < DefaultReflect().MinConfidence || o.Confidence > 1 {
				t.Errorf("%s: %s: confidence %v out of bounds", path, o.Rule, o.Confidence)
			}
			p.Learn([]Observation{o}, DefaultSimilarity, epoch)
		}
	}
	if len(p.Strategies) == 0 {
		t.Fatal("nothing learned from the fixtures")
	}
	for _, s := range p.Strategies {
		if len(s.Evidence)+len(s.Dropped) != s.Total() || len(s.Evidence) > MaxEvidence {
			t.Errorf("%s: %d pieces of evidence kept and %d dropped for %d counts", s.ID, len(s.Evidence), len(s.Dropped), s.Total())
		}
		for _, e := range s.Evidence {
			tr := trs[e.File]
			if tr == nil {
				t.Errorf("%s cites %s, which was not learned from", s.ID, e.File)
				continue
			}
			if len(e.Calls) < 2 {
				t.Errorf("%s cites %d call of %s: a pattern takes two or more", s.ID, len(e.Calls), e.File)
			}
			at := -1
			for _, id := range e.Calls {
				i := slices.IndexFunc(tr.Calls, func(c *transcript.Call) bool { return c.ID == id && c.Result != nil })
				if i < 0 {
					t.Errorf("%s cites call %s, which %s does not have with a result", s.ID, id, e.File)
				} else if i <= at {
					t.Errorf("%s cites the calls of %s out of order: %v", s.ID, e.File, e.Calls)
				}
				at = i
			}
		}
	}
}

// TestLearnIsIdempotentAndOrderFree: learning the corpus again changes
// nothing, and learning it in another order gives the same strategies with
// the same counts.
func TestLearnIsIdempotentAndOrderFree(t *testing.T) {
	files := testutil.FixturesAndCorpus(t)
	r := reflector(t)
	learn := func(files []string) *Playbook {
		p := New()
		for _, path := range files {
			p.Learn(r.Reflect(load(t, path), Source{File: path}), DefaultSimilarity, epoch)
		}
		return p
	}
	p := learn(files)
	before := string(p.Marshal())
	for _, path := range files {
		if rep := p.Learn(r.Reflect(load(t, path), Source{File: path}), DefaultSimilarity, epoch); rep.Changed() {
			t.Errorf("%s: learning it again changed the playbook: %+v", path, rep)
		}
	}
	if string(p.Marshal()) != before {
		t.Error("learning the corpus again changed the playbook's file")
	}
	counts := func(p *Playbook) []string {
		var out []string
		for _, s := range p.Strategies {
			out = append(out, fmt.Sprintf("%s %s %d %d %d %d", s.Category, s.Content, s.Helpful, s.Harmful, s.Neutral, len(s.Evidence)))
		}
		slices.Sort(out)
		return out
	}
	shuffled := slices.Clone(files)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if a, b := counts(p), counts(learn(shuffled)); !slices.Equal(a, b) {
		t.Errorf("another order gives other strategies:\n%s\nwant\n%s", strings.Join(b, "\n"), strings.Join(a, "\n"))
	}
}

// TestRenderFits: whatever the limits, the rendering of the playbook of
// every fixture and corpus file holds at most MaxStrategies and MaxTokens,
// shows the best first, and leaves out only what does not fit.
func TestRenderFits(t *testing.T) {
	p := learnAll(t, append(testutil.FixturesAndCorpus(t), fixtures(t)...))
	ctr := counter(t)
	ranked := Rank(p.Strategies)
	for _, f := range []Format{Markdown, ACE, JSON} {
		for _, maxS := range []int{0, 1, 3, 50} {
			for _, maxT := range []int{0, 30, 60, 100, 250, 2000} {
				out, err := Render(p, RenderOptions{Format: f, MaxStrategies: maxS, MaxTokens: maxT, Counter: ctr})
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s --max-strategies %d --max-tokens %d", f, maxS, maxT)
				if maxT > 0 && out.Tokens > maxT || maxS > 0 && out.Shown > maxS {
					t.Errorf("%s: %d strategies, %d tokens", name, out.Shown, out.Tokens)
				}
				if out.Tokens != ctr.Count(string(out.Text)) || out.Shown+out.Omitted != len(p.Strategies) {
					t.Errorf("%s: the report (%d shown, %d omitted, %d tokens) does not add up", name, out.Shown, out.Omitted, out.Tokens)
				}
				if maxT == 0 && (maxS == 0 || maxS >= len(ranked)) && out.Omitted != 0 {
					t.Errorf("%s: %d left out with no limit to meet", name, out.Omitted)
				}
				if f != JSON && out.Shown > 0 && !strings.Contains(string(out.Text), "["+ranked[0].ID+"]") && (maxT == 0 || maxT >= 100) {
					t.Errorf("%s: the best strategy %s is not shown:\n%s", name, ranked[0].ID, out.Text)
				}
			}
		}
	}
}

// TestObservationsOutliveInput: the observations of a transcript keep none
// of its bytes, so that learning from many transcripts (files, or the
// lines of --each-line) holds their observations, not the transcripts.
func TestObservationsOutliveInput(t *testing.T) {
	r := reflector(t)
	for _, path := range append(testutil.FixturesAndCorpus(t), fixtures(t)...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bytes := weakref.Make(&data[0])
		tr, err := transcript.Parse(data, transcript.Options{Tools: tools.NewTable(nil)})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		obs := r.Reflect(tr, Source{File: path})
		obs = append(obs, r.Reflect(tr, Source{File: path, Session: tr.SessionID})...) // as learn --each-line names it
		data, tr = nil, nil
		runtime.GC()
		if bytes.Value() != nil {
			t.Errorf("%s: its %d observations keep the transcript's bytes", path, len(obs))
		}
		runtime.KeepAlive(obs)
	}
}
