package pricing

import (
	"strings"
	"testing"
)

// TestOverride: --price values, for every model and for one.
func TestOverride(t *testing.T) {
	cases := []struct {
		name, in, model string
		want            Rates
		err             string
	}{{
		name: "every model", in: "input=3,cache_write=3.75,cache_read=0.3,output=15", model: "gpt-5",
		want: Rates{Input: 3, CacheWrite: 3.75, CacheWrite1h: 1.25, CacheRead: 0.3, Output: 15},
	}, {
		name: "one rate of one model", in: "claude-sonnet-4-5:cache_read=0.1", model: "claude-sonnet-4-5-20250929",
		want: Rates{Input: 3, CacheWrite: 3.75, CacheWrite1h: 6, CacheRead: 0.1, Output: 15},
	}, {
		name: "a new model", in: "my-model:input=1,output=2", model: "my-model",
		want: Rates{Input: 1, CacheWrite: 1, CacheWrite1h: 1, CacheRead: 1, Output: 2},
	}, {
		name: "a Bedrock name", in: "us.anthropic.claude-opus-4-6-v1:0:cache_write_5m=7", model: "claude-opus-4-6",
		want: Rates{Input: 5, CacheWrite: 7, CacheWrite1h: 10, CacheRead: 0.5, Output: 25},
	}, {
		name: "an alias", in: "sonnet:output=1", model: "sonnet",
		want: Rates{Input: 2, CacheWrite: 2.5, CacheWrite1h: 4, CacheRead: 0.1, Output: 1},
	}, {
		name: "spaces and a dollar sign", in: " input = $2 , output=4", model: "gpt-5",
		want: Rates{Input: 2, CacheWrite: 1.25, CacheWrite1h: 1.25, CacheRead: 0.125, Output: 4},
	},
		{name: "no equals", in: "gpt-5", err: "want NAME=PRICE"},
		{name: "unknown name", in: "inputs=3", err: "NAME one of"},
		{name: "negative", in: "input=-1", err: "not a price"},
		{name: "not a number", in: "input=NaN", err: "not a price"},
		{name: "twice", in: "input=1,input=2", err: "twice"},
		{name: "empty model", in: ":input=1", err: "no model"},
		{name: "a new model without output", in: "my-model:input=1", err: "at least its input and output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := ParseOverride(c.in)
			var tb *Table
			if err == nil {
				tb, err = Default().With(o)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, ok := tb.Lookup(c.model)
			if !ok || p.Rates != c.want {
				t.Errorf("%s: %+v (%v), want %+v", c.model, p.Rates, ok, c.want)
			}
			if p.Long != nil {
				t.Errorf("an override keeps a long prompt's rates")
			}
		})
	}
}

// TestOverridesStack: a later override of every model changes only what
// it names.
func TestOverridesStack(t *testing.T) {
	tb := Default()
	for _, s := range []string{"input=1,output=2", "output=3"} {
		o, err := ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		if tb, err = tb.With(o); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := tb.Lookup("claude-haiku-4-5")
	if p.Input != 1 || p.Output != 3 || p.CacheRead != 0.1 {
		t.Errorf("%+v", p.Rates)
	}
}

// TestFile: a price file in either layout adds models and replaces rows.
func TestFile(t *testing.T) {
	cases := []struct {
		name, in, model string
		want            Rates
		long            bool
		err             string
	}{{
		name: "tsv", model: "mine",
		in:   "# my prices\nmine\t1\t-\t-\t0.1\t4\nmine >1000\t2\t-\t-\t0.2\t8\n",
		want: Rates{Input: 1, CacheWrite: 1, CacheWrite1h: 1, CacheRead: 0.1, Output: 4}, long: true,
	}, {
		name: "tsv alias", model: "m2",
		in:   "m2 =gpt-4o\n",
		want: Rates{Input: 2.5, CacheWrite: 2.5, CacheWrite1h: 2.5, CacheRead: 1.25, Output: 10},
	}, {
		name: "json", model: "Mine-20250101",
		in:   `{"mine": {"input": 3, "cache_write": 3.75, "cache_read": 0.3, "output": 15}}`,
		want: Rates{Input: 3, CacheWrite: 3.75, CacheWrite1h: 3.75, CacheRead: 0.3, Output: 15},
	}, {
		name: "json replaces", model: "gpt-5",
		in:   `{"gpt-5": {"input": 1, "output": 2, "long_over": 10, "long": {"input": 2, "output": 4}}}`,
		want: Rates{Input: 1, CacheWrite: 1, CacheWrite1h: 1, CacheRead: 1, Output: 2}, long: true,
	},
		{name: "tsv short row", in: "mine 1 2 3\n", err: "3 rates, want 5"},
		{name: "tsv bad price", in: "mine 1 x 1 1 1\n", err: "cache_write"},
		{name: "tsv long without row", in: "mine >5 1 1 1 1 1\n", err: "without the model's own rates"},
		{name: "tsv bad size", in: "mine >x 1 1 1 1 1\n", err: "not a prompt size"},
		{name: "tsv alias of nothing", in: "a =b\n", err: "does not hold"},
		{name: "json unknown field", in: `{"m": {"input": 1, "output": 1, "inptu": 2}}`, err: "unknown field"},
		{name: "json no output", in: `{"m": {"input": 1}}`, err: "input and output"},
		{name: "json negative", in: `{"m": {"input": 1, "output": -1}}`, err: "not a price"},
		{name: "json long alone", in: `{"m": {"input": 1, "output": 1, "long_over": 5}}`, err: "go together"},
		{name: "json two values", in: `{} {}`, err: "more than one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb, err := Default().WithFile([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, ok := tb.Lookup(c.model)
			if !ok || p.Rates != c.want || (p.Long != nil) != c.long {
				t.Errorf("%s: %+v long %v (%v), want %+v long %v", c.model, p.Rates, p.Long, ok, c.want, c.long)
			}
		})
	}
}
