package archive

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/stats"
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

// TestOriginals: the executions of replaced results carry the text they
// had; a replaced text that was not an original output is left out.
func TestOriginals(t *testing.T) {
	cut, _ := citedCuts()
	tr := transcripttest.Parse(t, []byte(`[
{"role":"assistant","content":null,"tool_calls":[
 {"id":"toolu_01AAAAAAAAAAAAAAAAAAAAAA","type":"function","function":{"name":"bash","arguments":"{\"command\":\"go test\"}"}},
 {"id":"toolu_01BBBBBBBBBBBBBBBBBBBBBB","type":"function","function":{"name":"bash","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"toolu_01AAAAAAAAAAAAAAAAAAAAAA","content":"[ctx-summarize] bash: ok."},
{"role":"tool","tool_call_id":"toolu_01BBBBBBBBBBBBBBBBBBBBBB","content":"[ctx-summarize] bash: ok."}]`))
	execs := Originals(tr, []stats.Replaced{{Result: tr.Results[0], Before: "the whole output\n"}, {Result: tr.Results[1], Before: cut}})
	if len(execs) != 1 {
		t.Fatalf("%d executions, want 1", len(execs))
	}
	e := execs[0]
	if e.Output != "the whole output\n" || e.Handle != "toolu_01AAAAAAAAAAAAAAAAAAAAAA" || e.Command != "go test" || e.Session != marker.SessionKey(tr) {
		t.Errorf("execution %+v", e)
	}
	if Originals(tr, nil) != nil {
		t.Error("executions without replaced results")
	}
}

// TestKeep: what Keep stores comes back by its handle; an execution the
// archive holds under the same session and handle with another output is
// refused, the same output is not.
func TestKeep(t *testing.T) {
	a := open(t)
	e := Execution{Session: "s1", Handle: "toolu_01KeepXXXXXXXXXXXXXXX", CallID: "toolu_01KeepXXXXXXXXXXXXXXX", Tool: "bash", Output: "first\n"}
	if err := a.Keep([]Execution{e}); err != nil {
		t.Fatal(err)
	}
	if err := a.Keep([]Execution{e}); err != nil {
		t.Errorf("the same execution again: %v", err)
	}
	rec, err := a.Get(e.Handle, "")
	if err != nil || *rec.Output != e.Output {
		t.Fatalf("recalled %v, %v", rec.Output, err)
	}
	other := e
	other.Output = "second\n"
	if err := a.Keep([]Execution{other}); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), e.Handle) {
		t.Errorf("another output under the same handle: %v, want ErrConflict naming it", err)
	}
	other.Session = "s2"
	if err := a.Keep([]Execution{other}); err != nil {
		t.Errorf("another session: %v", err)
	}
	// Two outputs under one handle in one run: the second is refused too.
	first, second := e, other
	first.Session, second.Session = "s3", "s3"
	if err := a.Keep([]Execution{first, second}); !errors.Is(err, ErrConflict) {
		t.Errorf("two outputs under one handle in one run: %v, want ErrConflict", err)
	}
}

// TestCopies: a copy of an output that a filter replaced is kept under the
// handle its marker cites, and only that handle gives it: the call id gives
// the result, and queries list the results alone.
func TestCopies(t *testing.T) {
	a := open(t)
	tr := transcripttest.Parse(t, []byte(`{"type":"assistant","sessionId":"s-copies","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01CopyXXXXXXXXXXXXXXXXX","name":"Read","input":{"file_path":"/p/a.go"}}]}}
{"type":"user","sessionId":"s-copies","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01CopyXXXXXXXXXXXXXXXXX","content":"     1\tpackage a\n"}]},"toolUseResult":{"type":"text","file":{"filePath":"/p/a.go","content":"package a\n"}}}
`))
	r := tr.Results[0]
	m := r.Mirrors()[0]
	handle := marker.Handles(marker.Citation).Mirror(tr, r, m)
	if handle != "toolu_01CopyXXXXXXXXXXXXXXXXX__toolUseResult_file_content" {
		t.Fatalf("the copy's handle is %q", handle)
	}
	execs := Originals(tr, []stats.Replaced{{Result: r, Before: r.Text()}, {Result: r, Before: m.Text, Mirror: m.Field, Handle: handle}})
	if err := a.Keep(execs); err != nil {
		t.Fatal(err)
	}
	if rec, err := a.Get(handle, ""); err != nil || *rec.Output != "package a\n" || rec.CallID != "" {
		t.Errorf("Get(the copy's handle): %+v, %v", rec, err)
	}
	if rec, err := a.Get(r.CallID, ""); err != nil || *rec.Output != r.Text() || rec.ID != r.CallID {
		t.Errorf("Get(the call id): %+v, %v", rec, err)
	}
	if p, err := a.Find(Query{}); err != nil || p.Total != 1 || p.Records[0].ID != r.CallID {
		t.Errorf("Find lists %+v (%v), want the result alone", p, err)
	}
	if p, err := a.Find(Query{Text: "package"}); err != nil || p.Total != 1 || p.Records[0].ID != r.CallID {
		t.Errorf("Find a word lists %+v (%v), want the result alone", p, err)
	}
	// A copy with the result's text is the result's: no copy of its own.
	if got := marker.Handles(marker.Citation).Mirror(tr, r, transcript.Mirror{Field: "toolUseResult.stdout", Text: r.Text()}); got != r.CallID {
		t.Errorf("a copy with the result's text has handle %q, want the result's", got)
	}
}
