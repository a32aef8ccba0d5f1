package transcript

import (
	"testing"
	"time"
)

// TestTimeAndTextInput checks the two things the archive needs from the
// model beyond what the filters use: when each message was written, and
// whether a call's input is a custom tool's free text.
func TestTimeAndTextInput(t *testing.T) {
	cases := []struct {
		name, src string
		times     []string // of every message
		text      []bool   // InputIsText of every call
	}{
		{"claude-code",
			`{"type":"assistant","timestamp":"2025-01-02T03:04:05.678Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","timestamp":"2025-01-02T03:04:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]}}
`, []string{"2025-01-02T03:04:05.678Z", "2025-01-02T03:04:06Z"}, []bool{false}},
		{"codex",
			`{"timestamp":"2025-02-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/p"}}
{"timestamp":"2025-02-01T00:00:01Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"*** Begin Patch\n*** End Patch\n"}}
{"timestamp":"2025-02-01T00:00:02Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"ok"}}
{"timestamp":"2025-02-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c2","arguments":"{\"command\":[\"ls\"]}"}}
`, []string{"2025-02-01T00:00:01Z", "2025-02-01T00:00:02Z", "2025-02-01T00:00:03Z"}, []bool{true, false}},
		{"openai without times",
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"x"}]`,
			[]string{"", ""}, []bool{false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Parse([]byte(c.src), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Messages) != len(c.times) {
				t.Fatalf("%d messages, want %d", len(tr.Messages), len(c.times))
			}
			for i, m := range tr.Messages {
				got := ""
				if !m.Time.IsZero() {
					got = m.Time.Format(time.RFC3339Nano)
				}
				if got != c.times[i] {
					t.Errorf("message %d: Time %q, want %q", i, got, c.times[i])
				}
			}
			if len(tr.Calls) != len(c.text) {
				t.Fatalf("%d calls, want %d", len(tr.Calls), len(c.text))
			}
			for i, call := range tr.Calls {
				if call.InputIsText != c.text[i] {
					t.Errorf("call %s: InputIsText %v, want %v", call.ID, call.InputIsText, c.text[i])
				}
			}
		})
	}
}
