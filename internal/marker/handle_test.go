package marker_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// citedCuts returns a cut that cites a handle, and one that cites none.
func citedCuts() (cut, uncited string) {
	long := strings.Repeat("ok  \texample.com/pkg\t0.01s\n", 40)
	r := truncate.DefaultRules()
	r.Max, r.Head, r.Tail = 200, 50, 50
	uncited, _ = truncate.Cut(long, r)
	r.Handle = "toolu_01CutXXXXXXXXXXXXXXXX"
	cut, _ = truncate.Cut(long, r)
	return cut, uncited
}

func TestHandle(t *testing.T) {
	long := "toolu_01MGqJNAucDoKPyZKrzvWLmx"
	cases := []struct {
		id      string
		ownID   bool // the handle is the call id
		comment string
	}{
		{long, true, "Claude Code"},
		{"call_00_UhSb7Eax422cyeQOiq3FE0mq", true, "mini-swe-agent"},
		{"6e9a2f1c-8d1b-4e0a-9c61-2b7d3f4a1e90", true, "a UUID"},
		{"call_1", false, "too short to be unique"},
		{"", false, "no id"},
		{"call with spaces in it ok", false, "not a word"},
		{"toolu_01MGqJNAucDoKPyZKrzvWLm\"", false, "a quote"},
	}
	for _, c := range cases {
		tr := transcripttest.Parse(t, []byte(`[{"role":"user","content":"go"},{"role":"tool","tool_call_id":`+quoteJSON(c.id)+`,"content":"x"}]`))
		h := marker.Handle(tr, tr.Results[0])
		switch {
		case c.ownID && h != c.id:
			t.Errorf("%s: Handle %q, want the call id", c.comment, h)
		case !c.ownID && (!strings.HasPrefix(h, marker.HandlePrefix) || len(h) != len(marker.HandlePrefix)+12):
			t.Errorf("%s: Handle %q, want ctx_ and 12 hex digits", c.comment, h)
		}
	}
}

func quoteJSON(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHandleStable: a derived handle is a function of the session, the
// call id, the result's position and its output: the archive finds it
// from the output a filter replaced (HandleOf), and it survives the
// conversation growing; it differs between results, between
// conversations, and between two conversations that open alike and number
// their calls alike where their outputs differ.
func TestHandleStable(t *testing.T) {
	conv := func(task string, extra string) *transcript.Transcript {
		return transcripttest.Parse(t, []byte(`[{"role":"user","content":"`+task+`"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"a\nb"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls -l\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"a 1\nb 2"}`+extra+`]`))
	}
	base := conv("fix the bug", "")
	h0, h1 := marker.Handle(base, base.Results[0]), marker.Handle(base, base.Results[1])
	if h0 == h1 {
		t.Errorf("two results with the same short call id share handle %s", h0)
	}
	filtered := conv("fix the bug", "")
	filtered.SetText(filtered.Results[0], "[ctx-summarize] bash `ls`: 2 lines.")
	refiltered := transcripttest.Parse(t, filtered.Bytes())
	if got := marker.HandleOf(marker.SessionKey(refiltered), refiltered.Results[0], base.Results[0].Text()); got != h0 {
		t.Errorf("after a filter, from the output it replaced: handle %s, want %s", got, h0)
	}
	grown := conv("fix the bug", `,{"role":"user","content":"and now?"}`)
	if got := marker.Handle(grown, grown.Results[1]); got != h1 {
		t.Errorf("a longer conversation: handle %s, want %s", got, h1)
	}
	other := conv("another task", "")
	if got := marker.Handle(other, other.Results[0]); got == h0 {
		t.Errorf("another conversation has the same handle %s", got)
	}
	twin := transcripttest.Parse(t, []byte(strings.Replace(string(base.Bytes()), `"a 1\nb 2"`, `"a 1\nb 3"`, 1)))
	if marker.SessionKey(twin) != marker.SessionKey(base) {
		t.Fatal("the twin conversation opens otherwise")
	}
	if got := marker.Handle(twin, twin.Results[1]); got == h1 {
		t.Errorf("a conversation that opens alike, with another output, has the same handle %s", got)
	}
	if got := marker.Handle(twin, twin.Results[0]); got != h0 {
		t.Errorf("a conversation that opens alike, with the same output: handle %s, want %s", got, h0)
	}
}

func TestSessionKey(t *testing.T) {
	cc := transcripttest.Parse(t, []byte(`{"type":"user","sessionId":"5f0c2a9e","message":{"role":"user","content":"hi"}}`+"\n"))
	if got := marker.SessionKey(cc); got != "5f0c2a9e" {
		t.Errorf("Claude Code: %q, want its sessionId", got)
	}
	a := transcripttest.Parse(t, []byte(`[{"role":"user","content":"hi"}]`))
	b := transcripttest.Parse(t, []byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`))
	c := transcripttest.Parse(t, []byte(`[{"role":"user","content":"bye"}]`))
	if ka := marker.SessionKey(a); !strings.HasPrefix(ka, "anon-") || len(ka) != len("anon-")+16 {
		t.Errorf("no id: %q, want anon- and 16 hex digits", ka)
	}
	if marker.SessionKey(a) == marker.SessionKey(c) {
		t.Error("two conversations share a key")
	}
	if marker.SessionKey(a) != marker.SessionKey(transcripttest.Parse(t, []byte(`[ {"role": "user", "content": [{"type": "text", "text": "hi"}]} ]`))) {
		t.Error("the same opening in another layout gives another key")
	}
	_ = b // without a tool call the whole conversation is its opening
	if marker.SessionKey(a) == marker.SessionKey(b) {
		t.Error("conversations without tool calls that differ share a key")
	}
}

func TestCitation(t *testing.T) {
	cut, uncited := citedCuts()
	summary := marker.Cite(marker.Line("summarize", "Read a.go: 40 lines (400 chars)."), "toolu_01SumXXXXXXXXXXXXXXXX") + "\nline 1"
	tr := transcripttest.Parse(t, []byte(`[
{"role":"assistant","content":null,"tool_calls":[
 {"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}},
 {"id":"call_2","type":"function","function":{"name":"bash","arguments":"{}"}},
 {"id":"call_3","type":"function","function":{"name":"bash","arguments":"{}"}},
 {"id":"call_4","type":"function","function":{"name":"bash","arguments":"{}"}},
 {"id":"call_5","type":"function","function":{"name":"bash","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"an output"},
{"role":"tool","tool_call_id":"call_2","content":`+jsonString(summary)+`},
{"role":"tool","tool_call_id":"call_3","content":`+jsonString(cut)+`},
{"role":"tool","tool_call_id":"call_4","content":"[ctx-dedupe] Repeated bash call: identical to the result of call call_1 above; not repeated here."},
{"role":"tool","tool_call_id":"call_5","content":`+jsonString(uncited)+`}]`))
	// A marker is never replaced: it cites nothing for another.
	want := []string{marker.Handle(tr, tr.Results[0]), "", "toolu_01CutXXXXXXXXXXXXXXXX", "", ""}
	if !strings.HasPrefix(want[0], marker.HandlePrefix) {
		t.Fatalf("the short call id has handle %q", want[0])
	}
	for i, r := range tr.Results {
		if got := marker.Citation(tr, r); got != want[i] {
			t.Errorf("result %d: Citation = %q, want %q", i, got, want[i])
		}
	}
}
