package archive_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// filters are every filter that writes markers, each with an archive's
// handles (marker.Citation), as the commands run them with --archive.
func filters() map[string]func(*transcript.Transcript) stats.Report {
	ctr := must(tokens.New(tokens.Approx))
	rules := truncate.DefaultRules()
	rules.Counter = ctr
	dopts := dedupe.Defaults(ctr)
	dopts.Handle = marker.Citation
	all := dopts
	all.AllTools = true
	sum := func(opts summarize.Options) func(*transcript.Transcript) stats.Report {
		opts.Counter, opts.Handle = ctr, marker.Citation
		f := must(summarize.New(opts))
		return func(t *transcript.Transcript) stats.Report { return f.Apply(t).Stats() }
	}
	lowered := summarize.Defaults(ctr)
	lowered.ProtectTokens, lowered.ProtectCalls, lowered.MinSavings = 500, 2, 0
	cleared := lowered
	cleared.Mode = summarize.ModeClear
	budget := summarize.Defaults(ctr)
	budget.Budget, budget.KeepRecent = 1, 3
	copts := compact.Defaults(ctr)
	copts.Handle = marker.Citation
	cf := must(compact.New(copts))
	df, dfAll := must(dedupe.New(dopts)), must(dedupe.New(all))
	return map[string]func(*transcript.Transcript) stats.Report{
		"truncate":         must(truncate.New(truncate.Options{Rules: rules, Handle: marker.Citation})).Apply,
		"dedupe":           func(t *transcript.Transcript) stats.Report { return df.Apply(t).Stats() },
		"dedupe-all":       func(t *transcript.Transcript) stats.Report { return dfAll.Apply(t).Stats() },
		"summarize":        sum(lowered),
		"summarize-clear":  sum(cleared),
		"summarize-budget": sum(budget),
		"loops-banner":     must(loops.NewBanner(loops.BannerOptions{Handle: marker.Citation})).Apply,
		"compact":          func(t *transcript.Transcript) stats.Report { return cf.Apply(t).Stats() },
	}
}

// TestEveryMarkerCites: with an archive, every marker that any filter
// writes, in a result or in a copy of an output beside it (a mirror:
// Claude Code's toolUseResult, Codex's exec_command_end, mini-swe-agent's
// raw_output), cites a handle, and the archive gives back under that handle
// what the marker replaced, byte for byte; over every fixture, corpus file
// and scenario.
func TestEveryMarkerCites(t *testing.T) {
	files := append(testutil.FixturesAndCorpus(t), testutil.Scenarios(t)...)
	for name, apply := range filters() {
		t.Run(name, func(t *testing.T) {
			a, err := archive.Open(filepath.Join(t.TempDir(), "archive.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			for _, path := range files {
				in, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				before, err := transcript.Parse(in, transcript.Options{})
				if err != nil {
					t.Fatalf("%s: %v", testutil.Name(path), err)
				}
				tr, _ := transcript.Parse(in, transcript.Options{})
				rep := apply(tr)
				if err := a.Keep(archive.Originals(tr, rep.Replaced)); err != nil {
					t.Fatalf("%s: %v", testutil.Name(path), err)
				}
				after, err := transcript.Parse(tr.Bytes(), transcript.Options{Format: before.Format})
				if err != nil {
					t.Fatalf("%s: the output does not parse: %v", testutil.Name(path), err)
				}
				session := marker.SessionKey(before)
				check := func(where, was, now string) {
					t.Helper()
					if now == was || !hasMarker(now) {
						return
					}
					h := marker.CitedIn(now)
					if h == "" {
						t.Errorf("%s: %s: a marker that cites nothing: %.200q", testutil.Name(path), where, now)
						return
					}
					rec, err := a.Get(h, session)
					switch {
					case err != nil:
						t.Errorf("%s: %s cites %s: %v", testutil.Name(path), where, h, err)
					case *rec.Output != was:
						t.Errorf("%s: %s cites %s, which gives back %d bytes, not the %d it replaced", testutil.Name(path), where, h, len(*rec.Output), len(was))
					}
				}
				for i, r := range after.Results {
					b := before.Results[i]
					check("result "+r.CallID, b.Text(), r.Text())
					bm, am := b.Mirrors(), r.Mirrors()
					for j := range am {
						check("result "+r.CallID+"'s "+am[j].Field, bm[j].Text, am[j].Text)
					}
				}
			}
		})
	}
}

// must returns what a constructor made; its error, which options the test
// chose cannot give, panics.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// hasMarker reports whether a text holds a marker line of a ctx-* filter:
// at its start, or inside a cut.
func hasMarker(text string) bool {
	for line := range strings.Lines(text) {
		if marker.Is(line, "") {
			return true
		}
	}
	return false
}
