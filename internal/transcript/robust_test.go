package transcript

import (
	"bytes"
	"strings"
	"testing"
)

// TestByteOrderMark: a UTF-8 byte order mark before a JSON document or a
// JSONL file is accepted, and kept when a result is rewritten.
func TestByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	msgs := `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"a.go"}]`
	for name, in := range map[string]string{
		"array":         bom + msgs,
		"object":        bom + `{"model":"m","messages":` + msgs + `}`,
		"pretty object": bom + "{\n  \"model\": \"m\",\n  \"messages\": " + msgs + "\n}\n",
		"jsonl":         bom + `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}` + "\n" + `{"role":"tool","tool_call_id":"c1","content":"a.go"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := Parse([]byte(in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != OpenAI || len(tr.Results) != 1 || tr.Results[0].Call == nil {
				t.Fatalf("parsed as %s with %d results", tr.Format, len(tr.Results))
			}
			if !bytes.Equal(tr.Bytes(), []byte(in)) {
				t.Fatal("not written back byte for byte")
			}
			tr.SetText(tr.Results[0], "b.go")
			out := string(tr.Bytes())
			if out != strings.Replace(in, `"a.go"`, `"b.go"`, 1) {
				t.Fatalf("rewritten as %q", out)
			}
			checkRewrite(t, tr, []byte(out))
		})
	}
}

// TestDuplicateKeys: of repeated keys the last wins, as it does for the
// agents that read the file (Go's and Python's decoders), in every format:
// the text read, the text rewritten, the arguments classified.
func TestDuplicateKeys(t *testing.T) {
	cases := []struct {
		name, in   string
		format     Format
		text, path string
	}{
		{"openai", `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"first.go\",\"path\":\"last.go\"}"}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"first text","content":"last text"}]`, OpenAI, "last text", "last.go"},
		{"anthropic", `[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"first.go","file_path":"last.go"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"first text","content":"last text"}]}]`, Anthropic, "last text", "last.go"},
		{"claude-code", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"first.go","file_path":"last.go"}}]}}` + "\n" +
			`{"type":"user","message":{"role":"user","content":"first"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"last text"}]}}` + "\n", ClaudeCode, "last text", "last.go"},
		{"codex", `{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"first.go\"],\"command\":[\"cat\",\"last.go\"]}","call_id":"c1"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"first text","output":"last text"}}` + "\n", Codex, "last text", "last.go"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Parse([]byte(c.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != c.format || len(tr.Results) != 1 || tr.Results[0].Call == nil {
				t.Fatalf("parsed as %s with %d results", tr.Format, len(tr.Results))
			}
			if got := tr.Results[0].Text(); got != c.text {
				t.Errorf("text %q, want %q", got, c.text)
			}
			if got := tr.Calls[0].Args.Path; got != c.path {
				t.Errorf("path %q, want %q", got, c.path)
			}
			tr.SetText(tr.Results[0], "new text")
			out := string(tr.Bytes())
			if !strings.Contains(out, `"new text"`) || strings.Contains(out, c.text) {
				t.Errorf("the rewrite did not replace the last value: %s", out)
			}
			checkRewrite(t, tr, []byte(out))
		})
	}
}

// TestDeepArguments: arguments nested past the limit inside a JSON string
// are not JSON to classify by, not a reason to fail: the call keeps its
// name's kind, and nothing recurses on them.
func TestDeepArguments(t *testing.T) {
	deep := strings.Repeat("[", 10_000_000)
	in := `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"` + deep + `"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"x"}]`
	tr, err := Parse([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := tr.Calls[0]; c.Kind != "read" || c.Input != deep {
		t.Fatalf("call %s of kind %s with %d bytes of input", c.Name, c.Kind, len(c.Input))
	}
}
