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

// traj is a SWE-agent trajectory: calls without ids (step-1, step-2), each
// paired with the message after it, and a trajectory of copies.
const traj = `{"trajectory":[{"action":"open a.py\n","observation":"[File: /r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n"},{"action":"open a.py\n","observation":"[File: /r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n"}],
"history":[
{"role":"user","content":"go"},
{"role":"assistant","content":"look","action":"open a.py\n"},
{"role":"user","content":"[File: /r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n(Open file: /r/a.py)"},
{"role":"assistant","content":"again","action":"open a.py\n"},
{"role":"user","content":"[File: /r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n(Open file: /r/a.py)"}
]}`

// TestCompareCatchesBreakageSWEAgent: in a SWE-agent trajectory a call and
// its result are paired by position; moving, dropping or merging messages
// breaks the pairs and must be caught, as must touching the trajectory
// without a result changing.
func TestCompareCatchesBreakageSWEAgent(t *testing.T) {
	obs := `{"role":"user","content":"[File: /r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n(Open file: /r/a.py)"}`
	cases := map[string]string{
		"dropped observation": strings.Replace(traj, ",\n"+obs+"\n]", "\n]", 1),
		"observation moved":   strings.Replace(strings.Replace(traj, obs+",\n", "", 1), "\n]}", ",\n"+obs+"\n]}", 1),
		"action changed":      strings.Replace(traj, `"content":"again","action":"open a.py\n"`, `"content":"again","action":"open b.py\n"`, 1),
		"trajectory touched":  strings.Replace(traj, `"observation":"[File: /r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n"}]`, `"observation":"gone"}]`, 1),
		"pointer down":        strings.Replace(traj, obs+",\n", `{"role":"user","content":"[ctx-dedupe] see call step-2"},`+"\n", 1),
	}
	for name, out := range cases {
		if out == traj {
			t.Fatalf("%s: the case changes nothing", name)
		}
		if err := Compare([]byte(traj), []byte(out)); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
	good := strings.Replace(traj, ",\n"+obs+"\n]", ",\n"+`{"role":"user","content":"[ctx-dedupe] see call step-1"}`+"\n]", 1)
	if err := Compare([]byte(traj), []byte(good)); err != nil {
		t.Errorf("a good pointer: %v", err)
	}
}

// TestCites: a replaced result that cites nothing, or another handle, is
// caught.
func TestCites(t *testing.T) {
	replaced := func(text string) string {
		return strings.Replace(in, `"tool_call_id":"c2","content":"package a\nfunc A() {}\nfunc B() {}\nfunc C() {}\nfunc D() {}\n"`, `"tool_call_id":"c2","content":"`+text+`"`, 1)
	}
	good := replaced("[ctx-dedupe] see call c1; full output: ctx-recall ctx_test1 (or memory_query id=ctx_test1).")
	if err := Cites([]byte(in), []byte(good), Handles); err != nil {
		t.Errorf("a good citation: %v", err)
	}
	for _, bad := range []string{replaced("[ctx-dedupe] see call c1."), replaced("[ctx-dedupe] see call c1; full output: ctx-recall ctx_test0 (or memory_query id=ctx_test0).")} {
		if err := Cites([]byte(in), []byte(bad), Handles); err == nil {
			t.Errorf("not caught: %s", bad)
		}
	}
}
