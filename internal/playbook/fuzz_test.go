package playbook

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// FuzzParse: any bytes are a playbook or an error, never a panic; a
// playbook written back reads back the same.
func FuzzParse(f *testing.F) {
	p := New()
	p.Learn([]Observation{obs("r", "Run the tests", "a.jsonl", Helpful, "c1", "c2")}, DefaultSimilarity, epoch)
	f.Add(p.Marshal())
	big := New()
	big.Learn(manyObservations(3*MaxEvidence+5), DefaultSimilarity, epoch) // evidence dropped
	f.Add(big.Marshal())
	f.Add([]byte(`{"version":1,"next_id":2,"strategies":[{"id":"tes-00001","category":"testing","content":"x","helpful_count":1,"harmful_count":0,"neutral_count":0,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","evidence_dropped":"AAAA"}]}`))
	f.Add([]byte(`{"version":1,"next_id":1,"strategies":[]}`))
	f.Add([]byte(`{"version":1,"strategies":[null]}`))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(p.Marshal())
		if err != nil {
			t.Fatalf("a playbook written back does not read: %v", err)
		}
		if string(again.Marshal()) != string(p.Marshal()) {
			t.Fatal("a playbook written back reads back otherwise")
		}
	})
}

// FuzzParseReflection: any answer is a reflection or an error; a
// reflection cites only calls the transcript has.
func FuzzParseReflection(f *testing.F) {
	data := []byte(`[{"role":"user","content":"go"},
{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}},{"id":"b","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cat x\"}"}}]},
{"role":"tool","tool_call_id":"a","content":"x"},{"role":"tool","tool_call_id":"b","content":"y"}]`)
	tr, err := transcript.Parse(data, transcript.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"key_insight":"k","evidence":["a","b"],"confidence":0.8,"category":"shell"}`)
	f.Add("```json\n{\"key_insight\":\"k\",\"evidence\":[\"a\"]}\n```")
	f.Add(`{"key_insight":"k","evidence":"a"}`)
	f.Add(`}{`)
	f.Fuzz(func(t *testing.T, answer string) {
		ref, err := ParseReflection(answer, tr)
		if err != nil {
			return
		}
		if len(ref.Evidence) == 0 || slices.ContainsFunc(ref.Evidence, func(id string) bool { return id != "a" && id != "b" }) {
			t.Fatalf("evidence %q: want calls of the transcript", ref.Evidence)
		}
		if ref.Confidence < 0 || ref.Confidence > 1 || strings.TrimSpace(ref.KeyInsight) == "" {
			t.Fatalf("reflection %+v out of bounds", ref)
		}
	})
}

// FuzzHitLine: grep's lines read as a file and a line number, or not at
// all, never a panic or a negative number.
func FuzzHitLine(f *testing.F) {
	for _, s := range []string{"a.go:12:func x", "12:func x", "12-context", "C:\\x:3:y", "::", "a-b.go:7:z", "123456789012:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, n, ok := hitLine(line)
		if ok && (n < 0 || !strings.HasPrefix(line, name)) {
			t.Fatalf("hitLine(%q) = %q, %d", line, name, n)
		}
	})
}

// TestHitLine: the shapes of grep -n's lines.
func TestHitLine(t *testing.T) {
	cases := []struct {
		line, name string
		n          int
		ok         bool
	}{
		{"internal/a.go:12:func X() {", "internal/a.go", 12, true},
		{"12:func X() {", "", 12, true},
		{"14-\treturn nil", "", 14, true},
		{"my-file.py:3:x = 1", "my-file.py", 3, true},
		{"Binary file a.bin matches", "", 0, false},
		{"a.go:func", "", 0, false},
		{"", "", 0, false},
	}
	for _, c := range cases {
		name, n, ok := hitLine(c.line)
		if name != c.name || n != c.n || ok != c.ok {
			t.Errorf("hitLine(%q) = %q, %d, %v; want %q, %d, %v", c.line, name, n, ok, c.name, c.n, c.ok)
		}
	}
}
