package measure

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/dedupe"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestDefaultsKeepWhatMatters runs the pipeline with every default over
// every fixture and corpus file: the latest read of every file stays whole
// (or a pointer to the same text), and every line that says what went wrong
// of a command's output is still in it. Over the corpus, the defaults save
// a real share of the tool output: at least a quarter.
func TestDefaultsKeepWhatMatters(t *testing.T) {
	steps := []step{dedupeStep(t, dedupe.KeepSeed), truncateStep(t), summarizeStep(t, nil)}
	var corpus Kept
	corpusFiles := map[string]bool{}
	for _, p := range testutil.CorpusIfPresent(t) {
		corpusFiles[testutil.Name(p)] = true
	}
	for _, f := range read(t, testutil.FixturesAndCorpus(t)) {
		out := pipeline(t, f.data, steps...)
		k := Compare(parse(t, f.data), parse(t, out), counter())
		if k.LatestWhole != k.LatestReads {
			t.Errorf("%s: %d of %d latest reads whole", f.name, k.LatestWhole, k.LatestReads)
		}
		if k.ErrorLinesKept != k.ErrorLines {
			t.Errorf("%s: %d of %d error lines kept", f.name, k.ErrorLinesKept, k.ErrorLines)
		}
		if corpusFiles[f.name] {
			corpus.Add(k)
		}
	}
	if c := corpus.ToolOutput; c.Before > 0 && 4*(c.Before-c.After) < c.Before {
		t.Errorf("the defaults save %d of %d tokens of the corpus's tool output: under a quarter", c.Before-c.After, c.Before)
	}
}

// TestNumbers prints the tables of the docs (README.md,
// docs/summarize.md, docs/dedupe.md), measured on the corpus; run it with
// CTX_NUMBERS=1 (scripts/measure).
func TestNumbers(t *testing.T) {
	if os.Getenv("CTX_NUMBERS") == "" {
		t.Skip("prints the docs' tables: CTX_NUMBERS=1")
	}
	files := read(t, testutil.CorpusFiles(t))
	fmt.Print("## The three filters with their defaults\n\n", defaultsTable(t, files))
	fmt.Print("\n## ctx-summarize --budget 30k, with an archive\n\n", budgetTable(t, files, 30000))
	fmt.Print("\n## ctx-summarize alone\n\n", summarizeTable(t, files))
	fmt.Print("\n## The knobs, one at a time\n\n", knobsTable(t, files))
	fmt.Print("\n## Protection: turns, or the recent work\n\n", protectionTable(t, files))
	fmt.Print("\n## ctx-dedupe: the seed rule and --keep latest\n\n", dedupeTable(t, files))
	fmt.Print("\n## ctx-summarize --llm: what a run asks\n\n", modelCostTable(t, files))
}

// defaultsTable: tokens after each filter of the pipeline, with every
// default, and what the output kept.
func defaultsTable(t *testing.T, files []file) string {
	var tb table
	tb.header("session", "tokens", "ctx-dedupe", "+ ctx-truncate", "+ ctx-summarize", "tool output saved", "latest reads whole", "paths kept", "error lines kept")
	var all Kept
	for _, f := range files {
		d := pipeline(t, f.data, dedupeStep(t, dedupe.KeepSeed))
		tr := pipeline(t, d, truncateStep(t))
		s := pipeline(t, tr, summarizeStep(t, nil))
		k := Compare(parse(t, f.data), parse(t, s), counter())
		all.Add(k)
		tb.row(f.name, textfmt.Int(k.Tokens.Before), tokensOf(t, d), tokensOf(t, tr), textfmt.Int(k.Tokens.After),
			saved(k.ToolOutput), kept(k.LatestWhole, k.LatestReads), share(k.PathsKept, k.Paths), kept(k.ErrorLinesKept, k.ErrorLines))
	}
	tb.row("all", textfmt.Int(all.Tokens.Before), "", "", textfmt.Int(all.Tokens.After), saved(all.ToolOutput),
		kept(all.LatestWhole, all.LatestReads), share(all.PathsKept, all.Paths), kept(all.ErrorLinesKept, all.ErrorLines))
	return tb.b.String()
}

func tokensOf(t *testing.T, data []byte) string {
	return textfmt.Int(stats.Count(parse(t, data), counter()).Tokens())
}

