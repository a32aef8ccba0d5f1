package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/sessionpage"
	"github.com/ctxkit/ctxkit/internal/testkit/browsertest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// drawn is what a browser drew of a page's charts, as the test's script
// counts it in the page's DOM.
type drawn struct {
	Share, Context, Usage, Marks, Calls, Spans, Dots, Largest int
	Before, Cost                                              []int // the points of each line
	Laid                                                      bool  // every chart laid out, with a height
}

const countScript = `(() => {
  const n = s => document.querySelectorAll(s).length;
  const points = s => [...document.querySelectorAll(s)].map(p => p.points.numberOfItems);
  return {Share: n('#chart-share rect.bar'), Context: n('#chart-context rect.bar'), Before: points('#chart-context polyline'),
    Usage: n('#chart-usage rect.bar'), Cost: points('#chart-cost polyline'), Marks: n('#chart-cost circle.mark'),
    Calls: n('#chart-calls rect.bar'), Spans: n('#chart-calls rect.span'), Dots: n('#chart-calls circle.dot'), Largest: n('#chart-largest rect.bar'),
    Laid: [...document.querySelectorAll('svg.chart')].every(s => s.getBoundingClientRect().height > 20)};
})()`

// want is what the page's charts hold, by its model.
func want(ch sessionpage.Charts) drawn {
	w := drawn{Context: ch.Context.Bars(), Laid: true}
	for _, p := range ch.Share.Parts {
		if p.Value > 0 {
			w.Share++
		}
	}
	for _, l := range ch.Context.Lines {
		w.Before = append(w.Before, len(l.Values))
	}
	if ch.Usage != nil {
		w.Usage = ch.Usage.Bars()
	}
	if ch.Cost != nil {
		for _, s := range ch.Cost.Series {
			w.Cost = append(w.Cost, len(s.Values))
			w.Marks += len(s.Marks)
		}
	}
	if ch.Calls != nil {
		w.Calls, w.Spans = len(ch.Calls.Events), len(ch.Calls.Spans)
		for _, e := range ch.Calls.Events {
			if e.Dot {
				w.Dots++
			}
		}
	}
	if ch.Largest != nil {
		w.Largest = len(ch.Largest.Bars)
	}
	return w
}

// TestPageInBrowser: ctx-count --html -o DIR writes the page of every
// corpus session, and of the shipped example and the largest corpus
// session filtered (ctx-dedupe, ctx-truncate, ctx-summarize) with their
// originals as --before; Chromium opens each from its file with nothing
// on its console, asks the network for nothing but the page itself, and
// draws the bars and points the page's numbers say. With
// CTX_SCREENSHOTS=DIR the top of each page is saved there as a PNG
// (docs/count.png is the largest session's, filtered).
func TestPageInBrowser(t *testing.T) {
	b := browsertest.Start(t)
	bin := tools(t)
	dir := t.TempDir()
	sessions := []string{filepath.Join(testutil.Root(t), "examples", "session.jsonl")}
	corpus := testutil.CorpusIfPresent(t)
	if len(corpus) > 0 {
		sessions = append(sessions, largest(t, corpus))
	}
	type page struct{ path, before string }
	var pages []page
	for _, src := range sessions {
		orig, filtered := filter(t, bin, dir, src)
		ctxCount(t, bin, dir, "--html", "--before", orig, "-o", "pages", filtered)
		pages = append(pages, page{filepath.Join(dir, filtered), filepath.Join(dir, orig)})
	}
	if len(corpus) > 0 {
		ctxCount(t, bin, dir, append([]string{"--html", "-o", "pages"}, corpus...)...)
		for _, path := range corpus {
			pages = append(pages, page{path: path})
		}
	}
	shots := os.Getenv("CTX_SCREENSHOTS")
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, pg := range pages {
		name := strings.TrimSuffix(filepath.Base(pg.path), filepath.Ext(pg.path))
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(pg.path)
			if err != nil {
				t.Fatal(err)
			}
			tr := transcripttest.Parse(t, data)
			opts, err := sessionpage.Defaults(pg.path, data, tr, ctr)
			if err != nil {
				t.Fatal(err)
			}
			if pg.before != "" {
				opts.Before = transcripttest.Load(t, pg.before)
			}
			w := want(sessionpage.Build(tr, opts).Charts())
			checkCounts(t, tr, w)

			url := "file://" + filepath.Join(dir, "pages", name+".html")
			p := b.Open(t, url, 1100, 900)
			if problems := p.Problems(); len(problems) > 0 {
				t.Errorf("the browser reported:\n%s", strings.Join(problems, "\n"))
			}
			if reqs := p.Requests(); !slices.Equal(reqs, []string{url}) {
				t.Errorf("the page asked for %q, want itself alone", reqs)
			}
			var got drawn
			p.Eval(t, countScript, &got)
			if !equal(got, w) {
				t.Errorf("the browser drew\n%+v\nwant\n%+v", got, w)
			}
			if shots != "" {
				if err := os.WriteFile(filepath.Join(shots, name+".png"), p.Screenshot(t, 1400), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// largest is the largest of the files.
func largest(t *testing.T, files []string) string {
	best, size := "", int64(-1)
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > size {
			best, size = f, st.Size()
		}
	}
	return best
}

// filter copies a session into dir and filters it there with ctx-dedupe,
// ctx-truncate and ctx-summarize, as the README's pipeline does; it
// returns both files' names in dir.
func filter(t *testing.T, bin, dir, src string) (orig, filtered string) {
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	orig = filepath.Base(src)
	ext := filepath.Ext(orig)
	filtered = strings.TrimSuffix(orig, ext) + ".filtered" + ext
	if err := os.WriteFile(filepath.Join(dir, orig), data, 0o644); err != nil {
		t.Fatal(err)
	}
	pipeline := "ctx-dedupe " + orig + " | ctx-truncate | ctx-summarize --protect-calls 3 --min-savings 0 > " + filtered
	cmd := exec.Command("sh", "-c", pipeline)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), pathEnv(bin))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", pipeline, err, out)
	}
	return orig, filtered
}

