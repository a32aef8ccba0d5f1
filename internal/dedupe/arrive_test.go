package dedupe

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestArrivalsArePlan: result by result, with every result above still
// whole, the decisions on arrival are Plan's with the first-read rule:
// the rule needs nothing below a read.
func TestArrivalsArePlan(t *testing.T) {
	for _, path := range inputs(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			tr := transcripttest.Load(t, path)
			opts := defaults(t)
			opts.Keep = KeepFirst
			f, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			want := map[*transcript.Result]Change{}
			for _, c := range f.Plan(tr).Changes {
				want[c.Result] = c
			}
			ar := f.Arrivals(tr)
			replaced := map[*transcript.Result]bool{}
			for _, r := range tr.Results {
				c, ok := ar.Next(r, func(b *transcript.Result) bool { return !replaced[b] })
				w, wok := want[r]
				if ok != wok || ok && (c.Text != w.Text || c.Base != w.Base) {
					t.Fatalf("result %s: on arrival %v %.120q, by Plan %v %.120q", r.CallID, ok, c.Text, wok, w.Text)
				}
				replaced[r] = ok
			}
		})
	}
}

// TestArrivalsSkipGoneBases: a read whose base the loop replaced since
// stays whole, and becomes the base of the reads after it.
func TestArrivalsSkipGoneBases(t *testing.T) {
	body := "package a\n\nfunc A() int { return 1 }\n" + strings.Repeat("// long enough to be worth a pointer\n", 20)
	tr := transcripttest.Parse(t, session(
		`read_file {"path":"a.go"} => `+body,
		`read_file {"path":"a.go"} => `+body,
		`read_file {"path":"a.go"} => `+body))
	f, err := New(Options{MaxReads: 2, Counter: counter(), Keep: KeepFirst})
	if err != nil {
		t.Fatal(err)
	}
	ar := f.Arrivals(tr)
	gone := tr.Results[0]
	whole := func(b *transcript.Result) bool { return b != gone }
	if _, ok := ar.Next(tr.Results[0], whole); ok {
		t.Fatal("the first read was replaced")
	}
	if _, ok := ar.Next(tr.Results[1], whole); ok {
		t.Fatal("the second read points at a read that is gone")
	}
	c, ok := ar.Next(tr.Results[2], whole)
	if !ok || c.Base != tr.Results[1] {
		t.Fatalf("the third read: %v, base %v; want a pointer at the second", ok, c.Base)
	}
}

// TestFirstIsLoopSafe: with the first-read rule, the history before any
// request is deduplicated as the whole transcript deduplicates it: a read
// becomes what it becomes on arrival, and the next requests never change
// it, so a live loop keeps the prompt cache.
func TestFirstIsLoopSafe(t *testing.T) {
	for _, path := range inputs(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tr := transcripttest.Parse(t, data)
			opts := defaults(t)
			opts.Keep, opts.AllTools = KeepFirst, true
			f, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			full := map[int]string{}
			for _, c := range f.Plan(tr).Changes {
				full[c.Result.Index] = c.Text
			}
			turns := tr.Turns()
			step := max(1, len(turns)/15)
			for k := 0; k < len(turns); k += step {
				at := turns[k].Messages[0]
				pt, err := transcript.Parse(transcripttest.Prefix(t, data, tr, at), transcript.Options{Format: tr.Format})
				if err != nil {
					t.Fatal(err)
				}
				got := map[int]string{}
				for _, c := range f.Plan(pt).Changes {
					got[c.Result.Index] = c.Text
				}
				for _, r := range pt.Results {
					if got[r.Index] != full[r.Index] {
						t.Fatalf("request %d: result %s is %.100q, and %.100q in the whole transcript", k, r.CallID, got[r.Index], full[r.Index])
					}
				}
			}
		})
	}
}
