package count

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestMergedPartialsAreTheWhole: on the fixtures and every corpus file,
// by every grouping, with and without a window, the files cut into parts
// at every place (and into a part each), each part counted alone and
// written as a partial count, read back and merged in order, give the
// report of all the files counted in one run, byte for byte.
func TestMergedPartialsAreTheWhole(t *testing.T) {
	inUTC(t)
	ctr := counter(t)
	files := testutil.FixturesAndCorpus(t)
	trs := make([]*transcript.Transcript, len(files))
	for i, path := range files {
		trs[i] = transcripttest.Load(t, path)
	}
	windows := []Window{{}, {Since: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}}
	for _, by := range Bys {
		for _, w := range windows {
			count := func(from, to int) *Grouped {
				g := NewGrouped(ctr.Name(), by, w)
				for i := from; i < to; i++ {
					g.Add(GroupTokens(trs[i], ctr, by, w, files[i]))
				}
				return g
			}
			want := report(t, count(0, len(trs)))
			splits := [][]int{}
			for cut := 0; cut <= len(trs); cut++ {
				splits = append(splits, []int{0, cut, len(trs)})
			}
			each := []int{}
			for i := 0; i <= len(trs); i++ {
				each = append(each, i)
			}
			splits = append(splits, each)
			for _, bounds := range splits {
				var merged *Grouped
				for i := 0; i+1 < len(bounds); i++ {
					part := roundTrip(t, count(bounds[i], bounds[i+1]))
					if merged == nil {
						merged = part
					} else if err := merged.Merge(part); err != nil {
						t.Fatal(err)
					}
				}
				if got := report(t, roundTrip(t, merged)); got != want {
					t.Errorf("by %s, since %v, parts %v: merged\n%s\nwant\n%s", by, w.Since, bounds, got, want)
				}
			}
		}
	}
}

// report is a count's --by --json report.
func report(t *testing.T, g *Grouped) string {
	t.Helper()
	g.Finish()
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// roundTrip is a count written as a partial count and read back.
func roundTrip(t *testing.T, g *Grouped) *Grouped {
	t.Helper()
	b, err := g.MarshalPartial()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalPartial(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return back
}

// TestMergeRefusesUnlike: counts made otherwise do not add up, and bad
// partial counts are refused with what is wrong.
func TestMergeRefusesUnlike(t *testing.T) {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	g := NewGrouped("o200k_base", ByProject, Window{})
	for _, c := range []struct {
		o    *Grouped
		want string
	}{
		{NewGrouped("o200k_base", ByDay, Window{}), "counted by day"},
		{NewGrouped("approx", ByProject, Window{}), "counted in approx"},
		{NewGrouped("o200k_base", ByProject, Window{Since: day}), "span of time"},
	} {
		if err := g.Merge(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge of %s %s: %v, want %q", c.o.By, c.o.Encoding, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"partial":"cost","version":$v}`, "not a partial --by count"},
		{`{"partial":"count","version":99,"by":"day"}`, "schema version 99"},
		{`{"partial":"count","version":$v,"by":"role"}`, "unknown grouping"},
		{`{"partial":"count","version":$v,"by":"day","groups":[{"key":"a"},{"key":"a"}]}`, `group "a" twice`},
		{`{"partial":"count"`, "unexpected end"},
	} {
		c.in = strings.ReplaceAll(c.in, "$v", strconv.Itoa(SchemaVersion))
		if _, err := UnmarshalPartial([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("UnmarshalPartial(%s) = %v, want %q", c.in, err, c.want)
		}
	}
}

// TestSumIsExact: a Sum of floats is the same in every order and however
// it is cut into sums of parts, and survives its text form, where a
// float64 running sum does not.
func TestSumIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 200)
	for i := range xs {
		xs[i] = r.Float64() * float64(int(1)<<r.IntN(40)) / 1e6
	}
	xs = append(xs, 0.1, 0.2, 0.3, 1e-12, 3.75e8)
	var want Sum
	for _, x := range xs {
		want.Add(x)
	}
	naive := map[float64]bool{}
	for range 20 {
		r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		cut := r.IntN(len(xs))
		var a, b Sum
		f := 0.0
		for i, x := range xs {
			f += x
			if i < cut {
				a.Add(x)
			} else {
				b.Add(x)
			}
		}
		naive[f] = true
		var back Sum
		text, err := b.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		if err := back.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
		a.Plus(back)
		if a.Float64() != want.Float64() || a.f.Cmp(want.f) != 0 {
			t.Errorf("cut at %d: %v, want %v", cut, a.Float64(), want.Float64())
		}
	}
	if len(naive) == 1 {
		t.Errorf("every order gave the same float64 sum: the test shows nothing")
	}
	var zero Sum
	if text, _ := zero.MarshalText(); string(text) != "0" || zero.Float64() != 0 {
		t.Errorf("the zero Sum: %s, %v", text, zero.Float64())
	}
	if err := zero.UnmarshalText([]byte("1e400x")); err == nil {
		t.Error("a bad sum read without an error")
	}
}
