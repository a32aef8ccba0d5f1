package count

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

func counter(t *testing.T) tokens.Counter {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGolden pins the text and JSON reports of every fixture.
func TestGolden(t *testing.T) {
	ctr := counter(t)
	for _, path := range testutil.Fixtures(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			r := Count(transcripttest.Load(t, path), ctr, 5)
			r.File = name
			s := Summary{Version: SchemaVersion, Encoding: ctr.Name(), Files: []Report{r}, Total: r, Budget: NewBudget(1000, r.Tokens)}
			var text bytes.Buffer
			if err := s.WriteText(&text, TextOptions{Top: 5}); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", name+".txt"), text.Bytes())
			js, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", name+".json"), append(js, '\n'))
		})
	}
}

// TestSums checks that the report adds up, on every fixture and corpus file:
// roles sum to the total, tool output is the "tool" role and the sum of the
// result tokens, and a merge of one report is that report.
func TestSums(t *testing.T) {
	ctr := counter(t)
	files := testutil.FixturesAndCorpus(t)
	var reports []Report
	for _, path := range files {
		r := Count(transcripttest.Load(t, path), ctr, -1)
		reports = append(reports, r)
		roles, toolRole := 0, 0
		for _, x := range r.Roles {
			roles += x.Tokens
			if x.Role == "tool" {
				toolRole = x.Tokens
			}
		}
		if roles != r.Tokens {
			t.Errorf("%s: roles sum to %d, total is %d", path, roles, r.Tokens)
		}
		if toolRole != r.ToolOutputTokens {
			t.Errorf("%s: role tool has %d tokens, tool output is %d", path, toolRole, r.ToolOutputTokens)
		}
		largest := 0
		for _, x := range r.Largest {
			largest += x.Tokens
		}
		if largest != r.ToolOutputTokens || len(r.Largest) != r.ToolResults {
			t.Errorf("%s: %d results with %d tokens, want %d with %d", path, len(r.Largest), largest, r.ToolResults, r.ToolOutputTokens)
		}
		for _, f := range r.FilesRead {
			if f.RereadTokens > f.Tokens || f.Reads < 1 {
				t.Errorf("%s: file %s: %+v", path, f.Path, f)
			}
		}
		m := Merge([]Report{r}, -1)
		if m.Tokens != r.Tokens || m.ToolOutputTokens != r.ToolOutputTokens || len(m.Tools) != len(r.Tools) || len(m.FilesRead) != len(r.FilesRead) {
			t.Errorf("%s: a merge of one report differs from it", path)
		}
	}
	m := Merge(reports, 3)
	want := 0
	for _, r := range reports {
		want += r.Tokens
	}
	if m.Tokens != want || len(m.Largest) != 3 {
		t.Errorf("merge of %d reports: %d tokens and %d largest, want %d and 3", len(reports), m.Tokens, len(m.Largest), want)
	}
}

func TestRereads(t *testing.T) {
	// a.go read whole twice, then lines 1-10 once (which the whole reads
	// hold), then a failed read; b.go once.
	in := `[
{"role":"assistant","content":[
 {"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/w/a.go"}},
 {"type":"tool_use","id":"r2","name":"Read","input":{"file_path":"a.go"}},
 {"type":"tool_use","id":"r3","name":"Read","input":{"file_path":"/w/a.go","offset":1,"limit":10}},
 {"type":"tool_use","id":"r4","name":"Read","input":{"file_path":"/w/a.go"}},
 {"type":"tool_use","id":"r5","name":"Bash","input":{"command":"cat b.go"}}]},
{"role":"user","content":[
 {"type":"tool_result","tool_use_id":"r1","content":"one two three"},
 {"type":"tool_result","tool_use_id":"r2","content":"one two three"},
 {"type":"tool_result","tool_use_id":"r3","content":"one"},
 {"type":"tool_result","tool_use_id":"r4","content":"no such file","is_error":true},
 {"type":"tool_result","tool_use_id":"r5","content":"package b"}]}
]`
	tr := transcripttest.Parse(t, []byte(in))
	tr.Cwd = "/w"
	approx, _ := tokens.New(tokens.Approx)
	r := Count(tr, approx, -1)
	want := []FileRead{
		{Path: "a.go", Reads: 3, Tokens: 4 + 4 + 1, RereadTokens: 4 + 1},
		{Path: "b.go", Reads: 1, Tokens: 3},
	}
	if len(r.FilesRead) != len(want) {
		t.Fatalf("files read = %+v, want %+v", r.FilesRead, want)
	}
	for i := range want {
		if r.FilesRead[i] != want[i] {
			t.Errorf("files read[%d] = %+v, want %+v", i, r.FilesRead[i], want[i])
		}
	}
	if r.Errors != 1 {
		t.Errorf("errors = %d, want 1", r.Errors)
	}
}

// TestReportOutlivesInput: a report does not keep its transcript's bytes
// alive, whatever --top, so that a batch of files is not all in memory at
// once.
func TestReportOutlivesInput(t *testing.T) {
	ctr := counter(t)
	for _, path := range testutil.FixturesAndCorpus(t) {
		for _, top := range []int{0, 1, -1} {
			r, bytes := countFile(t, path, ctr, top)
			runtime.GC()
			if bytes.Value() != nil {
				t.Errorf("%s, top %d: the report keeps the transcript's bytes", path, top)
			}
			runtime.KeepAlive(r)
		}
	}
}

// countFile counts a file, and returns a weak pointer to its bytes.
func countFile(t *testing.T, path string, ctr tokens.Counter, top int) (Report, weak.Pointer[byte]) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Count(transcripttest.Parse(t, data), ctr, top), weak.Make(&data[0])
}
