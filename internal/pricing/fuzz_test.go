package pricing

import (
	"math"
	"testing"
)

// FuzzOverride: any --price value parses or fails with an error; what
// parses gives finite, non-negative rates.
func FuzzOverride(f *testing.F) {
	for _, s := range []string{"input=3,cache_write=3.75,cache_read=0.3,output=15", "m:input=1,output=2",
		"a:b:c=1", "=", ",,", "input=1e309", "x:cache_write_5m=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOverride(s)
		if err != nil {
			return
		}
		tb, err := Default().With(o)
		if err != nil {
			return
		}
		model := o.Model
		if model == "" {
			model = "gpt-5"
		}
		p, _ := tb.Lookup(model)
		for _, v := range p.Rates.fields() {
			if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 {
				t.Fatalf("%q: rates %+v", s, p.Rates)
			}
		}
	})
}

// FuzzFile: any price file parses or fails with an error; every model it
// adds is found again by its name.
func FuzzFile(f *testing.F) {
	f.Add([]byte("mine\t1\t-\t-\t0.1\t4\nmine >1000\t2\t-\t-\t0.2\t8\nm2 =mine\n"))
	f.Add([]byte(`{"mine": {"input": 3, "output": 15, "long_over": 9, "long": {"input": 6, "output": 30}}}`))
	f.Add([]byte("# nothing\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := Default().WithFile(data)
		if err != nil {
			return
		}
		for name := range tb.rows {
			if _, ok := tb.Lookup(name); !ok {
				t.Fatalf("row %q is not found by its name", name)
			}
		}
	})
}

// FuzzNormalize: a normalized name normalizes to itself, so that a row's
// name finds the row.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"us.anthropic.claude-opus-4-6-v1:0", "a-20250101-20250101", "x/y@z[1m]-latest"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := Normalize(s); Normalize(n) != n {
			t.Fatalf("%q normalizes to %q, then to %q", s, n, Normalize(n))
		}
	})
}
