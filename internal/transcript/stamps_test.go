package transcript

import (
	"strings"
	"testing"
	"time"
)

// TestStamps: every message gets the time and the model its format gives,
// carried forward to the messages that give none, and back to the first
// ones.
func TestStamps(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		name, in string
		times    []time.Time // per message; nil: every time zero
		models   []string    // per message
	}{{
		name: "claude-code",
		in: `{"type":"user","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":"go"}}
{"type":"progress","timestamp":"2026-01-02T10:00:01Z"}
{"type":"assistant","timestamp":"2026-01-02T10:00:02.5Z","message":{"role":"assistant","model":"claude-a","content":[{"type":"text","text":"ok"}]}}
{"type":"assistant","timestamp":"not a time","message":{"role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}
{"type":"assistant","timestamp":"2026-01-03T00:00:00+02:00","message":{"role":"assistant","model":"claude-b","content":[{"type":"text","text":"done"}]}}
`,
		times:  []time.Time{at("2026-01-02T10:00:00Z"), at("2026-01-02T10:00:02.5Z"), at("2026-01-02T10:00:02.5Z"), at("2026-01-03T00:00:00+02:00")},
		models: []string{"claude-a", "claude-a", "claude-a", "claude-b"},
	}, {
		name: "codex",
		in: `{"timestamp":"2026-05-11T10:28:45Z","type":"session_meta","payload":{"id":"s","cwd":"/p","base_instructions":{"text":"be good"}}}
{"timestamp":"2026-05-11T10:28:46Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
{"timestamp":"2026-05-11T10:28:47Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5"}}
{"timestamp":"2026-05-11T10:28:48Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"yo"}]}}
{"timestamp":"2026-05-11T10:28:49Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5-codex"}}
{"timestamp":"2026-05-11T10:28:50Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"again"}]}}
`,
		times:  []time.Time{at("2026-05-11T10:28:45Z"), at("2026-05-11T10:28:46Z"), at("2026-05-11T10:28:48Z"), at("2026-05-11T10:28:50Z")},
		models: []string{"gpt-5", "gpt-5", "gpt-5", "gpt-5-codex"},
	}, {
		name: "mini-swe-agent",
		in: `{"info":{"config":{"model":{"model_name":"deepseek/deepseek-chat"}}},"messages":[
{"role":"system","content":"s"},
{"role":"assistant","content":"a","extra":{"timestamp":1775793870.25,"response":{"model":"deepseek-chat"}}},
{"role":"user","content":"u","extra":{"timestamp":1775793871}}]}`,
		times:  []time.Time{time.Unix(1775793870, 250000000), time.Unix(1775793870, 250000000), time.Unix(1775793871, 0)},
		models: []string{"deepseek-chat", "deepseek-chat", "deepseek-chat"},
	}, {
		name:   "request body",
		in:     `{"model":"claude-x","system":"be brief","messages":[{"role":"user","content":"hi"}]}`,
		models: []string{"claude-x", "claude-x"},
	}, {
		name:   "swe-agent",
		in:     `{"replay_config":{"agent":{"model":{"name":"gpt-4o"}}},"history":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"trajectory":[]}`,
		models: []string{"gpt-4o", "gpt-4o"},
	}, {
		name:   "none",
		in:     `[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]`,
		models: []string{"", ""},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Parse([]byte(strings.TrimSpace(c.in)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Messages) != len(c.models) {
				t.Fatalf("%d messages, want %d", len(tr.Messages), len(c.models))
			}
			for i, m := range tr.Messages {
				want := time.Time{}
				if c.times != nil {
					want = c.times[i]
				}
				if !m.Time.Equal(want) {
					t.Errorf("message %d: time %v, want %v", i, m.Time, want)
				}
				if m.Model != c.models[i] {
					t.Errorf("message %d: model %q, want %q", i, m.Model, c.models[i])
				}
			}
		})
	}
}

// TestResponsesAndRestarts: a Claude Code response written over several
// lines gives each of its messages the response's id, even with a result
// between them; the message after an agent's own compaction (Claude Code's
// compact_boundary, Codex's compacted record) restarts the history, and a
// Codex user message dropped as a duplicate passes its restart on.
func TestResponsesAndRestarts(t *testing.T) {
	cases := []struct {
		name, in  string
		responses []string // per message
		restarts  []bool   // per message
	}{{
		name: "claude-code",
		in: `{"type":"user","message":{"role":"user","content":"go"}}
{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]}}
{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"ok"}]}}
{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}
{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}
{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"done"}]}}
`,
		responses: []string{"", "msg_1", "", "msg_1", "", "msg_2"},
		restarts:  []bool{false, false, false, false, true, false},
	}, {
		name: "codex",
		in: `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
{"type":"compacted","payload":{"message":"sum","replacement_history":[]}}
{"type":"event_msg","payload":{"type":"user_message","message":"next"}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"next"}]}}
{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"yo"}]}}
`,
		responses: []string{"", "", ""},
		restarts:  []bool{false, true, false},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Parse([]byte(c.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Messages) != len(c.responses) {
				t.Fatalf("%d messages, want %d", len(tr.Messages), len(c.responses))
			}
			for i, m := range tr.Messages {
				if m.Response != c.responses[i] || m.Restart != c.restarts[i] {
					t.Errorf("message %d: response %q restart %v, want %q %v", i, m.Response, m.Restart, c.responses[i], c.restarts[i])
				}
			}
		})
	}
}
