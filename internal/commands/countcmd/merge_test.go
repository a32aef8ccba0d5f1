package countcmd

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// file is a transcript's usage records.
type file struct {
	name   string
	format transcript.Format
	recs   []usage.Record
}

func load(t *testing.T, paths []string) []file {
	t.Helper()
	var out []file
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, data)
		out = append(out, file{p, tr.Format, usage.Read(data, tr.Format)})
	}
	return out
}

// TestMergedCostsAreTheWhole: the costs of the fixtures and every corpus
// file, by every grouping of --cost, with and without a window, cut into
// parts at every place (and into a part each), each part written as a
// partial count, read back and merged in order, give the report of one
// run over them all, byte for byte: requests, tokens with the cache's
// reads and writes, and dollars to the last bit.
func TestMergedCostsAreTheWhole(t *testing.T) {
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
	files := load(t, testutil.FixturesAndCorpus(t))
	priced := 0
	for _, f := range files {
		priced += len(f.recs)
	}
	if priced == 0 {
		t.Fatal("no usage records in the files: the test shows nothing")
	}
	prices := pricing.Default()
	for _, by := range costBys {
		for _, w := range []count.Window{{}, {Since: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}} {
			counted := func(from, to int) *costs {
				c := newCosts(by, w)
				for _, f := range files[from:to] {
					c.add(f.name, f.format, f.recs, prices)
				}
				return c
			}
			want := costJSON(t, counted(0, len(files)))
			var splits [][]int
			each := []int{}
			for cut := 0; cut <= len(files); cut++ {
				splits = append(splits, []int{0, cut, len(files)})
				each = append(each, cut)
			}
			for _, bounds := range append(splits, each) {
				var m merged
				for i := 0; i+1 < len(bounds); i++ {
					part := counted(bounds[i], bounds[i+1])
					b, err := part.marshalPartial()
					if err != nil {
						t.Fatal(err)
					}
					back, err := readPartials(b)
					if err != nil {
						t.Fatalf("%v\n%s", err, b)
					}
					if err := m.add(back[0]); err != nil {
						t.Fatal(err)
					}
				}
				if got := costJSON(t, m.costs); got != want {
					t.Errorf("by %s, since %v, parts %v: merged\n%s\nwant\n%s", by, w.Since, bounds, got, want)
				}
			}
		}
	}
}

func costJSON(t *testing.T, c *costs) string {
	t.Helper()
	b, err := json.MarshalIndent(c.finish(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergeCostsRefuses: a request counted in two parts (a file, or a
// resumed session, in both) fails the merge, as do costs counted otherwise
// and a count of another kind among them.
func TestMergeCostsRefuses(t *testing.T) {
	var withRecords []file
	for _, f := range load(t, testutil.FixturesAndCorpus(t)) {
		if len(f.recs) > 0 {
			withRecords = append(withRecords, f)
		}
	}
	if len(withRecords) == 0 {
		t.Fatal("no file with usage records")
	}
	f := withRecords[0]
	part := func(by count.By, w count.Window) *costs {
		c := newCosts(by, w)
		c.add(f.name, f.format, f.recs, pricing.Default())
		return c
	}
	day := count.Window{Since: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}
	for _, c := range []struct {
		o    *costs
		want string
	}{
		{part(count.ByModel, count.Window{}), "counted in two partial counts"},
		{part(count.ByDay, count.Window{}), "costs by day"},
		{part(count.ByModel, day), "span of time"},
	} {
		if err := part(count.ByModel, count.Window{}).merge(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge: %v, want %q", err, c.want)
		}
	}
	m := merged{costs: part(count.ByModel, count.Window{})}
	if err := m.add(count.NewGrouped("o200k_base", count.ByModel, count.Window{})); err == nil {
		t.Error("a --by count merged into costs")
	}
	for _, c := range []struct{ in, want string }{
		{`{"partial":"cost","version":$v,"by":"tool"}`, `costs by "tool"`},
		{`{"partial":"cost","version":$v,"by":"model","cells":[{"key":"a","model":"m","cost_exact":"1"},{"key":"a","model":"m","cost_exact":"1"}]}`, "twice"},
		{`{"partial":"cost","version":$v,"by":"model","cells":[{"key":"a","model":"m","cost_exact":"x"}]}`, "not an exact sum"},
		{`{"partial":"tokens"}`, "not a partial count"},
		{`[1]`, "not a partial count"},
		{``, "no partial count"},
		{`{"partial":"cost","version":$v,"by":"day"} {`, "partial count 2"},
	} {
		c.in = strings.ReplaceAll(c.in, "$v", strconv.Itoa(count.SchemaVersion))
		if _, err := readPartials([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("readPartials(%s) = %v, want %q", c.in, err, c.want)
		}
	}
}
