package proxy

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// session is a transcript as its agent's requests: request k is the body,
// in the agent's API, of the history before its k-th model turn (from the
// agent's last compaction of its history on), as the replay counts the
// requests (internal/replay).
type session struct {
	name   string
	tr     *transcript.Transcript
	api    API
	path   string
	hour   bool     // its records show the hour-long cache
	prefix int      // the tokens its requests send that its file does not hold
	bodies [][]byte // by turn
	output []int    // by turn, the turn's own tokens
	model  []string // by turn
}

// sessionOf makes the requests of a Claude Code session (Messages bodies),
// a Codex rollout (Responses bodies) or a Chat Completions trajectory;
// false for another format.
func sessionOf(t testing.TB, path string, ctr tokens.Counter) (session, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := transcripttest.Parse(t, data)
	s := session{name: testutil.Name(path), tr: tr, hour: usage.HourCache(usage.Read(data, tr.Format))}
	lines := bytes.Split(data, []byte("\n"))
	record := func(m *transcript.Message) gjson.Result { // the JSONL line, or the document's element
		switch tr.Layout {
		case transcript.JSONL:
			return gjson.ParseBytes(lines[m.Pos.Line-1])
		case transcript.Array:
			return gjson.GetBytes(data, strconv.Itoa(m.Pos.Element))
		}
		return gjson.GetBytes(data, "messages."+strconv.Itoa(m.Pos.Element))
	}
	raw := make([]string, len(tr.Messages)) // each message as its API has it
	var system string                       // the system prompt at the top of the body
	for i, m := range tr.Messages {
		switch tr.Format {
		case transcript.ClaudeCode, transcript.Anthropic:
			s.api, s.path = Messages, "/v1/messages?beta=true"
			switch {
			case m.Pos.Element < 0 && tr.Layout == transcript.Object:
				system = m.Blocks[0].Text
			case tr.Format == transcript.ClaudeCode:
				raw[i] = record(m).Get("message").Raw
			default:
				raw[i] = record(m).Raw
			}
		case transcript.Codex:
			s.api, s.path = Responses, "/v1/responses"
			rec := record(m)
			switch {
			case tr.Layout != transcript.JSONL:
				raw[i] = rec.Raw
			case rec.Get("type").Str == "response_item":
				raw[i] = rec.Get("payload").Raw
			case rec.Get("type").Str == "session_meta":
				system = m.Blocks[0].Text
			default: // a user's turn that only an event recorded
				item, _ := json.Marshal(map[string]any{"type": "message", "role": "user",
					"content": []any{map[string]any{"type": "input_text", "text": m.Blocks[0].Text}}})
				raw[i] = string(item)
			}
		case transcript.OpenAI:
			s.api, s.path = Chat, "/v1/chat/completions"
			raw[i] = record(m).Raw
		default:
			return s, false
		}
	}
	// The agents state the working directory in their system prompt (the
	// proxy reads it from there, for the paths of its summaries), which a
	// session's file does not hold: it is added, and the replay counts
	// what it adds as the prefix sent before the history.
	stated := system
	switch {
	case tr.Cwd == "":
	case s.api == Messages:
		stated = strings.TrimLeft(system+"\n\n# Environment\n - Primary working directory: "+tr.Cwd, "\n")
	case s.api == Responses:
		stated = strings.TrimLeft(system+"\n<environment_context><cwd>"+tr.Cwd+"</cwd></environment_context>", "\n")
	}
	if stated != "" {
		s.prefix = ctr.Count(stated) - ctr.Count(system)
	}
	system = stated
	tl := stats.Count(tr, ctr)
	start := 0
	for _, tn := range tr.Turns() {
		end := tn.Messages[0]
		for _, m := range tr.Messages[start:end] {
			if m.Restart {
				start = m.Index
			}
		}
		var items []string
		for _, r := range raw[start:end] {
			if r != "" {
				items = append(items, r)
			}
		}
		model := tr.Messages[end].Model
		// The body by hand: encoding/json would respace and escape the
		// messages, which the tokens count.
		var fields []string
		field := func(key, value string) { fields = append(fields, string(quote(key))+":"+value) }
		if model != "" {
			field("model", string(quote(model)))
		}
		list := "[" + strings.Join(items, ",") + "]"
		switch s.api {
		case Messages:
			if system != "" {
				field("system", string(quote(system)))
			}
			field("messages", list)
			field("metadata", `{"user_id":`+string(quote(`{"session_id":"`+tr.SessionID+`"}`))+`}`)
			if s.hour {
				field("cache_control", `{"type":"ephemeral","ttl":"1h"}`)
			} else {
				field("cache_control", `{"type":"ephemeral"}`)
			}
		case Responses:
			if system != "" {
				field("instructions", string(quote(system)))
			}
			field("input", list)
			field("prompt_cache_key", string(quote(tr.SessionID)))
		case Chat:
			field("messages", list)
		}
		b := []byte("{" + strings.Join(fields, ",") + "}")
		out := 0
		for _, i := range tn.Messages {
			out += tl.Message(tr.Messages[i])
		}
		s.bodies, s.output, s.model = append(s.bodies, b), append(s.output, out), append(s.model, model)
	}
	return s, true
}

