package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// fuzzParse is the property every parser keeps on any input: no panic; bad
// input is a one-line *SyntaxError; good input is written back byte for byte
// and can have every result rewritten and read back.
func fuzzParse(f *testing.F, format Format, seeds ...string) {
	for _, name := range seeds {
		data, err := os.ReadFile(filepath.Join(testutil.Root(f), "testdata", "formats", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"role":"tool","tool_call_id":"x","content":{"a":1}}]`))
	f.Add([]byte("{\"a\":\n"))
	// The cases of bad input that once misled or crashed: nesting past the
	// limit, a byte order mark before a document, repeated keys, no input,
	// a hook payload where a transcript was expected.
	f.Add([]byte(`{"messages":[{"role":"user","content":` + strings.Repeat("[", 10001) + `]}`))
	f.Add([]byte("\ufeff" + `{"messages":[{"role":"tool","tool_call_id":"x","content":"a"}]}`))
	f.Add([]byte(`[{"role":"tool","tool_call_id":"x","content":"a","content":[{"type":"text","text":"b"}]}]`))
	f.Add([]byte(" \n"))
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t.jsonl","hook_event_name":"Stop"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data, Options{Format: format})
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("bad input gave %T %q, want a one-line *SyntaxError", err, err)
			}
			return
		}
		if !bytes.Equal(tr.Bytes(), data) {
			t.Fatal("unchanged transcript not written back byte for byte")
		}
		for _, r := range tr.Results {
			tr.SetText(r, "x\n\"y\"")
			for i := range r.Mirrors() {
				tr.SetMirror(r, i, "m")
			}
		}
		checkRewrite(t, tr, tr.Bytes())
	})
}

func FuzzParseAuto(f *testing.F) {
	fuzzParse(f, "", "openai-array.json", "anthropic-array.json", "claude-code.jsonl", "codex.jsonl", "swe-agent.traj")
}

func FuzzParseOpenAI(f *testing.F) {
	fuzzParse(f, OpenAI, "openai-array.json", "openai.jsonl", "openai-msa.json")
}

func FuzzParseAnthropic(f *testing.F) {
	fuzzParse(f, Anthropic, "anthropic-array.json", "anthropic.jsonl", "anthropic-request.json")
}

func FuzzParseClaudeCode(f *testing.F) {
	fuzzParse(f, ClaudeCode, "claude-code.jsonl")
}

func FuzzParseCodex(f *testing.F) {
	fuzzParse(f, Codex, "codex.jsonl", "codex-items.json")
}

func FuzzParseSWEAgent(f *testing.F) {
	f.Add([]byte(`{"history":[{"role":"assistant","content":"x","action":"edit 1:1\nx\nend_of_edit\n"},{"role":"user","content":"[File: /a (1 lines total)]\n1:x\n(Open file: /a)"}],"trajectory":[{"action":"edit 1:1\nx\nend_of_edit\n","observation":"1:x"}]}`))
	fuzzParse(f, SWEAgent, "swe-agent.traj", "swe-agent-fc.traj")
}
