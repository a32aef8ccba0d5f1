package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

// fuzzProxy is a proxy whose step a fuzz target runs directly; its log
// lines are the target's failures.
func fuzzProxy(f *testing.F) (*Proxy, *logLines) {
	ctr, err := tokens.New(tokens.Approx) // the policy's decisions, sooner
	if err != nil {
		f.Fatal(err)
	}
	base, _ := url.Parse("http://127.0.0.1:9")
	logs := &logLines{}
	p, err := New(Config{Anthropic: base, OpenAI: base, Counter: ctr, Options: compact.Defaults(ctr), Log: logs.log,
		Ledger: NewLedger(&bytes.Buffer{}, nil)})
	if err != nil {
		f.Fatal(err)
	}
	return p, logs
}

// FuzzRequestBody runs the proxy's step on any body, as each API: it never
// panics; a body it does not change goes as it came; one it changes is
// JSON, the client's byte for byte outside the replaced contents, and
// unchanged by a second pass (the markers say what they replaced).
func FuzzRequestBody(f *testing.F) {
	// Small bodies of each API's shapes: the fixtures' whole bodies are
	// tens of kilobytes, slow to mutate.
	long := strings.Repeat(`line of output that goes on\n`, 400)
	f.Add([]byte(`{"model":"claude-sonnet-4-5","system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"c2ln"},{"type":"tool_use","id":"toolu_0123456789abcdef","name":"Bash","input":{"command":"make test"}}]},` +
		`{"role":"user","content":[{"tool_use_id":"toolu_0123456789abcdef","type":"tool_result","content":[{"type":"text","text":"` + long + `"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]},` +
		`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"tool_use","id":"toolu_1123456789abcdef","name":"Bash","input":{"command":"ls"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1123456789abcdef","content":"a\nb","cache_control":{"type":"ephemeral"}}]}]}`))
	f.Add([]byte(`{"model":"gpt-5","input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"call_0123456789abcdef","name":"shell","arguments":"{\"command\":[\"make\"]}"},` +
		`{"type":"function_call_output","call_id":"call_0123456789abcdef","output":"` + long + `"},{"type":"reasoning","encrypted_content":"gAAA"},` +
		`{"type":"function_call","call_id":"call_1123456789abcdef","name":"shell","arguments":"{}"},{"type":"function_call_output","call_id":"call_1123456789abcdef","output":"ok"}]}`))
	f.Add([]byte(`{"model":"deepseek-chat","messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_0123456789abcdef","type":"function","function":{"name":"bash","arguments":"{\"command\": \"cat a.py\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_0123456789abcdef","content":"` + long + `"},{"role":"assistant","content":"ok"}]}`))
	f.Add([]byte(`{"messages":[{"role":"tool","tool_call_id":"x","content":{"a":1}}]}`))
	f.Add([]byte(`{"input":"a prompt"}`))
	f.Add([]byte(`{"input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"x"}]}]}`))
	f.Add([]byte(`{"messages":[` + strings.Repeat(`{"role":"user","content":"\u00e9"},`, 3) + `{}]}`))
	p, logs := fuzzProxy(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, api := range []API{Messages, Chat, Responses} {
			logs.lines = nil
			st := p.compact(api, http.Header{}, body, "fuzz")
			for _, line := range logs.all() {
				if strings.Contains(line, "compaction failed") {
					t.Fatalf("%s: %s", api, line)
				}
			}
			if !st.changed {
				if !bytes.Equal(st.body, body) {
					t.Fatalf("%s: unchanged, yet other bytes sent", api)
				}
				continue
			}
			if !json.Valid(st.body) {
				t.Fatalf("%s: sent invalid JSON", api)
			}
			spliceBack(t, api, body, st.body)
			if again := p.compact(api, http.Header{}, st.body, "fuzz"); again.changed {
				t.Fatalf("%s: a second pass changed the body again", api)
			}
		}
	})
}

// FuzzStream: the meter reads an answer alike whatever pieces it arrives
// in, and never panics.
func FuzzStream(f *testing.F) {
	for _, s := range streams {
		f.Add(uint8(api(s.api)), []byte(strings.Join(s.pieces, "")), uint16(7), true)
	}
	f.Add(uint8(0), []byte(`{"type":"message","model":"m","usage":{"input_tokens":5,"output_tokens":2}}`), uint16(3), false)
	f.Add(uint8(0), []byte("event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\r\n\r\n"), uint16(1), true)
	f.Fuzz(func(t *testing.T, which uint8, answer []byte, size uint16, sse bool) {
		a := []API{Messages, Chat, Responses}[int(which)%3]
		h := http.Header{"Content-Type": {"application/json"}}
		if sse {
			h.Set("Content-Type", "text/event-stream")
		}
		whole := newMeter(a, h)
		whole.write(answer)
		want := whole.result()
		pieces := newMeter(a, h)
		step := int(size)%97 + 1
		for i := 0; i < len(answer); i += step {
			pieces.write(answer[i:min(i+step, len(answer))])
		}
		if got := pieces.result(); got != want {
			t.Fatalf("in pieces of %d: %+v; whole: %+v", step, got, want)
		}
	})
}

// api numbers the APIs for the fuzz targets' seeds.
func api(a API) int {
	switch a {
	case Chat:
		return 1
	case Responses:
		return 2
	}
	return 0
}
