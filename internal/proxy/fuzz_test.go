package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
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
// in, never panics, and never keeps more of a line, an event's data (all
// its lines) or a JSON answer than its limit, here a small one.
func FuzzStream(f *testing.F) {
	for _, s := range streams {
		f.Add(uint8(api(s.api)), []byte(strings.Join(s.pieces, "")), uint16(7), true)
	}
	f.Add(uint8(0), []byte(`{"type":"message","model":"m","usage":{"input_tokens":5,"output_tokens":2}}`), uint16(3), false)
	f.Add(uint8(0), []byte("event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\r\n\r\n"), uint16(1), true)
	f.Add(uint8(1), []byte(strings.Repeat("data: xxxxxxxxxxxxxxxx\n", 40)+"\ndata: {\"model\":\"m\",\"usage\":{\"prompt_tokens\":7}}\n\n"), uint16(5), true)
	f.Add(uint8(2), []byte("event: "+strings.Repeat("e", 300)+"\ndata: {}\n\nevent: response.completed\ndata: {\"response\":{\"usage\":{\"input_tokens\":2}}}\n\n"), uint16(11), true)
	f.Fuzz(func(t *testing.T, which uint8, answer []byte, size uint16, sse bool) {
		a := []API{Messages, Chat, Responses}[int(which)%3]
		h := http.Header{"Content-Type": {"application/json"}}
		if sse {
			h.Set("Content-Type", "text/event-stream")
		}
		limit := 16 + int(size)%512
		whole := newMeter(a, h)
		whole.limit = limit
		whole.write(answer)
		want := whole.result()
		pieces := newMeter(a, h)
		pieces.limit = limit
		step := int(size)%97 + 1
		for i := 0; i < len(answer); i += step {
			pieces.write(answer[i:min(i+step, len(answer))])
			if len(pieces.line) > limit || len(pieces.data) > limit || len(pieces.body) > limit {
				t.Fatalf("in pieces of %d, over the limit of %d: a line of %d, data of %d, a body of %d", step, limit, len(pieces.line), len(pieces.data), len(pieces.body))
			}
		}
		if got := pieces.result(); got != want {
			t.Fatalf("in pieces of %d: %+v; whole: %+v", step, got, want)
		}
	})
}

// FuzzHold: the proxy holds a body, in whatever pieces it arrives, within
// MaxBody and the budget: the bytes it holds and the rest it passes on are
// the body; a body it holds whole is within MaxBody; it never takes more
// of the budget than twice what it holds (the buffer grows by doubling)
// and a first step, nor more than the budget, and it gives it all back.
func FuzzHold(f *testing.F) {
	f.Add([]byte(`{"messages":[]}`), uint16(3), uint16(64), uint32(1<<20), true)
	f.Add(bytes.Repeat([]byte("x"), 300<<10), uint16(4096), uint16(100), uint32(200<<10), false)
	f.Add(bytes.Repeat([]byte("y"), 200<<10), uint16(65535), uint16(300), uint32(1<<20), true)
	p, _ := fuzzProxy(f)
	f.Fuzz(func(t *testing.T, body []byte, piece, maxKiB uint16, memory uint32, known bool) {
		maxBody := int64(maxKiB)%512<<10 + 1
		p.cfg.MaxBody, p.budget = maxBody, newBudget(max(maxBody, int64(memory)%(4<<20)))
		r := &http.Request{ContentLength: -1}
		if known {
			r.ContentLength = int64(len(body))
		}
		held, release, rest, err := p.hold(r, &piecewise{b: body, n: int(piece)%8192 + 1})
		taken := p.budget.total - p.budget.free
		if err != nil && !errors.Is(err, errFull) {
			t.Fatal(err)
		}
		got := held
		if rest != nil {
			tail, _ := io.ReadAll(rest)
			got = append(slices.Clip(held), tail...)
		} else if int64(len(held)) > maxBody {
			t.Fatalf("held %d bytes whole, over MaxBody %d", len(held), maxBody)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("held %d and passed on the rest: %d bytes of the %d sent, not them", len(held), len(got), len(body))
		}
		if taken > p.budget.total || taken > 2*int64(len(held))+64<<10 {
			t.Fatalf("took %d of the budget of %d to hold %d bytes", taken, p.budget.total, len(held))
		}
		release()
		if p.budget.free != p.budget.total {
			t.Fatalf("%d bytes not given back", p.budget.total-p.budget.free)
		}
	})
}