// budgetTable: ctx-summarize --budget, with an archive (its handles are
// archive.Handle's), on each session larger than the budget: the size after, whether it fits, what the ladder took, what
// the output kept, and how many of the results replaced and edits stubbed
// cite the handle that gives them back.
func budgetTable(t *testing.T, files []file, budget int) string {
	var tb table
	tb.header("session", "tokens", "after", "fits", "summaries", "clears", "edits compressed", "latest reads", "error lines kept", "failed results whole", "handles cited")
	for _, f := range files {
		if stats.Count(parse(t, f.data), counter()).Tokens() <= budget {
			continue
		}
		s := summarizer(t, func(o *summarize.Options) {
			*o = summarize.Options{Mode: summarize.ModeSummary, Budget: budget, KeepRecent: 3, Counter: counter(),
				Handle: func(t *transcript.Transcript, r *transcript.Result) string { return marker.Handle(t, r) }}
		})
		var rep *summarize.BudgetReport
		out := pipeline(t, f.data, func(tr *transcript.Transcript) stats.Report {
			r := s.Apply(tr)
			rep = r.Budget
			return r.Stats()
		})
		before, after := parse(t, f.data), parse(t, out)
		k := Compare(before, after, counter())
		replaced, cited := 0, 0
		for i, r := range after.Results {
			if r.Text() != before.Results[i].Text() {
				replaced++
				if marker.CitedIn(r.Text()) != "" || marker.CitedCut(r.Text()) != "" {
					cited++
				}
			}
		}
		for i, c := range after.Calls {
			if c.Input != before.Calls[i].Input {
				replaced++
				if strings.Contains(c.Input, "its arguments: ctx-recall --json ") {
					cited++
				}
			}
		}
		fits := "yes"
		if !rep.Fits {
			fits = fmt.Sprintf("no: %s of messages and tool inputs", textfmt.Int(rep.Messages))
		}
		tb.row(f.name, textfmt.Int(k.Tokens.Before), textfmt.Int(k.Tokens.After), fits, textfmt.Int(rep.Summaries), textfmt.Int(rep.Clears),
			textfmt.Int(rep.Edits), textfmt.Int(rep.LatestReads), kept(k.ErrorLinesKept, k.ErrorLines), kept(k.FailedWhole, k.Failed), kept(cited, replaced))
	}
	return tb.b.String()
}

// summarizeTable: ctx-summarize alone, with its defaults and lowered
// (--protect-calls 3 --min-savings 0).
func summarizeTable(t *testing.T, files []file) string {
	var tb table
	tb.header("session", "tokens", "defaults: after", "saved", "lowered: after", "saved")
	for _, f := range files {
		cells := []string{f.name, tokensOf(t, f.data)}
		for _, set := range []func(*summarize.Options){nil, func(o *summarize.Options) { o.ProtectCalls, o.MinSavings = 3, 0 }} {
			out := pipeline(t, f.data, summarizeStep(t, set))
			k := Compare(parse(t, f.data), parse(t, out), counter())
			cells = append(cells, textfmt.Int(k.Tokens.After), saved(k.Tokens))
		}
		tb.row(cells...)
	}
	return tb.b.String()
}

// knobsTable: the pipeline over the whole corpus with ctx-summarize's
// defaults, and with one setting changed at a time.
func knobsTable(t *testing.T, files []file) string {
	var tb table
	tb.header("ctx-summarize", "tool output saved", "latest reads whole", "paths kept", "error lines kept")
	for _, k := range []struct {
		name string
		set  func(*summarize.Options)
	}{
		{"the defaults", nil},
		{"OpenCode's windows: `--protect-turns 2 --protect-calls 0 --min-savings 20000`", func(o *summarize.Options) {
			o.ProtectTurns, o.ProtectCalls, o.MinSavings = 2, 0, 20000
		}},
		{"lowered: `--protect-tokens 10000 --protect-calls 0 --min-savings 0 --summarize-latest-reads`", func(o *summarize.Options) {
			o.ProtectTokens, o.ProtectCalls, o.MinSavings, o.SummarizeLatestReads = 10000, 0, 0, true
		}},
		{"`--summarize-latest-reads`", func(o *summarize.Options) { o.SummarizeLatestReads = true }},
		{"`--protect-calls 10`", func(o *summarize.Options) { o.ProtectCalls = 10 }},
		{"`--protect-calls 40`", func(o *summarize.Options) { o.ProtectCalls = 40 }},
		{"`--protect-turns 2`", func(o *summarize.Options) { o.ProtectTurns = 2 }},
		{"`--min-savings 10000`", func(o *summarize.Options) { o.MinSavings = 10000 }},
	} {
		var all Kept
		for _, f := range files {
			out := pipeline(t, f.data, dedupeStep(t, dedupe.KeepSeed), truncateStep(t), summarizeStep(t, k.set))
			all.Add(Compare(parse(t, f.data), parse(t, out), counter()))
		}
		tb.row(k.name, saved(all.ToolOutput), share(all.LatestWhole, all.LatestReads), share(all.PathsKept, all.Paths), share(all.ErrorLinesKept, all.ErrorLines))
	}
	return tb.b.String()
}