// ctxCount runs ctx-count in dir, so that the pages name their files as
// given.
func ctxCount(t *testing.T, bin, dir string, args ...string) {
	cmd := exec.Command(filepath.Join(bin, "ctx-count"), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctx-count %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// checkCounts checks the model's counts against the transcript: a bar
// for every call, a point for every request (up to the page's limits).
func checkCounts(t *testing.T, tr *transcript.Transcript, w drawn) {
	t.Helper()
	requests := min(len(tr.Turns()), sessionpage.MaxColumns)
	if calls := tr.Tally().Calls; calls <= sessionpage.MaxColumns && w.Calls != calls {
		t.Errorf("the timeline has %d calls, the transcript %d", w.Calls, calls)
	}
	for _, n := range w.Cost {
		if n != requests {
			t.Errorf("a cost line has %d points, the transcript %d requests", n, requests)
		}
	}
	if w.Context == 0 && requests > 0 {
		t.Errorf("no columns for %d requests", requests)
	}
}

func equal(a, b drawn) bool {
	return slices.Equal(a.Cost, b.Cost) && slices.Equal(a.Before, b.Before) &&
		a.Share == b.Share && a.Context == b.Context && a.Usage == b.Usage && a.Marks == b.Marks && a.Calls == b.Calls &&
		a.Spans == b.Spans && a.Dots == b.Dots && a.Largest == b.Largest && a.Laid == b.Laid
}

// TestBrowserReports: the browser test sees what it looks for: a page
// whose script fails, that logs an error, that loads an image that is not
// there and whose stylesheet its security policy refuses is reported on
// every count.
func TestBrowserReports(t *testing.T) {
	b := browsertest.Start(t)
	file := filepath.Join(t.TempDir(), "bad.html")
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"/>` +
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src *; script-src 'unsafe-inline'"/>` +
		`<style>body{color:red}</style></head><body><img src="missing.png"/>` +
		`<script>console.error("logged"); undefinedFunction();</script></body></html>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := b.Open(t, "file://"+file, 800, 600)
	problems := strings.Join(p.Problems(), "\n")
	for _, want := range []string{"console.error: logged", "undefinedFunction", "missing.png", "Content Security Policy"} {
		if !strings.Contains(problems, want) {
			t.Errorf("the browser did not report %q:\n%s", want, problems)
		}
	}
	if reqs := p.Requests(); len(reqs) != 2 {
		t.Errorf("requests %q, want the page and its image", reqs)
	}
}