// piecewise reads b in pieces of at most n bytes.
type piecewise struct {
	b []byte
	n int
}

func (p *piecewise) Read(out []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	k := copy(out[:min(len(out), p.n)], p.b)
	p.b = p.b[k:]
	return k, nil
}

// FuzzRefusal: the proxy's check of a request's Host, Origin and
// Content-Type never panics, refuses every request with an Origin, and
// lets a Host through only when it names the address the request came in
// on (with its port), localhost on a loopback one, or a name it was given.
func FuzzRefusal(f *testing.F) {
	f.Add("127.0.0.1:4747", "", "application/json", "127.0.0.1:4747", true)
	f.Add("localhost:4747", "", "application/json; charset=utf-8", "127.0.0.1:4747", true)
	f.Add("[::1]:4747", "", "application/vnd.api+json", "[::1]:4747", true)
	f.Add("evil.example:4747", "https://evil.example", "text/plain", "127.0.0.1:4747", true)
	f.Add("gateway.local:80", "", "application/json", "10.0.0.2:80", false)
	f.Add("LOCALHOST.:4747", "null", "", "127.0.0.1:4747", true)
	p, _ := fuzzProxy(f)
	p.cfg.Names = []string{"gateway.local"}
	f.Fuzz(func(t *testing.T, host, origin, contentType, local string, hasOrigin bool) {
		la, err := netip.ParseAddrPort(local)
		if err != nil {
			return
		}
		r := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
		r.Host = host
		r.Header.Set("Content-Type", contentType)
		if hasOrigin {
			r.Header["Origin"] = []string{origin}
		}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(la)))
		why, status := p.refusal(r, Messages)
		if hasOrigin && status != http.StatusForbidden {
			t.Fatalf("Origin %q: %d %q", origin, status, why)
		}
		if why != "" {
			return
		}
		name, port, err := net.SplitHostPort(host)
		if err != nil {
			name, port = host, "80"
		}
		name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
		ip, ipErr := netip.ParseAddr(name)
		ok := port == strconv.Itoa(int(la.Port())) && (ipErr == nil && ip.Unmap() == la.Addr().Unmap() ||
			ipErr != nil && (name == "localhost" && la.Addr().IsLoopback() || name == "gateway.local"))
		if !ok {
			t.Fatalf("Host %q let through on %s", host, local)
		}
	})
}

// FuzzReadLedger: a ledger of any bytes is read without a panic; every
// line is an entry, skipped, or blank.
func FuzzReadLedger(f *testing.F) {
	entry := `{"time":"2026-11-25T10:00:00Z","session":"s","api":"messages","replaced":1,"usage":null,"uncompacted":null,"cost_usd":0,"uncompacted_cost_usd":0,"sent":{"read":0,"written":1},"client":{"read":0,"written":2}}`
	f.Add([]byte(entry + "\n" + entry[:40] + entry + "\n\n" + entry[:90]))
	f.Add([]byte("\n\r\n{}\n[]\n"))
	f.Fuzz(func(t *testing.T, ledger []byte) {
		entries, skipped, err := ReadLedger(bytes.NewReader(ledger))
		if err != nil {
			t.Fatal(err)
		}
		if lines := bytes.Count(ledger, []byte("\n")) + 1; len(skipped) > lines || len(entries) > lines {
			t.Fatalf("%d lines: %d entries, %d skipped", lines, len(entries), len(skipped))
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
