package invariant

import (
	"strings"
	"testing"
)

const in = `[
{"role":"user","content":"go"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}},{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"},
{"role":"tool","tool_call_id":"c2","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"}
]`

// TestCompareCatchesBreakage feeds Compare outputs that break each
// invariant: each must be caught.
func TestCompareCatchesBreakage(t *testing.T) {
	cases := map[string]string{
		"not json":        `[{"role":"user"`,
		"dropped message": strings.Replace(in, `{"role":"user","content":"go"},`, "", 1),
		"lost result": strings.Replace(in, `,
{"role":"tool","tool_call_id":"c2","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"}`, "", 1),
		"more tokens": strings.Replace(in, `"content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"}
]`, `"content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\nfunc E() {}\n"}
]`, 1),
		"dangling pointer":  strings.Replace(in, `"tool_call_id":"c2","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"`, `"tool_call_id":"c2","content":"[ctx-dedupe] see call c9"`, 1),
		"pointer down":      strings.Replace(in, `"tool_call_id":"c1","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"`, `"tool_call_id":"c1","content":"[ctx-dedupe] see call c2"`, 1),
		"reformatted":       strings.ReplaceAll(in, "\n", "\n "),
		"changed arguments": strings.Replace(in, `{\"path\":\"a.go\"}"}},{"id":"c2"`, `{\"path\":\"b.go\"}"}},{"id":"c2"`, 1),
	}
	for name, out := range cases {
		if err := Compare([]byte(in), []byte(out)); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
	good := strings.Replace(in, `"tool_call_id":"c2","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"`, `"tool_call_id":"c2","content":"[ctx-dedupe] see call c1"`, 1)
	if err := Compare([]byte(in), []byte(good)); err != nil {
		t.Errorf("a good pointer: %v", err)
	}
	if err := Compare([]byte(in), []byte(in)); err != nil {
		t.Errorf("the identity: %v", err)
	}
}
