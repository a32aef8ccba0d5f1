package usage

import (
	"math"
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

func read(t *testing.T, in string) ([]Record, transcript.Format) {
	t.Helper()
	tr, err := transcript.Parse([]byte(in), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Read([]byte(in), tr.Format), tr.Format
}

// TestClaudeCode: one response over three lines counts once, with the
// last line's output; the 5-minute and 1-hour writes are told apart; a
// synthetic message is no request.
func TestClaudeCode(t *testing.T) {
	in := `{"type":"user","sessionId":"s1","cwd":"/p","message":{"role":"user","content":"go"}}
{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-03-01T10:00:00Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":20000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1000},"output_tokens":10}}}
{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-03-01T10:00:05Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":20000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1000},"output_tokens":10}}}
{"type":"user","sessionId":"s1","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}
{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-03-01T10:00:06Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":20000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1000},"output_tokens":250}}}
{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-03-01T10:01:00Z","requestId":"req_2","message":{"id":"msg_2","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":5,"cache_creation_input_tokens":300,"cache_read_input_tokens":21000,"output_tokens":40}}}
{"type":"assistant","sessionId":"s1","cwd":"/p","message":{"id":"msg_3","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error"}],"usage":{"input_tokens":0,"output_tokens":0}}}
`
	recs, f := read(t, in)
	want := []Record{
		{ID: "msg_1:req_1", Time: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Model: "claude-opus-4-6", Session: "s1", Project: "/p",
			Tokens: pricing.Tokens{Input: 3, CacheWrite1h: 1000, CacheRead: 20000, Output: 250}},
		{ID: "msg_2:req_2", Time: time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC), Model: "claude-sonnet-4-5-20250929", Session: "s1", Project: "/p",
			Tokens: pricing.Tokens{Input: 5, CacheWrite: 300, CacheRead: 21000, Output: 40}},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i := range want {
		if !recs[i].Time.Equal(want[i].Time) {
			t.Errorf("record %d: time %v, want %v", i, recs[i].Time, want[i].Time)
		}
		recs[i].Time = want[i].Time
		if recs[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, recs[i], want[i])
		}
	}
	// Opus 4.6: 3 input at $5, 1,000 hour-long writes at $10, 20,000 reads
	// at $0.50, 250 output at $25 = 0.000015 + 0.01 + 0.01 + 0.00625;
	// Sonnet 4.5: 5 at $3, 300 writes at $3.75, 21,000 reads at $0.30, 40
	// output at $15 = 0.000015 + 0.001125 + 0.0063 + 0.0006.
	rows := Tally(recs, f, pricing.Default(), ByProject, map[string]bool{})
	if len(rows) != 1 || rows[0].Requests != 2 || math.Abs(rows[0].Cost-(0.026265+0.00804)) > 1e-9 {
		t.Errorf("tally %+v", rows)
	}
}

// TestCodex: the totals' differences are the requests' usage, a repeated
// event counts once, the cached part of input is read, and the model is
// the turn's.
func TestCodex(t *testing.T) {
	in := `{"timestamp":"2026-05-11T10:00:00Z","type":"session_meta","payload":{"id":"019e","cwd":"/p"}}
{"timestamp":"2026-05-11T10:00:01Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5-codex"}}
{"timestamp":"2026-05-11T10:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
{"timestamp":"2026-05-11T10:00:03Z","type":"event_msg","payload":{"type":"token_count","info":null}}
{"timestamp":"2026-05-11T10:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050}}}}
{"timestamp":"2026-05-11T10:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050}}}}
{"timestamp":"2026-05-11T10:00:09Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5.1-codex"}}
{"timestamp":"2026-05-11T10:00:10Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2200,"cached_input_tokens":900,"output_tokens":80,"reasoning_output_tokens":20,"total_tokens":2280},"last_token_usage":{"input_tokens":1200,"cached_input_tokens":900,"output_tokens":30,"reasoning_output_tokens":0,"total_tokens":1230}}}}
{"timestamp":"2026-05-11T10:00:20Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":100,"cached_input_tokens":60,"cache_write_input_tokens":30,"output_tokens":5}}}}
`
	recs, _ := read(t, in)
	want := []Record{
		{Model: "gpt-5-codex", Session: "019e", Project: "/p", Reasoning: 20, Tokens: pricing.Tokens{Input: 1000, Output: 50}},
		{Model: "gpt-5.1-codex", Session: "019e", Project: "/p", Tokens: pricing.Tokens{Input: 300, CacheRead: 900, Output: 30}},
		{Model: "gpt-5.1-codex", Session: "019e", Project: "/p", Tokens: pricing.Tokens{Input: 10, CacheWrite: 30, CacheRead: 60, Output: 5}},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i := range want {
		recs[i].Time = time.Time{}
		if recs[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, recs[i], want[i])
		}
	}
}

// TestChatCompletions: a mini-swe-agent trajectory's responses, with
// DeepSeek's cache hits.
func TestChatCompletions(t *testing.T) {
	in := `{"info":{},"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},
{"role":"assistant","content":"a","extra":{"timestamp":1775793870.5,"response":{"id":"r1","model":"deepseek-chat","usage":{"completion_tokens":115,"prompt_tokens":1835,"prompt_tokens_details":{"cached_tokens":320},"prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":1515}}}},
{"role":"user","content":"o"}]}`
	recs, _ := read(t, in)
	want := Record{ID: "r1", Time: time.Unix(1775793870, 5e8).UTC(), Model: "deepseek-chat", Tokens: pricing.Tokens{Input: 1515, CacheRead: 320, Output: 115}}
	if len(recs) != 1 || recs[0] != want {
		t.Errorf("%+v, want %+v", recs, want)
	}
}

// TestRecordedCosts: what an agent wrote that its requests cost is read
// beside their tokens: mini-swe-agent's extra.cost on each response, its
// totals (info.model_stats) where it kept no response, SWE-agent's totals
// with its tokens and the model its configuration names, Claude Code's
// costUSD. A total tells the recorded cost from the estimate, and says
// when they differ.
func TestRecordedCosts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Record
	}{{
		name: "mini-swe-agent, each response",
		in: `{"info":{"model_stats":{"instance_cost":0.0011,"api_calls":2}},"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},
{"role":"assistant","content":"a","extra":{"cost":0.00048146,"response":{"id":"r1","model":"deepseek-chat","usage":{"completion_tokens":115,"prompt_tokens":1835,"prompt_cache_hit_tokens":320}}}},
{"role":"user","content":"o"},
{"role":"assistant","content":"b","extra":{"cost":0.0006,"response":{"id":"r2","model":"deepseek-chat","usage":{"completion_tokens":10,"prompt_tokens":2000,"prompt_cache_hit_tokens":1800}}}}]}`,
		want: []Record{
			{ID: "r1", Model: "deepseek-chat", Tokens: pricing.Tokens{Input: 1515, CacheRead: 320, Output: 115}, RecordedCost: 0.00048146, CostRecorded: true},
			{ID: "r2", Model: "deepseek-chat", Tokens: pricing.Tokens{Input: 200, CacheRead: 1800, Output: 10}, RecordedCost: 0.0006, CostRecorded: true},
		},
	}, {
		name: "mini-swe-agent, its totals alone",
		in: `{"info":{"model_stats":{"instance_cost":0.2066,"api_calls":31},"config":{"model":{"model_name":"claude-sonnet-4-20250514"}}},
"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":"a"}]}`,
		want: []Record{{Model: "claude-sonnet-4-20250514", Requests: 31, RecordedCost: 0.2066, CostRecorded: true}},
	}, {
		name: "SWE-agent",
		in: `{"environment":"e","trajectory":[],"history":[{"role":"system","content":"s"},{"role":"user","content":"u"}],
"info":{"exit_status":"submitted","model_stats":{"instance_cost":0.01952,"tokens_sent":7141,"tokens_received":243,"api_calls":5}},
"replay_config":{"agent":{"model":{"name":"gpt-4o"}}}}`,
		want: []Record{{Model: "gpt-4o", Requests: 5, Tokens: pricing.Tokens{Input: 7141, Output: 243}, RecordedCost: 0.01952, CostRecorded: true}},
	}, {
		name: "SWE-agent without model_stats",
		in:   `{"trajectory":[],"history":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"info":{}}`,
	}, {
		name: "Claude Code's costUSD",
		in: `{"type":"assistant","sessionId":"s1","costUSD":0.0123,"requestId":"q","message":{"id":"m","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":10,"output_tokens":5}}}
`,
		want: []Record{{ID: "m:q", Model: "claude-sonnet-4-5", Session: "s1", Tokens: pricing.Tokens{Input: 10, Output: 5}, RecordedCost: 0.0123, CostRecorded: true}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			recs, _ := read(t, tc.in)
			if len(recs) != len(tc.want) {
				t.Fatalf("%d records, want %d: %+v", len(recs), len(tc.want), recs)
			}
			for i := range tc.want {
				recs[i].Time = time.Time{}
				if recs[i] != tc.want[i] {
					t.Errorf("record %d: %+v, want %+v", i, recs[i], tc.want[i])
				}
			}
		})
	}
}

