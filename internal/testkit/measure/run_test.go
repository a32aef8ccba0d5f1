package measure

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// counter counts as the filters do by default (o200k_base).
var counter = sync.OnceValue(func() tokens.Counter {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		panic(err)
	}
	return c
})

// step is one filter of a pipeline, applied to a parsed transcript.
type step func(*transcript.Transcript) stats.Report

// pipeline runs steps one after the other, each on the output of the one
// before, parsed again as a pipe would, and returns the output.
func pipeline(t testing.TB, in []byte, steps ...step) []byte {
	t.Helper()
	out := in
	for _, s := range steps {
		tr := parse(t, out)
		s(tr)
		out = tr.Bytes()
	}
	return out
}

func parse(t testing.TB, in []byte) *transcript.Transcript {
	return transcripttest.Parse(t, in)
}

// The three filters with their defaults, and ctx-summarize with a budget.
func dedupeStep(t testing.TB, keep dedupe.Keep) step {
	opts := dedupe.Defaults(counter())
	opts.Keep = keep
	f, err := dedupe.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return func(tr *transcript.Transcript) stats.Report { return f.Apply(tr).Report }
}

func truncateStep(t testing.TB) step {
	f, err := truncate.New(truncate.Options{Rules: truncate.DefaultRules()})
	if err != nil {
		t.Fatal(err)
	}
	return f.Apply
}

func summarizeStep(t testing.TB, set func(*summarize.Options)) step {
	f := summarizer(t, set)
	return func(tr *transcript.Transcript) stats.Report { return f.Apply(tr).Stats() }
}

// summarizer is ctx-summarize with its defaults, changed by set.
func summarizer(t testing.TB, set func(*summarize.Options)) *summarize.Filter {
	opts := summarize.Defaults(counter())
	if set != nil {
		set(&opts)
	}
	f, err := summarize.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// file is one input: its name and bytes.
type file struct {
	name string
	data []byte
}

func read(t testing.TB, paths []string) []file {
	var out []file
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, file{testutil.Name(p), data})
	}
	return out
}

// table writes a Markdown table, for the numbers in the docs.
type table struct {
	b strings.Builder
}

func (tb *table) row(cells ...string) {
	tb.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func (tb *table) header(cells ...string) {
	tb.row(cells...)
	sep := make([]string, len(cells))
	for i := range sep {
		sep[i] = "---:"
	}
	sep[0] = "---"
	tb.row(sep...)
}

// share is a/b as a percentage, "–" without a b.
func share(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

// saved is what went from before to after, in tokens and percent.
func saved(c stats.Change) string {
	if c.Before == 0 {
		return "0"
	}
	return textfmt.Int(c.Before-c.After) + " (" + fmt.Sprintf("%.1f%%", 100*float64(c.Before-c.After)/float64(c.Before)) + ")"
}

// kept is "k of n" for what a run kept, "–" when there was nothing.
func kept(k, n int) string {
	if n == 0 {
		return "–"
	}
	return textfmt.Int(k) + " of " + textfmt.Int(n)
}
