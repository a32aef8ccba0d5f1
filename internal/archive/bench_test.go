package archive

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
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
