package measure

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

var counter = sync.OnceValue(func() tokens.Counter {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		panic(err)
	}
	return c
})

type pipeline struct {
	dedupe    *dedupe.Options
	truncate  *truncate.Options
	summarize *summarize.Options
}

func parse(t testing.TB, in []byte) *transcript.Transcript {
	tr, err := transcript.Parse(in, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func (p pipeline) run(t testing.TB, in []byte) Kept {
	out := in
	step := func(apply func(*transcript.Transcript)) {
		tr := parse(t, out)
		apply(tr)
		out = tr.Bytes()
	}
	if p.dedupe != nil {
		f, err := dedupe.New(*p.dedupe)
		if err != nil {
			t.Fatal(err)
		}
		step(func(tr *transcript.Transcript) { f.Apply(tr) })
	}
	if p.truncate != nil {
		f, err := truncate.New(*p.truncate)
		if err != nil {
			t.Fatal(err)
		}
		step(func(tr *transcript.Transcript) { f.Apply(tr) })
	}
	if p.summarize != nil {
		f, err := summarize.New(*p.summarize)
		if err != nil {
			t.Fatal(err)
		}
		step(func(tr *transcript.Transcript) { f.Apply(tr) })
	}
	return Compare(parse(t, in), parse(t, out), counter())
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

func TestGrid(t *testing.T) {
	if os.Getenv("CTX_GRID") == "" {
		t.Skip()
	}
	files := testutil.CorpusFiles(t)
	ctr := counter()
	dd := dedupe.Defaults(ctr)
	tr := truncate.Options{Rules: truncate.DefaultRules()}
	for _, calls := range []int{0, 10, 20, 40} {
		for _, toks := range []int{10000, 20000, 40000} {
			for _, turns := range []int{0, 2} {
				for _, ms := range []int{0, 2000, 20000} {
					s := summarize.Defaults(ctr)
					s.ProtectCalls, s.ProtectTokens, s.ProtectTurns, s.MinSavings = calls, toks, turns, ms
					var all Kept
					for _, f := range files {
						in, _ := os.ReadFile(f)
						all.Add(pipeline{dedupe: &dd, truncate: &tr, summarize: &s}.run(t, in))
					}
					fmt.Printf("calls %2d tokens %5d turns %d min %5d: tool output %d -> %d (%s saved) latest %s paths %s errors %s failed %s\n",
						calls, toks, turns, ms, all.ToolOutput.Before, all.ToolOutput.After, pct(all.ToolOutput.Before-all.ToolOutput.After, all.ToolOutput.Before),
						pct(all.LatestWhole, all.LatestReads), pct(all.PathsKept, all.Paths), pct(all.ErrorLinesKept, all.ErrorLines), pct(all.FailedWhole, all.Failed))
				}
			}
		}
	}
}

func TestGrid2(t *testing.T) {
	if os.Getenv("CTX_GRID") == "" {
		t.Skip()
	}
	files := testutil.CorpusFiles(t)
	ctr := counter()
	dd := dedupe.Defaults(ctr)
	tr := truncate.Options{Rules: truncate.DefaultRules()}
	s := summarize.Defaults(ctr)
	s.ProtectCalls, s.ProtectTokens, s.ProtectTurns, s.MinSavings = 10, 20000, 0, 2000
	for name, p := range map[string]pipeline{"dedupe": {dedupe: &dd}, "truncate": {truncate: &tr}, "summarize": {summarize: &s}, "all": {dedupe: &dd, truncate: &tr, summarize: &s}} {
		var all Kept
		for _, f := range files {
			in, _ := os.ReadFile(f)
			k := p.run(t, in)
			all.Add(k)
			if name == "all" {
				fmt.Printf("  %-40s %7d -> %7d latest %d/%d paths %d/%d errors %d/%d\n", testutil.Name(f), k.ToolOutput.Before, k.ToolOutput.After, k.LatestWhole, k.LatestReads, k.PathsKept, k.Paths, k.ErrorLinesKept, k.ErrorLines)
			}
		}
		fmt.Printf("%s: tool output %d -> %d (%s saved) latest %s paths %s errors %s failed %s\n", name,
			all.ToolOutput.Before, all.ToolOutput.After, pct(all.ToolOutput.Before-all.ToolOutput.After, all.ToolOutput.Before),
			pct(all.LatestWhole, all.LatestReads), pct(all.PathsKept, all.Paths), pct(all.ErrorLinesKept, all.ErrorLines), pct(all.FailedWhole, all.Failed))
	}
}