func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// sessions are the sessions of the fixtures and the corpus that an agent
// sends to an API.
func sessions(t testing.TB, ctr tokens.Counter) []session {
	var out []session
	for _, path := range testutil.FixturesAndCorpus(t) {
		if s, ok := sessionOf(t, path, ctr); ok && len(s.bodies) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// cacheUpstream is an upstream that bills each request by the replay's
// cache model (internal/replay): the messages it shares from the start
// with the request before it in the conversation (by the session header)
// are read, the rest written (Messages, for an hour when the request asks
// it) or sent as input (the OpenAI APIs); its output is the X-Output
// header's tokens. It answers in each API's JSON shape, with the model
// asked for.
type cacheUpstream struct {
	ctr  tokens.Counter
	mu   sync.Mutex
	last map[string]replay.Prompt
}

func (c *cacheUpstream) serve(t testing.TB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		body.ReadFrom(r.Body)
		api := API(r.Header.Get("X-Api"))
		tr, err := transcript.Parse(body.Bytes(), transcript.Options{Format: api.format()})
		if err != nil {
			t.Errorf("the upstream: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p := replay.PromptOf(tr, stats.Count(tr, c.ctr))
		key := r.Header.Get("X-Conversation")
		c.mu.Lock()
		read, written := p.After(c.last[key])
		c.last[key] = p
		c.mu.Unlock()
		output, _ := strconv.Atoi(r.Header.Get("X-Output"))
		model := gjson.GetBytes(body.Bytes(), "model").Str
		var answer any
		switch api {
		case Messages:
			u := map[string]any{"input_tokens": 0, "cache_read_input_tokens": read, "cache_creation_input_tokens": written, "output_tokens": output}
			if gjson.GetBytes(body.Bytes(), "cache_control.ttl").Str == "1h" {
				u["cache_creation"] = map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": written}
			}
			answer = map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": []any{}, "usage": u}
		case Responses:
			answer = map[string]any{"id": "resp_1", "object": "response", "model": model, "usage": map[string]any{
				"input_tokens": read + written, "input_tokens_details": map[string]any{"cached_tokens": read}, "output_tokens": output}}
		case Chat:
			answer = map[string]any{"id": "c1", "object": "chat.completion", "model": model, "usage": map[string]any{
				"prompt_tokens": read + written, "prompt_tokens_details": map[string]any{"cached_tokens": read}, "completion_tokens": output}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	}
}

// replayed sends a session's requests through the proxy at proxyURL, in
// order, and returns the bodies the upstream received.
func (s session) replayed(t testing.TB, proxyURL string, up *upstream) [][]byte {
	t.Helper()
	from := len(up.got())
	for k, body := range s.bodies {
		status, answer := post(t, proxyURL, s.path, body, map[string]string{"X-Api": string(s.api),
			"X-Conversation": s.name, "X-Output": strconv.Itoa(s.output[k])})
		if status != http.StatusOK {
			t.Fatalf("%s, request %d: %d %s", s.name, k, status, answer)
		}
	}
	var out [][]byte
	for _, r := range up.got()[from:] {
		out = append(out, r.Body)
	}
	return out
}

// TestReplayThroughHTTP sends every session of the fixtures and the corpus
// through the proxy, request by request, to an upstream that bills by the
// replay's cache model: the ledger's bills, as sent and as the client sent
// them, are the replay's (ctx-compact --replay's) compacted and as-is
// bills; the same requests through a proxy started anew for each send the
// same bytes (the policy keeps no state); and every message takes at most
// one form more than its results and calls from one request to the next.
func TestReplayThroughHTTP(t *testing.T) {
	ctr := counter(t)
	for _, s := range sessions(t, ctr) {
		t.Run(s.name, func(t *testing.T) {
			got, bodies, up := s.throughProxy(t, ctr)
			want := s.replay(t, ctr)
			// After the agent's own compaction of its history the proxy
			// sees the history from there on, and its policy weighs what
			// a replacement saves by the requests since; the replay's loop
			// counts those before too: a session with one may differ a
			// little, as sent.
			sent := nearly(got.Cost, want.Compacted.Cost) || s.restarts() && math.Abs(got.Ratio-want.Ratio()) < 0.01
			if got.Requests != want.AsIs.Requests || got.Unmetered != 0 || !nearly(got.UncompactedCost, want.AsIs.Cost) || !sent {
				t.Errorf("the ledger: %d requests, $%.6f as the client sent them, $%.6f as sent; the replay: %d, $%.6f and $%.6f",
					got.Requests, got.UncompactedCost, got.Cost, want.AsIs.Requests, want.AsIs.Cost, want.Compacted.Cost)
			}

			// The same requests, each through a proxy of its own.
			for k, body := range s.bodies {
				fresh, _ := serve(t, config(t, up))
				post(t, fresh, s.path, body, map[string]string{"X-Api": string(s.api), "X-Conversation": "fresh " + s.name,
					"X-Output": strconv.Itoa(s.output[k])})
				if again := up.last(t).Body; !bytes.Equal(again, bodies[k]) {
					t.Fatalf("request %d: a new proxy sent other bytes than the one that sent every request", k)
				}
			}
			checkForms(t, s, bodies)
		})
	}
}

// throughProxy sends the session's requests, in order, through a proxy
// to an upstream that bills by the cache model (cacheUpstream), and
// returns the ledger's total, the bodies the upstream received and the
// upstream. The proxy must log nothing.
func (s session) throughProxy(t *testing.T, ctr tokens.Counter) (Row, [][]byte, *upstream) {
	t.Helper()
	cu := &cacheUpstream{ctr: ctr, last: map[string]replay.Prompt{}}
	up := newUpstream(t, cu.serve(t))
	cfg := config(t, up)
	ledger := &syncBuffer{}
	cfg.Ledger = NewLedger(ledger, nil)
	proxyURL, logs := serve(t, cfg)
	bodies := s.replayed(t, proxyURL, up)
	logs.settle()
	for _, line := range logs.all() {
		t.Errorf("logged %s", line)
	}
	return Summarize(ledger.entries(t)).Total, bodies, up
}

// replay is ctx-compact --replay's account of the session: as it was and
// compacted by the policy with its defaults.
func (s session) replay(t testing.TB, ctr tokens.Counter) replay.Session {
	opts := compact.Defaults(ctr)
	opts.HourCache = s.hour
	f, err := compact.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return replay.Replay(s.tr, func(tr *transcript.Transcript) replay.Advance { return f.Start(tr).Advance },
		replay.Options{Counter: ctr, Prices: pricing.Default(), HourCache: s.hour, Prefix: s.prefix})
}

// restarts reports whether the agent compacted its own history.
func (s session) restarts() bool {
	for _, m := range s.tr.Messages {
		if m.Restart {
			return true
		}
	}
	return false
}

func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// checkForms: from one request to the next, each message of the client's
// history (known by its content as the client sent it) is sent in at most
// one form more than it has results and calls (a result, or a call's
// arguments, is sent as it came, then at most once otherwise).
func checkForms(t *testing.T, s session, sent [][]byte) {
	t.Helper()
	forms := map[uint64]map[uint64]bool{}
	bound := map[uint64]int{}
	for k, body := range s.bodies {
		client := parse(t, s.api, body)
		proxied := parse(t, s.api, sent[k])
		if len(client.Messages) != len(proxied.Messages) {
			t.Fatalf("request %d: %d messages sent, %d from the client", k, len(proxied.Messages), len(client.Messages))
		}
		ck := replay.PromptOf(client, stats.Tally{Blocks: make([][]int, len(client.Messages)), Calls: make([]int, len(client.Calls)), Results: make([]int, len(client.Results))}).Keys
		pk := replay.PromptOf(proxied, stats.Tally{Blocks: make([][]int, len(proxied.Messages)), Calls: make([]int, len(proxied.Calls)), Results: make([]int, len(proxied.Results))}).Keys
		for j, m := range client.Messages {
			if forms[ck[j]] == nil {
				forms[ck[j]] = map[uint64]bool{}
			}
			forms[ck[j]][pk[j]] = true
			bound[ck[j]] = 1 + len(m.Results) + len(m.Calls)
		}
	}
	for key, f := range forms {
		if len(f) > bound[key] {
			t.Errorf("a message took %d forms, more than its %d", len(f), bound[key])
		}
	}
}

func parse(t testing.TB, api API, body []byte) *transcript.Transcript {
	t.Helper()
	tr, err := transcript.Parse(body, transcript.Options{Format: api.format()})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
