package summarize

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// configs are the options every fixture and corpus file is run with: the
// defaults (which leave small transcripts alone), protection lowered so
// that the files are summarized, and clear mode. The lowered run counts
// with the default encoding, as a user's run does; the others with the
// fast estimate, since exact counting under the race detector is slow
// (invariant.Check still judges every output in the default encoding).
var configs = []struct {
	name, encoding string
	opts           Options
}{
	{"defaults", tokens.Approx, Defaults(nil)},
	{"lowered", tokens.Default, Options{Mode: ModeSummary, ProtectTokens: 2000}},
	{"clear", tokens.Approx, Options{Mode: ModeClear, KeepRecent: 3, ProtectTurns: 1, KeepMirrors: true}},
	{"archived", tokens.Approx, Options{Mode: ModeSummary, ProtectTokens: 2000, Handle: invariant.Handles}},
	{"clear-archived", tokens.Approx, Options{Mode: ModeClear, KeepRecent: 3, Handle: invariant.Handles}},
	{"loop", tokens.Approx, Options{Mode: ModeSummary, Loop: 3}},
}

// inputs are the fixtures and, where it is present, the corpus.
func inputs(t *testing.T) []string {
	return append(testutil.FixturesAndCorpus(t), testutil.Scenarios(t)...)
}

// TestInvariants runs every invariant of docs/model.md (invariant.Check) over every
// fixture and corpus file with each configuration, and checks what
// ctx-summarize adds: only old results of kinds it may summarize change,
// into [ctx-summarize] summaries that name the tool, the target and how the
// call ended, and their mirrors follow.
func TestInvariants(t *testing.T) {
	counters := map[string]tokens.Counter{}
	for _, cfg := range configs {
		ctr, err := tokens.New(cfg.encoding)
		if err != nil {
			t.Fatal(err)
		}
		counters[cfg.encoding] = ctr
	}
	for _, path := range inputs(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range configs {
			t.Run(testutil.Name(path)+"/"+cfg.name, func(t *testing.T) {
				t.Parallel()
				opts := cfg.opts
				opts.Counter = counters[cfg.encoding]
				f, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				var rep Report
				out := invariant.Check(t, in, func(in []byte) ([]byte, error) {
					tr, err := transcript.Parse(in, transcript.Options{Tools: tools.NewTable(nil)})
					if err != nil {
						return nil, err
					}
					rep = f.Apply(tr)
					return tr.Bytes(), nil
				})
				checkChanges(t, in, out, cfg.opts)
				if opts.Handle != nil {
					if err := invariant.Cites(in, out, opts.Handle); err != nil {
						t.Error(err)
					}
				}
				if (cfg.name == "lowered" || cfg.name == "archived") && rep.Results-rep.Kept.EditWrite-rep.Kept.Failed >= 10 && rep.Summarized == 0 {
					// Check's last run is on the input: rep is the first run's.
					t.Errorf("nothing summarized with protection lowered: %+v", rep.Kept)
				}
			})
		}
	}
}

// checkChanges compares every result of out with in.
func checkChanges(t *testing.T, in, out []byte, opts Options) {
	t.Helper()
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	refs := marker.Referenced(before)
	for i, r := range after.Results {
		b := before.Results[i]
		if r.Text() == b.Text() {
			continue
		}
		c := b.Call
		switch {
		case !marker.Is(r.Text(), "summarize"):
			t.Errorf("result %d (%s) changed into something else than a summary: %.80q", i, b.CallID, r.Text())
		case c == nil || c.Kind == tools.Edit || c.Kind == tools.Write:
			t.Errorf("result %d (%s) of an edit, a write or no call was summarized", i, b.CallID)
		case b.Failed():
			t.Errorf("result %d (%s): a failed call's error text was summarized away", i, b.CallID)
		case marker.Is(b.Text(), "") || refs[b.CallID]:
			t.Errorf("result %d (%s): a marker, or a result a pointer names, was summarized", i, b.CallID)
		default:
			checkSummary(t, c, before.Cwd, r.Text())
		}
		// The first copy gets the summary, citing the copy's own handle.
		mirrors := r.Mirrors()
		if len(mirrors) > 0 && !opts.KeepMirrors &&
			mirrors[0].Text != marker.Recite(r.Text(), opts.Handle.Of(before, b), opts.Handle.Mirror(before, b, b.Mirrors()[0])) {
			t.Errorf("result %d (%s): mirror %s was not set to the summary", i, b.CallID, mirrors[0].Field)
		}
	}
}

// TestCorpusKeepsWhatIsReadAgain: the summary of every listing and search
// of every fixture and corpus file names every path it showed, or counts
// it with its directory; the summary of every read names every definition
// its outline finds; a clear of either names them too.
func TestCorpusKeepsWhatIsReadAgain(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	paths, defs := 0, 0
	for _, path := range inputs(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, in)
		for _, r := range tr.Results {
			c := r.Call
			if c == nil || r.Failed() {
				continue
			}
			text := r.Text()
			where := testutil.Name(path) + " " + c.ID
			for _, s := range []Summarizer{Rules{Cwd: tr.Cwd}, Clear{Cwd: tr.Cwd, Counter: ctr}} {
				sum, ok := s.Summarize(c, text)
				if !ok {
					continue
				}
				covered := Covered(sum)
				for _, p := range ShownPaths(c, text, tr.Cwd) {
					paths++
					if _, counted := covered(p); !counted {
						t.Errorf("%s: %T names %q neither by itself nor by its directory:\n%s", where, s, p, sum)
					}
				}
				if c.Kind != tools.Read {
					continue
				}
				_, o, _ := Rules{Cwd: tr.Cwd}.summarize(c, text)
				for _, d := range o.must.names {
					defs++
					if !strings.Contains(sum, d) && !strings.Contains(sum, "… (") {
						t.Errorf("%s: %T does not name the definition %q:\n%s", where, s, d, sum)
					}
				}
			}
		}
	}
	if testutil.CorpusIfPresent(t) != nil && (paths == 0 || defs == 0) {
		t.Errorf("%d paths and %d definitions checked: the corpus has listings, searches and reads", paths, defs)
	}
}