// TestTotalRecorded: a total counts a record of a session's totals as its
// requests, keeps the recorded cost of those that have one, and says the
// two costs differ only when every request has a recorded cost and they
// are more than Margin apart.
func TestTotalRecorded(t *testing.T) {
	var tot Total
	tot.Add(Record{Requests: 5, RecordedCost: 0.02, CostRecorded: true}, pricing.Price{Rates: pricing.Rates{Output: 1}}, true)
	tot.Add(Record{Tokens: pricing.Tokens{Output: 20000}}, pricing.Price{Rates: pricing.Rates{Output: 1}}, true) // $0.02, no recorded cost
	if tot.Requests != 6 || tot.RecordedRequests != 5 || tot.RecordedCost != 0.02 || tot.Recorded() || tot.Differs() {
		t.Errorf("%+v: want 6 requests, 5 recorded at $0.02, not all recorded, not compared", tot)
	}
	for _, tc := range []struct {
		estimate, recorded float64
		differs            bool
	}{
		{0.0537, 0.2631, true},
		{0.02028, 0.01952, false}, // 3.7% apart
		{1.00, 1.06, true},
		{0.00010, 0.00013, false}, // less than half a hundredth of a cent
	} {
		tt := Total{Requests: 3, Cost: tc.estimate, RecordedCost: tc.recorded, RecordedRequests: 3}
		if tt.Differs() != tc.differs {
			t.Errorf("estimate $%g, recorded $%g: differs %v, want %v", tc.estimate, tc.recorded, !tc.differs, tc.differs)
		}
	}
}

