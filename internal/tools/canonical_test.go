package tools

import "testing"

func TestCanonical(t *testing.T) {
	cases := []struct {
		input  string
		isText bool
		want   string
	}{
		{`{"b":1,"a":"x"}`, false, `{"a":"x","b":1}`},
		{"{ \"a\" : [1, 2.50],\n \"b\":{\"d\":null,\"c\":true} }", false, `{"a":[1,2.50],"b":{"c":true,"d":null}}`},
		{`{"command":"  go   test\t./...  "}`, false, `{"command":"go test ./..."}`},
		{`{"cmd":"ls  -la","workdir":"/p"}`, false, `{"cmd":"ls -la","workdir":"/p"}`},
		{`{"command":["bash","-lc","cat   a.go"]}`, false, `{"command":["bash","-lc","cat a.go"]}`},
		{`{"pattern":"a  b"}`, false, `{"pattern":"a  b"}`}, // only commands are respaced
		{`{"command":"echo '<a> & b'"}`, false, `{"command":"echo '<a> & b'"}`},
		{`{"bad json`, false, `{"bad json`},
		{`{"a":1} {"b":2}`, false, `{"a":1} {"b":2}`},
		{"  *** Begin Patch\n*** End Patch\n", true, "*** Begin Patch\n*** End Patch"},
		{`"just a string"`, false, `"just a string"`},
	}
	for _, c := range cases {
		if got := Canonical(c.input, c.isText); got != c.want {
			t.Errorf("Canonical(%q, %v) = %q, want %q", c.input, c.isText, got, c.want)
		}
	}
	// Key order and spacing do not matter; values do.
	a := Canonical(`{"command":"git status","description":"check"}`, false)
	b := Canonical(`{"description": "check",  "command": "git   status"}`, false)
	if a != b {
		t.Errorf("same call, two spellings: %q != %q", a, b)
	}
	if c := Canonical(`{"command":"git diff","description":"check"}`, false); c == a {
		t.Errorf("different commands canonicalize alike: %q", c)
	}
}
