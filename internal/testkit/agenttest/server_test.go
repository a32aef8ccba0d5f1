package agenttest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// events posts body to the server's path and returns the data of every
// Server-Sent Event of the reply, by event name.
func events(t *testing.T, s *Server, path, body string) (names []string, data []map[string]any) {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var v map[string]any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatalf("data is not JSON: %s", d)
			}
			if v["type"] != names[len(names)-1] {
				t.Fatalf("event %s carries type %v", names[len(names)-1], v["type"])
			}
			data = append(data, v)
		}
	}
	return names, data
}

// TestMessages: the turn follows the number of tool results in the request,
// and a tool call's input, split over deltas, joins to the scripted input.
func TestMessages(t *testing.T) {
	s, err := NewServer([]Turn{
		{Tool: "Bash", Input: map[string]any{"command": "false"}},
		{Text: "Stopped."},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	names, data := events(t, s, "/v1/messages?beta=true", `{"stream":true,"messages":[{"role":"user","content":"go"}]}`)
	want := "message_start content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events %s\nwant %s", got, want)
	}
	input := data[2]["delta"].(map[string]any)["partial_json"].(string) + data[3]["delta"].(map[string]any)["partial_json"].(string)
	if input != `{"command":"false"}` {
		t.Errorf("input %s", input)
	}
	if stop := data[5]["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Errorf("stop_reason %v", stop)
	}

	withResult := `{"stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_e2e_00","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_e2e_00","content":[{"type":"text","text":"Exit code 1"}],"is_error":true}]}]}`
	_, data = events(t, s, "/v1/messages", withResult)
	if text := data[2]["delta"].(map[string]any)["text"]; text != "Stopped." {
		t.Errorf("second turn %v", text)
	}
	if got := s.ToolResults(); len(got) != 1 || got[0] != "Exit code 1" {
		t.Errorf("ToolResults %q", got)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests recorded", n)
	}
}

// TestResponses: a function call item with its arguments as a JSON string,
// then past the script's end a message.
func TestResponses(t *testing.T) {
	s, err := NewServer([]Turn{
		{Tool: "exec_command", Input: map[string]any{"cmd": "ls"}},
		{Namespace: "mcp__ctx_recall", Tool: "memory_query", Input: map[string]any{"id": "toolu_01"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names, data := events(t, s, "/v1/responses", `{"stream":true,"input":[]}`)
	if got := strings.Join(names, " "); got != "response.created response.output_item.added response.output_item.done response.completed" {
		t.Fatalf("events %s", got)
	}
	item := data[2]["item"].(map[string]any)
	if item["type"] != "function_call" || item["arguments"] != `{"cmd":"ls"}` || item["call_id"] == "" {
		t.Errorf("item %v", item)
	}
	if _, ok := item["namespace"]; ok {
		t.Errorf("a tool outside a namespace: %v", item)
	}
	// A tool offered in a namespace (an MCP server's) is called with it.
	_, data = events(t, s, "/v1/responses", `{"stream":true,"input":[{"type":"function_call_output","call_id":"c","output":"a.txt"}]}`)
	if item := data[2]["item"].(map[string]any); item["namespace"] != "mcp__ctx_recall" || item["name"] != "memory_query" {
		t.Errorf("a tool in a namespace: %v", item)
	}
	_, data = events(t, s, "/v1/responses", `{"stream":true,"input":[{"type":"function_call_output","call_id":"c","output":"a.txt"},{"type":"function_call_output","call_id":"d","output":"b.txt"}]}`)
	if item := data[2]["item"].(map[string]any); item["type"] != "message" {
		t.Errorf("past the script: %v", item)
	}
	if got := s.ToolResults(); len(got) != 2 || got[0] != "a.txt" || got[1] != "b.txt" {
		t.Errorf("ToolResults %q", got)
	}
}

func TestJoinTOML(t *testing.T) {
	got := joinTOML("model = \"m\"\n\n[providers.x]\nurl = \"u\"\n", "# hooks\nlimit = 1\n\n[[hooks.A]]\nmatcher = \"*\"\n")
	want := "model = \"m\"\n\n\n# hooks\nlimit = 1\n\n\n[providers.x]\nurl = \"u\"\n\n[[hooks.A]]\nmatcher = \"*\"\n"
	if got != want {
		t.Errorf("joinTOML:\n%s\nwant\n%s", got, want)
	}
}
