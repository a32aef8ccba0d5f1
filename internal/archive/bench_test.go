package archive

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkStore archives each input into a new archive: parse, extract
// the executions, hash, count and write. $CTX_BENCH_FILE is the ~100 MB
// transcript of scripts/bigtranscript; without it, the corpus.
func BenchmarkStore(b *testing.B) {
	inputs := testutil.BenchInputs(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a, err := Open(filepath.Join(b.TempDir(), strconv.Itoa(i)+".db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, in := range inputs {
			t, err := transcript.Parse(in, transcript.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := a.Store(Executions(t, t.Results)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		a.Close()
		b.StartTimer()
	}
}

// benchArchive builds an archive of n executions: the corpus's (or the
// example session's) over and over, each copy a session of its own with
// outputs of its own, as a real archive's are. $CTX_BENCH_EXECUTIONS sets n
// (default 100,000).
func benchArchive(b *testing.B) (a *Archive, handles []string, n int) {
	b.Helper()
	n = 100_000
	if s := os.Getenv("CTX_BENCH_EXECUTIONS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	files := []string{filepath.Join(testutil.Root(b), "examples", "session.jsonl")}
	if _, err := os.Stat(testutil.CorpusDir(b)); err == nil {
		files = testutil.CorpusFiles(b)
	}
	var base []Execution
	for _, f := range files {
		t := transcripttest.Load(b, f)
		base = append(base, Executions(t, t.Results)...)
	}
	a, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	var batch []Execution
	for copy := 0; len(handles) < n; copy++ {
		for _, e := range base {
			if len(handles) == n {
				break
			}
			c := "-" + strconv.Itoa(copy)
			e.Session, e.Handle, e.CallID = e.Session+c, e.Handle+c, e.CallID+c
			e.Output = "[copy " + strconv.Itoa(copy) + "]\n" + e.Output
			batch = append(batch, e)
			handles = append(handles, e.Handle)
		}
		if len(batch) >= 10_000 || len(handles) == n {
			if _, err := a.Store(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return a, handles, n
}

// BenchmarkGet recalls outputs by id from an archive of
// $CTX_BENCH_EXECUTIONS executions, as ctx-recall ID does after opening it.
func BenchmarkGet(b *testing.B) {
	a, handles, _ := benchArchive(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := a.Get(handles[(i*7919)%len(handles)], ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFind runs full-text queries (ranked, with snippets, and the
// total) and a filter query over the same archive.
func BenchmarkFind(b *testing.B) {
	a, _, _ := benchArchive(b)
	for _, q := range []Query{{Text: "error"}, {Text: "func main"}, {Text: `"no such file"`}, {Failed: true, Tool: "shell"}, {Path: "README.md"}, {}} {
		name := q.Text
		switch {
		case name != "":
		case q.Path != "":
			name = "path"
		case q.Failed:
			name = "filters"
		default:
			name = "newest"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := a.Find(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
