package count

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

// TestDedupeAgrees: what ctx-count says ctx-dedupe saves is what ctx-dedupe
// saves, on every fixture and corpus file: one planner serves both.
func TestDedupeAgrees(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, path := range testutil.FixturesAndCorpus(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := Count(transcripttest.Parse(t, in), ctr, -1)
		opts := dedupe.Defaults(ctr)
		opts.Measure = true
		f, err := dedupe.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		st := f.Apply(transcripttest.Parse(t, in))
		if saved := st.Tokens.Before - st.Tokens.After; saved != rep.DedupeTokens {
			t.Errorf("%s: ctx-count says ctx-dedupe saves %d tokens, ctx-dedupe saves %d", testutil.Name(path), rep.DedupeTokens, saved)
		}
		perFile := 0
		for _, fr := range rep.FilesRead {
			perFile += fr.DedupeTokens
		}
		if perFile != rep.DedupeTokens {
			t.Errorf("%s: the files' savings add up to %d, the total is %d", testutil.Name(path), perFile, rep.DedupeTokens)
		}
		if rep.DedupeTokens > 0 {
			found++
		}
	}
	if found == 0 {
		t.Error("no input where ctx-dedupe saves anything: the test compares nothing")
	}
}
