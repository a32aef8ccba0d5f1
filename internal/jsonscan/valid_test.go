package jsonscan

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

func TestCheck(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	for _, c := range []struct {
		in   string
		off  int // -1: valid
		deep bool
	}{
		{`{}`, -1, false},
		{` [1, -0.5e+3, "a\"\\\/\b\f\n\r\t\u00e9", true, false, null, {"k": {}}] `, -1, false},
		{"\"\xff\xfe invalid UTF-8 is accepted, as encoding/json does\"", -1, false},
		{deep, -1, false},
		{"[" + deep + "]", MaxDepth, true},
		{`{"a":[` + deep + `]}`, MaxDepth + 4, true}, // the object and the array count
		{``, 0, false},
		{`  `, 2, false},
		{`{"a":1,}`, 7, false},
		{`{"a" 1}`, 5, false},
		{`{1:2}`, 1, false},
		{`[1,]`, 3, false},
		{`[1 2]`, 3, false},
		{`[1]]`, 3, false},
		{`{"a":1]`, 6, false},
		{`"tab	inside"`, 4, false},
		{`"\x"`, 2, false},
		{`"\u12g4"`, 5, false},
		{`"open`, 5, false},
		{`01`, 1, false},
		{`-`, 1, false},
		{`1.`, 2, false},
		{`1e`, 2, false},
		{`tru`, 3, false},
		{`nul1`, 3, false},
		{"\ufeff{}", 0, false}, // a byte order mark is the caller's to skip
	} {
		err := Check(c.in)
		if got := Valid(c.in); got != json.Valid([]byte(c.in)) {
			t.Errorf("Valid(%.40q) = %v, encoding/json says %v", c.in, got, !got)
		}
		switch {
		case c.off < 0 && err != nil:
			t.Errorf("Check(%.40q) = %v, want valid", c.in, err)
		case c.off >= 0 && err == nil:
			t.Errorf("Check(%.40q) = valid, want an error at %d", c.in, c.off)
		case c.off >= 0 && (err.Off != c.off || err.Deep != c.deep):
			t.Errorf("Check(%.40q) = %+v, want offset %d deep %v", c.in, *err, c.off, c.deep)
		}
	}
}

// TestCheckDeepBounded checks that ten million opening brackets fail at
// the limit, in memory that does not grow with them.
func TestCheckDeepBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("[", 10_000_000),
		`{"messages":[{"role":"user","content":` + strings.Repeat(`{"a":`, 2_000_000),
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := Check(in)
		runtime.ReadMemStats(&after)
		if err == nil || !err.Deep {
			t.Fatalf("Check = %v, want a nesting error", err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
			t.Errorf("checking %d bytes allocated %d bytes", len(in), grown)
		}
	}
}

// FuzzCheck holds the validator to encoding/json's.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",{"b":null}],"c":"\"}"}`, `[-0.0e-0,"\u0000"]`, `{"a":1,}`, `"\ud800"`, `[[[[]]]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check(s)
		if want := json.Valid([]byte(s)); (err == nil) != want {
			t.Fatalf("Check(%q) = %v, encoding/json.Valid = %v", s, err, want)
		}
		if err != nil && (err.Off < 0 || err.Off > len(s)) {
			t.Fatalf("Check(%q): offset %d out of the input", s, err.Off)
		}
	})
}

// BenchmarkCheck validates every corpus file ($CTX_BENCH_FILE to measure
// another), line by line for JSONL as the parser does.
func BenchmarkCheck(b *testing.B) {
	inputs := testutil.BenchInputs(b)
	var docs []string
	for _, in := range inputs {
		if s := strings.TrimSpace(string(in)); Valid(s) {
			docs = append(docs, s)
			continue
		}
		docs = append(docs, strings.Split(string(in), "\n")...)
	}
	for b.Loop() {
		for _, d := range docs {
			Check(d)
		}
	}
}

// FuzzCheckAfter: checking a document from the end of an element of its
// top-level object's array, after a start that was valid, accepts what
// checking the whole accepts and stops at the same place: the start of a
// valid document with any other end.
func FuzzCheckAfter(f *testing.F) {
	f.Add(`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"tool","content":"b\"c"}],"system":"s"}`, `,{"x":[1,2]}],"k":null}`)
	f.Add(`{"messages":[1, "two" ,[3]] }`, `]}`)
	f.Add(`{"messages":[{}]}`, `,{"a":tru}]}`)
	f.Fuzz(func(t *testing.T, doc, tail string) {
		if Check(doc) != nil {
			return
		}
		msgs := Parse(doc, 0).Get("messages")
		if !msgs.IsArray() || msgs.Off == 0 {
			return
		}
		var ends []int
		msgs.Each(func(v Value) bool {
			_, end := v.Span()
			ends = append(ends, end)
			return true
		})
		for _, end := range ends {
			for _, s := range []string{doc, doc[:end] + tail} {
				whole, after := Check(s), CheckAfter(s, end, "{[")
				if (whole == nil) != (after == nil) || whole != nil && *whole != *after {
					t.Fatalf("%q from %d: Check %v, CheckAfter %v", s, end, whole, after)
				}
			}
			var rest []string
			msgs.EachAfter(end, func(v Value) bool { rest = append(rest, v.Raw); return true })
			var want []string
			msgs.Each(func(v Value) bool {
				if _, e := v.Span(); e > end {
					want = append(want, v.Raw)
				}
				return true
			})
			if strings.Join(rest, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("EachAfter(%d): %q, want %q", end, rest, want)
			}
		}
	})
}
