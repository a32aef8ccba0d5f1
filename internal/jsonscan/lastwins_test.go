package jsonscan

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

func TestLastWins(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"b":2}`, `{"a":1,"b":2}`},
		{`{"a":1, "b":2, "a":3}`, `{"b":2, "a":3}`},
		{`{"a":{"x":1,"x":2},"a":{"y":[{"z":1,"z":"}"}]}}`, `{"a":{"y":[{"z":"}"}]}}`},
		{`[{"k":1,"k":2},{"k":3}]`, `[{"k":2},{"k":3}]`},
		{`{"a":1,"\u0061":2}`, `{"\u0061":2}`},
		{`{"a":1,"a":2`, `{"a":1,"a":2`}, // not JSON: left alone
		{`"{\"a\":1,\"a\":2}"`, `"{\"a\":1,\"a\":2}"`},
	} {
		if got := LastWins(c.in); got != c.want {
			t.Errorf("LastWins(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// gjson, which takes the first, now agrees with encoding/json.
	in := `{"file_path":"old.go","old_string":"x","file_path":"new.go"}`
	if got := gjson.Get(LastWins(in), "file_path").Str; got != "new.go" {
		t.Errorf("gjson reads %q after LastWins, want new.go", got)
	}
}

// FuzzLastWins checks that the result decodes, with encoding/json, to what
// the input decodes to, repeats no key, and is its own LastWins.
func FuzzLastWins(f *testing.F) {
	f.Add(`{"a":1,"b":[{"c":1,"c":2}],"a":{"a":0,"a":1}}`)
	f.Add(`{"a" : 1 , "a" : 2 }`)
	f.Fuzz(func(t *testing.T, s string) {
		out := LastWins(s)
		if !Valid(s) {
			if out != s {
				t.Fatalf("LastWins changed invalid JSON %q", s)
			}
			return
		}
		var a, b any
		if json.Unmarshal([]byte(s), &a) != nil || json.Unmarshal([]byte(out), &b) != nil {
			t.Fatalf("LastWins(%q) = %q does not decode", s, out)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("LastWins(%q) = %q decodes to %v, the input to %v", s, out, b, a)
		}
		if again := LastWins(out); again != out {
			t.Fatalf("LastWins(%q) = %q, and again %q", s, out, again)
		}
	})
}
