package count

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// BenchmarkCount parses and counts a large transcript ($CTX_BENCH_FILE, made
// with scripts/bigtranscript) or the corpus, with each encoding.
func BenchmarkCount(b *testing.B) {
	var inputs [][]byte
	files := []string{os.Getenv("CTX_BENCH_FILE")}
	if files[0] == "" {
		files = testutil.CorpusFiles(b)
	}
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, data)
		size += len(data)
	}
	for _, enc := range tokens.Names() {
		b.Run(enc, func(b *testing.B) {
			ctr, err := tokens.New(enc)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				for _, in := range inputs {
					t, err := transcript.Parse(in, transcript.Options{})
					if err != nil {
						b.Fatal(err)
					}
					Count(t, ctr, 10)
				}
			}
		})
	}
}