// TestCorpus: every corpus file's records add up to what its lines hold;
// a Claude Code session's responses count once each, a second pass with
// the same seen IDs counts nothing, and the IDs seen are copies.
func TestCorpus(t *testing.T) {
	for _, path := range testutil.CorpusFiles(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := transcript.Parse(data, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			recs := Read(data, tr.Format)
			ids := map[string]bool{}
			for _, r := range recs {
				if r.Tokens.Prompt() < 0 || r.Tokens.Output < 0 || r.Tokens.Input < 0 {
					t.Fatalf("negative tokens: %+v", r)
				}
				if r.ID != "" {
					if ids[r.ID] {
						t.Fatalf("response %s counted twice", r.ID)
					}
					ids[r.ID] = true
				}
			}
			if tr.Format == transcript.ClaudeCode && len(recs) == 0 {
				t.Errorf("no usage in a Claude Code session")
			}
			seen := map[string]bool{}
			first := Tally(recs, tr.Format, pricing.Default(), ByModel, seen)
			again := Tally(recs, tr.Format, pricing.Default(), ByModel, seen)
			n, recorded := 0, 0.0
			for _, r := range first {
				n += r.Requests
				recorded += r.RecordedCost
			}
			stood := 0
			for _, r := range recs {
				stood += max(r.Requests, 1)
			}
			if n != stood {
				t.Errorf("tally counts %d requests of %d", n, stood)
			}
			// A trajectory's own total is the sum of what it recorded of
			// each request.
			stats := jsonscan.Parse(string(data), 0).Get("info").Get("model_stats").Fields("instance_cost", "api_calls")
			if cost, ok := dollars(stats[0]); ok && (math.Abs(recorded-cost) > 1e-9 || n != stats[1].Int()) {
				t.Errorf("recorded $%.6f for %d requests, the trajectory's totals $%.6f for %d", recorded, n, cost, stats[1].Int())
			}
			for _, r := range again {
				if r.Requests > 0 && tr.Format == transcript.ClaudeCode {
					t.Errorf("a second pass counts %d requests again", r.Requests)
				}
			}
			// The ids seen are copies, not views of the records' text (the
			// file's): ctx-count --cost over a thousand sessions keeps their
			// ids and not their files.
			views := map[*byte]bool{}
			for _, r := range recs {
				views[unsafe.StringData(r.ID)] = true
			}
			for id := range seen {
				if views[unsafe.StringData(id)] {
					t.Errorf("the id %s seen is a view of the file's text", id)
				}
			}
		})
	}
}

