package summarize

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// A case of testdata/kinds is a txtar archive: its comment says where the
// excerpt comes from; call.json holds the tool's name, its input, the
// session's cwd and is_error; output is the tool's output as the
// transcript holds it (txtar ends it with a newline).
type kindCase struct {
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Cwd     string          `json:"cwd"`
	IsError bool            `json:"is_error"`
}

// loadCase parses a case into a one-call transcript, so that the call has
// the kind, arguments and exit code the parser gives it.
func loadCase(t *testing.T, path string) (*transcript.Transcript, string) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	var c kindCase
	if err := json.Unmarshal([]byte(files["call.json"]), &c); err != nil {
		t.Fatalf("call.json: %v", err)
	}
	return oneCall(t, c, files["output"]), c.Cwd
}

// oneCall is an Anthropic transcript of one call and its result.
func oneCall(t *testing.T, c kindCase, output string) *transcript.Transcript {
	t.Helper()
	msgs := []any{
		map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": c.Name, "input": c.Input}}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": output, "is_error": c.IsError}}},
	}
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.Parse(data, transcript.Options{Format: transcript.Anthropic})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestKinds pins the summary of real outputs of every kind
// (testdata/kinds/*.txtar → *.golden; go test -update rewrites them).
func TestKinds(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "kinds", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatal("no cases in testdata/kinds")
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			tr, cwd := loadCase(t, path)
			call := tr.Calls[0]
			text := call.Result.Text()
			got, ok := Rules{Cwd: cwd}.Summarize(call, text)
			out := "(kept whole)\n"
			if ok {
				checkSummary(t, call, cwd, got)
				out = got + "\n"
			}
			testutil.Golden(t, filepath.Join("testdata", "kinds", name+".golden"), []byte(out))
		})
	}
}

// checkSummary checks what every summary keeps: the marker line naming the
// tool and what the call was about, and how the call ended.
func checkSummary(t *testing.T, c *transcript.Call, cwd, summary string) {
	t.Helper()
	tool, line, ok := marker.Parse(summary)
	if !ok || tool != "summarize" {
		t.Fatalf("summary does not start with a [ctx-summarize] marker: %q", summary)
	}
	if len(marker.Refs(summary)) > 0 {
		t.Errorf("marker line reads as a pointer: %q", line)
	}
	if !strings.HasPrefix(line, c.Name) {
		t.Errorf("marker line does not start with the tool's name %q: %q", c.Name, line)
	}
	head := line
	if line == c.Name+":" {
		// A target that would read as a pointer is on the next line.
		head = strings.SplitN(summary, "\n", 3)[1]
	}
	o := output{call: c, cwd: cwd}
	if target := o.target(); !strings.Contains(head, target) {
		t.Errorf("marker line does not name the target %q: %q", target, head)
	}
	if s := o.status(); !strings.Contains(head, s) {
		t.Errorf("marker line does not say how the call ended (%q): %q", s, head)
	}
}
