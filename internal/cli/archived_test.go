package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/invariant"
	"github.com/ctxkit/ctxkit/internal/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript/transcripttest"
)

// TestArchivedFilters is the archive's promise to the filters' markers: with
// --archive, every result that a filter replaces cites a handle, and
// ctx-recall's archive gives back by it the result's original text, byte
// for byte. It runs each filter alone and the pipeline in every order over
// the example session, every fixture and every corpus file; the output keeps every invariant, and each filter run again
// on it (with the archive) changes nothing.
func TestArchivedFilters(t *testing.T) {
	runs := map[string][]filterStep{}
	for _, step := range pipeline {
		runs[step.cmd.Name] = []filterStep{step}
	}
	for _, order := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		var steps []filterStep
		var names []string
		for _, j := range order {
			steps = append(steps, pipeline[j])
			names = append(names, strings.TrimPrefix(pipeline[j].cmd.Name, "ctx-"))
		}
		runs[strings.Join(names, "|")] = steps
	}
	example := filepath.Join(testutil.Root(t), "examples", "session.jsonl")
	for name, steps := range runs {
		files := append([]string{example}, testutil.FixturesAndCorpus(t)...)
		if len(steps) > 1 && (raceEnabled || testing.Short()) {
			files = append([]string{example}, testutil.Fixtures(t)...)
		}
		t.Run(name, func(t *testing.T) {
			// One archive for every file, as a user's archive is.
			db := filepath.Join(t.TempDir(), "archive.db")
			replaced := 0
			for _, path := range files {
				t.Run(testutil.Name(path), func(t *testing.T) {
					in, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					replaced += checkArchived(t, db, in, steps)
				})
			}
			if replaced == 0 {
				t.Error("no result replaced in any file: the test needs some")
			}
		})
	}
}

// checkArchived runs the steps with the archive db over in, checks the
// output, and returns how many results were replaced.
func checkArchived(t *testing.T, db string, in []byte, steps []filterStep) int {
	withArchive := func(step filterStep) []string { return append([]string{"--archive", db}, step.args...) }
	out := in
	for _, step := range steps {
		out = runFilter(t, step.cmd, withArchive(step), out)
	}
	if err := invariant.Compare(in, out); err != nil {
		t.Fatalf("output against input: %v", err)
	}
	for _, step := range steps {
		if again := runFilter(t, step.cmd, withArchive(step), out); !bytes.Equal(again, out) {
			t.Errorf("%s on the output changed it", step.cmd.Name)
		}
	}
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	var a *archive.Archive
	replaced := 0
	for i, r := range after.Results {
		was := before.Results[i].Text()
		if r.Text() == was {
			continue
		}
		replaced++
		h := invariant.Cited(r.Text())
		if h == "" {
			t.Errorf("result %d (call %s) was replaced without a handle: %.200q", i, r.CallID, r.Text())
			continue
		}
		if a == nil {
			var err error
			if a, err = archive.OpenReadOnly(db); err != nil {
				t.Fatal(err)
			}
			defer a.Close()
		}
		rec, err := a.Get(h, "")
		switch {
		case err != nil:
			t.Errorf("result %d (call %s): %v", i, r.CallID, err)
		case *rec.Output != was:
			t.Errorf("result %d (call %s): ctx-recall %s gives %d bytes back, not the %d of the original", i, r.CallID, h, len(*rec.Output), len(was))
		}
	}
	return replaced
}