// protectionTable: ctx-summarize alone with OpenCode's window by user
// turns (the old default) and with the recent work that scales with the
// run (the default).
func protectionTable(t *testing.T, files []file) string {
	var tb table
	tb.header("session", "user turns", "tool results", "--protect-turns 2: protected", "saved", "default: protected", "saved")
	for _, f := range files {
		tr := parse(t, f.data)
		turns := 0
		for _, m := range tr.Messages {
			if m.IsUserTurn() {
				turns++
			}
		}
		if len(tr.Results) < 10 {
			continue
		}
		cells := []string{f.name, textfmt.Int(turns), textfmt.Int(len(tr.Results))}
		for _, set := range []func(*summarize.Options){
			func(o *summarize.Options) { o.ProtectTurns, o.ProtectCalls, o.MinSavings = 2, 0, 20000 },
			nil,
		} {
			x := parse(t, f.data)
			rep := summarizer(t, set).Apply(x)
			out := Compare(parse(t, f.data), parse(t, x.Bytes()), counter())
			cells = append(cells, textfmt.Int(rep.Kept.Protected), saved(out.ToolOutput))
		}
		tb.row(cells...)
	}
	return tb.b.String()
}

// dedupeTable: ctx-dedupe with the seed rule and with --keep latest.
func dedupeTable(t *testing.T, files []file) string {
	var tb table
	tb.header("session", "reads (files)", "seed: pointers", "covered", "diffs", "saved", "latest: pointers", "covered", "diffs", "saved")
	for _, f := range files {
		var cells []string
		for _, keep := range []dedupe.Keep{dedupe.KeepSeed, dedupe.KeepLatest} {
			opts := dedupe.Defaults(counter())
			opts.Keep, opts.Measure = keep, true
			d, err := dedupe.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			tr := parse(t, f.data)
			plan := d.Plan(tr)
			rep := d.Apply(tr)
			if cells == nil {
				cells = []string{f.name, textfmt.Int(plan.Reads) + " (" + textfmt.Int(plan.Files) + ")"}
			}
			cells = append(cells, textfmt.Int(plan.Count(dedupe.Pointer)), textfmt.Int(plan.Count(dedupe.Covered)),
				textfmt.Int(plan.Count(dedupe.Diff)), saved(rep.Tokens))
		}
		tb.row(cells...)
	}
	return tb.b.String()
}

// modelCostTable: what ctx-summarize --llm asks a model about each session,
// with the defaults and lowered (--protect-calls 3 --min-savings 0): the
// results it asks about, the requests (a prompt that several results share
// is sent once, as ctx-summarize sends it) and their prompt tokens as
// o200k_base counts them (a server's tokenizer differs somewhat).
func modelCostTable(t *testing.T, files []file) string {
	var tb table
	tb.header("session", "tokens", "defaults: asked", "requests", "prompt tokens", "lowered: asked", "requests", "prompt tokens")
	settings := []func(*summarize.Options){
		func(o *summarize.Options) { o.ModelInput = 3000 },
		func(o *summarize.Options) { o.ModelInput, o.ProtectCalls, o.MinSavings = 3000, 3, 0 },
	}
	total := make([]int, 3*len(settings))
	for _, f := range files {
		cells := []string{f.name, tokensOf(t, f.data)}
		for i, set := range settings {
			prompts := summarizer(t, set).Prompts(parse(t, f.data))
			sent := map[[2]string]bool{}
			tokens := 0
			for _, p := range prompts {
				if k := [2]string{p.System, p.User}; !sent[k] {
					sent[k] = true
					tokens += counter().Count(p.System) + counter().Count(p.User)
				}
			}
			for j, n := range []int{len(prompts), len(sent), tokens} {
				total[3*i+j] += n
				cells = append(cells, textfmt.Int(n))
			}
		}
		if cells[3] != "0" || cells[6] != "0" {
			tb.row(cells...)
		}
	}
	cells := []string{"all", ""}
	for _, n := range total {
		cells = append(cells, textfmt.Int(n))
	}
	tb.row(cells...)
	return tb.b.String()
}
