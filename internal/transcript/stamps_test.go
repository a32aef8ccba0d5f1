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
