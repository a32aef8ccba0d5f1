package changelog

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

func fixtures(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "sessions", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/sessions: %v", err)
	}
	return files
}

// golden writes a report as Markdown and as JSON and compares both with
// the golden files <name>.md and <name>.json.
func golden(t *testing.T, name string, rep Report) {
	t.Helper()
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", name+".md"), md.Bytes())
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", name+".json"), append(js, '\n'))
}

// TestGoldenFixtures pins the changelog of every fixture with everything
// asked for (diffs, context, failed edits), and a timeline of one file.
func TestGoldenFixtures(t *testing.T) {
	timelines := map[string]string{
		"claude-multiedit.jsonl": "app/models.py",
		"codex-patch.jsonl":      "src/discount.js",
		"anthropic-intent.json":  "config/settings.toml",
		"openai-intent.json":     "api/health.go",
		"swe-agent-edits.traj":   "app/config.py",
	}
	for _, path := range fixtures(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			h := Analyze(transcripttest.Load(t, path), name, Options{Diff: true, Context: true})
			golden(t, name, NewChangelog([]*History{h}, ReportOptions{IncludeFailed: true}))
			tl, err := NewTimeline([]*History{h}, timelines[name], ReportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".timeline", tl)
		})
	}
}

// TestGoldenCorpus pins the changelog of the real sessions that change
// files: Claude Code's Edit and Write, failed writes, shell edits in a
// mini-swe-agent trajectory. Diffs and the assistant's words are left out:
// the golden files keep no more of the corpus than names and numbers.
func TestGoldenCorpus(t *testing.T) {
	for _, path := range testutil.CorpusFiles(t) {
		name := testutil.Name(path)
		h := Analyze(transcripttest.Load(t, path), name, Options{})
		rep := NewChangelog([]*History{h}, ReportOptions{IncludeFailed: true})
		if rep.Totals.Changes+rep.Totals.Failed == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			golden(t, "corpus-"+strings.ReplaceAll(name, "/", "-"), rep)
		})
	}
}

// TestGoldenMerged pins several sessions: a changelog each with a total,
// and one merged.
func TestGoldenMerged(t *testing.T) {
	var hs []*History
	for _, name := range []string{"claude-multiedit.jsonl", "codex-patch.jsonl"} {
		hs = append(hs, Analyze(transcripttest.Load(t, filepath.Join("testdata", "sessions", name)), name, Options{}))
	}
	golden(t, "several", NewChangelog(hs, ReportOptions{}))
	golden(t, "merged", NewChangelog(hs, ReportOptions{Merge: true}))
}
