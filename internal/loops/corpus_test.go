package loops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestCorpus checks every loop found in the real transcripts against its
// definition, and the banner's contract on them.
func TestCorpus(t *testing.T) {
	d := detector(t)
	for _, path := range testutil.CorpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr := load(t, path)
			steps := Steps(tr, tr.Cwd)
			for _, l := range d.Find(steps) {
				checkLoop(t, steps, l)
			}
			checkBanner(t, path, BannerOptions{})
			checkBanner(t, path, BannerOptions{Handle: invariant.Handles})
		})
	}
}

// load parses a corpus file: every one is a transcript the model reads.
func load(t *testing.T, path string) *transcript.Transcript {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.Parse(data, transcript.Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tr
}

// checkLoop checks a loop against its definition.
func checkLoop(t *testing.T, steps []Step, l Loop) {
	t.Helper()
	first, last := l.Steps[0], l.Steps[len(l.Steps)-1]
	for i := 1; i < len(l.Steps); i++ {
		if l.Steps[i] <= l.Steps[i-1] {
			t.Fatalf("%s loop: steps out of order %v", l.Kind, l.Steps)
		}
	}
	s0 := steps[first]
	switch l.Kind {
	case Repeat, SameError:
		if len(l.Steps) < DefaultMin {
			t.Errorf("%s loop of %d calls", l.Kind, len(l.Steps))
		}
		keys := map[string]bool{}
		for _, i := range l.Steps {
			s := steps[i]
			keys[s.Key] = true
			if !s.Failed || l.Kind == Repeat && s.Key != s0.Key || l.Kind == SameError && (s.family() != s0.family() || s.ErrorHash != s0.ErrorHash) {
				t.Errorf("%s loop: step %d (%s) does not belong: %+v", l.Kind, i, s.CallID, s)
			}
		}
		if l.Kind == SameError && len(keys) < 2 {
			t.Errorf("same-error loop of one call")
		}
		for i := first; i <= last; i++ {
			if steps[i].Progress {
				t.Errorf("%s loop: progress at step %d (%s) inside it", l.Kind, i, steps[i].CallID)
			}
			if l.Kind == Repeat && steps[i].Key == s0.Key && !steps[i].Failed {
				t.Errorf("repeat loop: the call succeeded at step %d", i)
			}
		}
	case Cycle:
		if l.Rounds < DefaultCycles || len(l.Steps) != l.Period*l.Rounds {
			t.Errorf("cycle of %d × %d with %d steps", l.Period, l.Rounds, len(l.Steps))
		}
		for _, i := range l.Steps[l.Period:] {
			if steps[i].Key != steps[i-l.Period].Key || steps[i].Failed != steps[i-l.Period].Failed {
				t.Errorf("cycle: step %d does not repeat step %d", i, i-l.Period)
			}
		}
	}
	if l.Verdict() == "" || strings.Contains(l.Verdict(), "\n") {
		t.Errorf("verdict %q", l.Verdict())
	}
}

// checkBanner: every failed result with a call gets a banner and keeps its
// call; the output as it was comes back from it; with a handle, the banner
// cites it; a second run changes nothing.
func checkBanner(t *testing.T, path string, opts BannerOptions) {
	t.Helper()
	tr := load(t, path)
	in := tr.Bytes()
	before := make([]string, len(tr.Results))
	for i, r := range tr.Results {
		before[i] = r.Text()
	}
	b, err := NewBanner(opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := b.Apply(tr)
	out := transcripttest.Parse(t, tr.Bytes())
	if err := invariant.Cites(in, tr.Bytes(), func(t *transcript.Transcript, r *transcript.Result) string { return opts.Handle.Of(t, r) }); err != nil {
		t.Error(err)
	}
	if len(out.Results) != len(tr.Results) || len(out.Calls) != len(tr.Calls) {
		t.Fatalf("%d results and %d calls out, %d and %d in", len(out.Results), len(out.Calls), len(tr.Results), len(tr.Calls))
	}
	changed := 0
	for i, r := range out.Results {
		if (r.Call == nil) != (tr.Results[i].Call == nil) {
			t.Fatalf("result %d lost its call", i)
		}
		text := r.Text()
		if text == before[i] {
			continue
		}
		changed++
		orig, ok := Unbanner(text)
		if !ok || orig != before[i] || !marker.Is(text, "loops") || len(marker.Refs(text)) != 0 {
			t.Errorf("result %d: the banner does not give back the output:\n%.300s", i, text)
		}
	}
	if changed != rep.Changed {
		t.Errorf("%d results changed, the report says %d", changed, rep.Changed)
	}
	if again := b.Apply(out); again.Changed != 0 {
		t.Errorf("a second run gave %d more banners", again.Changed)
	}
}
