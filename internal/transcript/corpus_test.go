package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestCorpus checks the model against every real transcript: read then
// written unchanged is byte-identical; the calls and results found are
// exactly those an independent reading of the file finds; every result can
// be rewritten in place and read back.
func TestCorpus(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Parse(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tr.Bytes(), data) {
				t.Fatal("read then written unchanged is not byte-identical")
			}
			wantCalls, wantResults := oracle(t, data, tr.Format)
			if got := callIDs(tr); !equal(got, wantCalls) {
				t.Errorf("calls: found %d %v\nthe file holds %d %v", len(got), got, len(wantCalls), wantCalls)
			}
			if got := resultIDs(tr); !equal(got, wantResults) {
				t.Errorf("results: found %d %v\nthe file holds %d %v", len(got), got, len(wantResults), wantResults)
			}
			for _, r := range tr.Results {
				tr.SetText(r, "[rewritten] "+r.CallID)
				for i := range r.Mirrors() {
					tr.SetMirror(r, i, "[rewritten mirror]")
				}
			}
			out := tr.Bytes()
			if !json.Valid(out) && tr.Layout != JSONL {
				t.Fatal("rewritten output is not valid JSON")
			}
			checkRewrite(t, tr, out)
		})
	}
}

func callIDs(tr *Transcript) []string {
	var ids []string
	for _, c := range tr.Calls {
		ids = append(ids, c.ID)
	}
	return ids
}

func resultIDs(tr *Transcript) []string {
	var ids []string
	for _, r := range tr.Results {
		ids = append(ids, r.CallID)
	}
	return ids
}

func equal(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

// oracle reads the tool call ids and result ids of a file with
// encoding/json, independently of the parser under test.
func oracle(t *testing.T, data []byte, format Format) (calls, results []string) {
	var records []map[string]any
	trimmed := bytes.TrimSpace(data)
	switch {
	case trimmed[0] == '[':
		must(t, json.Unmarshal(trimmed, &records))
	case format == SWEAgent:
	case format == OpenAI || format == Anthropic:
		var doc map[string]any
		if json.Unmarshal(trimmed, &doc) == nil {
			for _, m := range doc["messages"].([]any) {
				records = append(records, m.(map[string]any))
			}
			break
		}
		fallthrough
	default:
		for _, line := range bytes.Split(trimmed, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var rec map[string]any
			must(t, json.Unmarshal(line, &rec))
			records = append(records, rec)
		}
	}
	str := func(v any) string { s, _ := v.(string); return s }
	if format == SWEAgent {
		return sweOracle(t, trimmed)
	}
	for _, rec := range records {
		msg := rec
		switch format {
		case ClaudeCode:
			if typ := str(rec["type"]); typ != "user" && typ != "assistant" {
				continue
			}
			msg, _ = rec["message"].(map[string]any)
		case Codex:
			if p, ok := rec["payload"].(map[string]any); ok {
				if str(rec["type"]) != "response_item" {
					continue
				}
				msg = p
			}
			switch str(msg["type"]) {
			case "function_call", "custom_tool_call", "local_shell_call":
				calls = append(calls, str(msg["call_id"]))
			case "web_search_call":
				calls = append(calls, str(msg["id"]))
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				results = append(results, str(msg["call_id"]))
			}
			continue
		}
		switch format {
		case OpenAI:
			for _, tc := range asList(msg["tool_calls"]) {
				calls = append(calls, str(tc["id"]))
			}
			if str(msg["role"]) == "tool" {
				results = append(results, str(msg["tool_call_id"]))
			}
		default:
			for _, b := range asList(msg["content"]) {
				switch str(b["type"]) {
				case "tool_use", "server_tool_use":
					calls = append(calls, str(b["id"]))
				case "tool_result":
					results = append(results, str(b["tool_use_id"]))
				}
			}
		}
	}
	return calls, results
}

// sweOracle reads a SWE-agent trajectory's calls and results: an
// assistant's action is a call, with its tool call's id or step-N for the
// Nth action; the user or tool message after it is its result.
func sweOracle(t *testing.T, data []byte) (calls, results []string) {
	var doc struct {
		History []struct {
			Role      string
			Action    *string
			ToolCalls []struct{ ID string } `json:"tool_calls"`
		}
	}
	must(t, json.Unmarshal(data, &doc))
	open, steps := "", 0
	for _, m := range doc.History {
		switch {
		case m.Role == "assistant" && m.Action != nil && strings.TrimSpace(*m.Action) != "":
			steps++
			open = fmt.Sprintf("step-%d", steps)
			if len(m.ToolCalls) > 0 {
				open = m.ToolCalls[0].ID
			}
			calls = append(calls, open)
			continue
		case open != "" && (m.Role == "user" || m.Role == "tool"):
			results = append(results, open)
		}
		open = ""
	}
	return calls, results
}

func asList(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCorpusPairing checks that in real transcripts every call found has its
// result and every result its call, except where the file itself lacks one.
func TestCorpusPairing(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		tr, _ := parseFile(t, path)
		ids := map[string]int{}
		for _, c := range tr.Calls {
			ids[c.ID]++
		}
		for _, r := range tr.Results {
			if (r.Call != nil) != (ids[r.CallID] > 0) {
				t.Errorf("%s: result for %s paired=%v but the file has %d calls with that id", path, r.CallID, r.Call != nil, ids[r.CallID])
			}
		}
		var unpaired []string
		for _, c := range tr.Calls {
			if c.Result == nil {
				unpaired = append(unpaired, c.ID)
			}
		}
		sort.Strings(unpaired)
		t.Logf("%s: %d calls, %d without a result %v", testutil.Name(path), len(tr.Calls), len(unpaired), unpaired)
	}
}