// TestHourCache: the writes that most records show decide.
func TestHourCache(t *testing.T) {
	recs := []Record{{Tokens: pricing.Tokens{CacheWrite1h: 10}}, {Tokens: pricing.Tokens{CacheWrite: 5}}}
	if !HourCache(recs) || HourCache(recs[1:]) || HourCache(nil) {
		t.Error("HourCache is wrong")
	}
}

// TestAPIUsage: the usage objects of the APIs' responses, as their
// documentation shows them; a stream's message_delta updates what
// message_start said.
func TestAPIUsage(t *testing.T) {
	v := func(s string) jsonscan.Value { return jsonscan.Parse(s, 0) }
	start := Anthropic(v(`{"input_tokens":12,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"cache_creation":{"ephemeral_5m_input_tokens":500,"ephemeral_1h_input_tokens":1500},"output_tokens":1,"service_tier":"standard"}`), pricing.Tokens{})
	if want := (pricing.Tokens{Input: 12, CacheWrite: 500, CacheWrite1h: 1500, CacheRead: 30000, Output: 1}); start != want {
		t.Errorf("message_start: %+v, want %+v", start, want)
	}
	if got, want := Anthropic(v(`{"output_tokens":321}`), start), (pricing.Tokens{Input: 12, CacheWrite: 500, CacheWrite1h: 1500, CacheRead: 30000, Output: 321}); got != want {
		t.Errorf("message_delta with the output only: %+v, want %+v", got, want)
	}
	if got, want := Anthropic(v(`{"input_tokens":12,"cache_creation_input_tokens":2100,"cache_read_input_tokens":30000,"output_tokens":400}`), start), (pricing.Tokens{Input: 12, CacheWrite: 2100, CacheRead: 30000, Output: 400}); got != want {
		t.Errorf("message_delta with every count: %+v, want %+v", got, want)
	}
	if got, want := Chat(v(`{"prompt_tokens":1000,"completion_tokens":50,"total_tokens":1050,"prompt_tokens_details":{"cached_tokens":800}}`)), (pricing.Tokens{Input: 200, CacheRead: 800, Output: 50}); got != want {
		t.Errorf("Chat Completions: %+v, want %+v", got, want)
	}
	if got, want := Chat(v(`{"prompt_tokens":1000,"completion_tokens":50,"prompt_cache_hit_tokens":900,"prompt_cache_miss_tokens":100}`)), (pricing.Tokens{Input: 100, CacheRead: 900, Output: 50}); got != want {
		t.Errorf("DeepSeek: %+v, want %+v", got, want)
	}
	got, reasoning := Responses(v(`{"input_tokens":5000,"input_tokens_details":{"cached_tokens":4096},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":200},"total_tokens":5300}`))
	if want := (pricing.Tokens{Input: 904, CacheRead: 4096, Output: 300}); got != want || reasoning != 200 {
		t.Errorf("Responses: %+v and %d reasoning, want %+v and 200", got, reasoning, want)
	}
}
