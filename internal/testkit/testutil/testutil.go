// Package testutil holds what the tests of every package share: golden files
// and the corpus of real transcripts.
package testutil

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the actual output")

// Golden compares got with the golden file at path. With -update it writes
// the file instead. On a mismatch it writes got to path+".actual" for
// inspection (git ignores those).
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		actual := path + ".actual"
		_ = os.WriteFile(actual, got, 0o644)
		t.Errorf("%s differs from the golden file; the actual output is in %s (diff them, or run go test -update)", path, actual)
		return
	}
	_ = os.Remove(path + ".actual")
}

// Root is the module's root directory: the nearest parent holding go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// CorpusDir is where the corpus of real transcripts is: ../shared/corpus from
// the module root, or $CTX_CORPUS.
func CorpusDir(t testing.TB) string {
	if dir := os.Getenv("CTX_CORPUS"); dir != "" {
		return dir
	}
	return filepath.Join(Root(t), "..", "shared", "corpus")
}

// CorpusFiles lists every transcript of the corpus, sorted. It skips the test
// when the corpus is absent or empty (a user's clone has none), unless the
// corpus is required (RequireCorpus): then the test fails.
func CorpusFiles(t testing.TB) []string {
	t.Helper()
	files := CorpusIfPresent(t)
	if len(files) == 0 {
		t.Skipf("no corpus of real transcripts at %s (set CTX_CORPUS to use one elsewhere)", CorpusDir(t))
	}
	return files
}

// RequireCorpus reports whether the tests must have the corpus: with
// CTX_REQUIRE_CORPUS=1 (CI's pass over the corpus sets it), a test that
// would skip for want of it fails instead, so that a green run cannot hide
// that nothing real ran.
func RequireCorpus() bool { return os.Getenv("CTX_REQUIRE_CORPUS") == "1" }

// CorpusIfPresent lists every transcript of the corpus, sorted, and none when
// the corpus is absent or empty: for the tests that check the in-repo
// fixtures and add the corpus where there is one. When the corpus is
// required (RequireCorpus), its absence fails the test.
func CorpusIfPresent(t testing.TB) []string {
	t.Helper()
	files := corpusFiles(t)
	if len(files) == 0 && RequireCorpus() {
		t.Fatalf("CTX_REQUIRE_CORPUS=1, and there is no corpus of real transcripts at %s (set CTX_CORPUS to the directory that has it)", CorpusDir(t))
	}
	return files
}

// corpusFiles lists the transcripts under CorpusDir, none when it is absent.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir := CorpusDir(t)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".json", ".jsonl", ".traj":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the corpus of real transcripts: %v", err)
	}
	sort.Strings(files)
	return files
}

// FixturesAndCorpus lists the shared fixtures, then the corpus where there
// is one.
func FixturesAndCorpus(t testing.TB) []string {
	t.Helper()
	return append(Fixtures(t), CorpusIfPresent(t)...)
}

// BenchInputs reads what benchmarks measure: $CTX_BENCH_FILE (make one
// with scripts/bigtranscript), else every corpus file. It sets the bytes
// per operation to their size, and resets the timer.
func BenchInputs(b *testing.B) [][]byte {
	b.Helper()
	files := []string{os.Getenv("CTX_BENCH_FILE")}
	if files[0] == "" {
		files = CorpusFiles(b)
	}
	inputs := make([][]byte, len(files))
	size := 0
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		inputs[i] = data
		size += len(data)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	return inputs
}

// Fixtures lists the shared fixtures of testdata/formats, sorted.
func Fixtures(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Root(t), "testdata", "formats", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/formats: %v", err)
	}
	sort.Strings(files)
	return files
}

// Scenarios lists the transcripts of testdata/ (testdata/*.jsonl and
// *.traj), sorted: each a situation that the formats' fixtures lack (a
// Codex rollout whose commands are polled with write_stdin, SWE-agent's
// linter refusing edits, a Claude Code sub-agent's calls cancelled beside
// one that failed, a call the user refused), for the property tests to add
// to them. They are not fixtures of a format: the goldens made over every
// fixture do not change with them. testdata/SOURCES.md says where each
// comes from.
func Scenarios(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.jsonl", "*.traj"} {
		found, err := filepath.Glob(filepath.Join(Root(t), "testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Fatalf("no scenarios in testdata")
	}
	sort.Strings(files)
	return files
}

// Requests lists the API request bodies of testdata/requests, sorted: what
// Claude Code and Codex sent a model server (their system prompts and tool
// definitions shortened), a Chat Completions body of a mini-swe-agent run
// from the corpus, and bodies as the APIs' documentation shows them, with
// server tools, signed thinking, cache_control and images.
func Requests(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Root(t), "testdata", "requests", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no request bodies in testdata/requests: %v", err)
	}
	sort.Strings(files)
	return files
}

// Name is a file's name relative to its corpus or fixture directory, for
// subtest names: claude-code/spotter-subagent.jsonl.
func Name(path string) string {
	return filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
}

// NumberLines numbers lines from start as read tools print a file: the
// number right-aligned in six columns, then sep ("→" for Claude Code's
// Read, a tab for cat -n), then the line.
func NumberLines(start int, sep string, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d%s%s", start+i, sep, l)
	}
	return b.String()
}
