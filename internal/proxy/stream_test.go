package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/pricing"
)

// syncBuffer is a ledger's file in memory.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// entries reads the ledger written so far.
func (s *syncBuffer) entries(t testing.TB) []Entry {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	es, skipped, err := ReadLedger(bytes.NewReader(s.b.Bytes()))
	if err != nil || len(skipped) > 0 {
		t.Fatalf("the ledger: %v; lines %v skipped", err, skipped)
	}
	return es
}

// streams are answers as the APIs stream them, in the pieces an upstream
// flushes: each piece must reach the client before the next is sent.
var streams = []struct {
	name   string
	api    API
	path   string
	body   string
	pieces []string
	usage  pricing.Tokens
	model  string
}{
	{
		name: "messages", api: Messages, path: "/v1/messages?beta=true",
		body: `{"model":"claude-sonnet-4-5","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		pieces: []string{
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\",\"content\":[],\"usage\":{\"input_tokens\":3,\"cache_creation_input_tokens\":1200,\"cache_read_input_tokens\":4000,\"output_tokens\":1}}}\n\n",
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me think.\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCkYIBxgCKkDz0hZ1p3u4==\"}}\n\n",
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
			"event: ping\ndata: {\"type\": \"ping\"}\n\n",
			// A character of two bytes, split between two pieces.
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"caf\xc3",
			"\xa9 \xe2\x9c\x93\"}}\n\n",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":57}}\n\n",
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		},
		usage: pricing.Tokens{Input: 3, CacheWrite: 1200, CacheRead: 4000, Output: 57}, model: "claude-sonnet-4-5-20250929",
	},
	{
		name: "responses", api: Responses, path: "/v1/responses",
		body: `{"model":"gpt-5","stream":true,"input":[{"role":"user","content":"hi"}]}`,
		pieces: []string{
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"model\":\"gpt-5-2025-08-07\",\"status\":\"in_progress\"}}\n\n",
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"h\xc3",
			"\xa9llo\"}\n\n",
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"model\":\"gpt-5-2025-08-07\",\"status\":\"completed\",\"usage\":{\"input_tokens\":5000,\"input_tokens_details\":{\"cached_tokens\":4096},\"output_tokens\":300,\"output_tokens_details\":{\"reasoning_tokens\":200}}}}\n\n",
		},
		usage: pricing.Tokens{Input: 904, CacheRead: 4096, Output: 300}, model: "gpt-5-2025-08-07",
	},
	{
		name: "chat", api: Chat, path: "/v1/chat/completions",
		body: `{"model":"deepseek-chat","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`,
		pieces: []string{
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"deepseek-chat\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}],\"usage\":null}\n\n",
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"deepseek-chat\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xe4\xbd",
			"\xa0\xe5\xa5\xbd\"}}],\"usage\":null}\n\n",
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"deepseek-chat\",\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":50,\"prompt_cache_hit_tokens\":900,\"prompt_cache_miss_tokens\":100}}\n\n",
			"data: [DONE]\n\n",
		},
		usage: pricing.Tokens{Input: 100, CacheRead: 900, Output: 50}, model: "deepseek-chat",
	},
}

// TestStreamPieceByPiece: an answer streams through piece by piece, each
// piece reaching the client, byte for byte, before the upstream sends the
// next (the upstream waits for the client's word): thinking and signature
// deltas, pings, a character split across pieces, a mid-stream error
// event. The ledger has the usage the stream carried.
func TestStreamPieceByPiece(t *testing.T) {
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			next := make(chan struct{})
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
				w.Header().Set("Cache-Control", "no-cache")
				w.WriteHeader(http.StatusOK)
				rc := http.NewResponseController(w)
				for _, piece := range s.pieces {
					io.WriteString(w, piece)
					rc.Flush()
					select {
					case <-next: // the client has it
					case <-r.Context().Done():
						return
					}
				}
			})
			cfg := config(t, up)
			ledger := &syncBuffer{}
			cfg.Ledger = NewLedger(ledger, nil)
			proxyURL, logs := serve(t, cfg)
			// The deadline only ends a test that would otherwise hang on a
			// proxy that holds the stream back.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxyURL+s.path, strings.NewReader(s.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for i, piece := range s.pieces {
				got := make([]byte, len(piece))
				if _, err := io.ReadFull(resp.Body, got); err != nil {
					t.Fatalf("piece %d: %v", i, err)
				}
				if string(got) != piece {
					t.Fatalf("piece %d: got %q, want %q", i, got, piece)
				}
				next <- struct{}{}
			}
			if rest, err := io.ReadAll(resp.Body); err != nil || len(rest) > 0 {
				t.Errorf("after the stream: %q, %v", rest, err)
			}
			logs.settle()
			es := ledger.entries(t)
			if len(es) != 1 || es[0].Usage == nil || *es[0].Usage != s.usage || es[0].Model != s.model || es[0].API != s.api {
				t.Errorf("the ledger: %+v, want usage %+v of %s", es, s.usage, s.model)
			}
			for _, line := range logs.all() {
				t.Errorf("logged: %s", line)
			}
		})
	}
}

// TestStreamBreaksOff: an upstream that breaks off mid-stream breaks the
// client's answer off too: the client reads an error, not the end of a
// finished answer; the proxy logs one line.
func TestStreamBreaksOff(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, streams[0].pieces[0])
		http.NewResponseController(w).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	})
	proxyURL, logs := serve(t, config(t, up))
	resp, err := http.Post(proxyURL+"/v1/messages", "application/json", strings.NewReader(streams[0].body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	logs.settle()
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") {
		t.Errorf("the client read %q and %v, want the answer broken off", got, err)
	}
	if !strings.HasPrefix(string(got), streams[0].pieces[0]) {
		t.Errorf("the client did not get what came before the break: %q", got)
	}
	if lines := logs.all(); len(lines) != 1 || !strings.Contains(lines[0], "broke off") {
		t.Errorf("logged %q", lines)
	}
}

// TestLongEvent: one event of an answer whose data runs to 96 MiB in
// lines of 1 KiB (the cap on a line does not bound it) reaches the client
// whole, while the meter keeps no more of it than the 16 MiB an event's
// data may hold: the proxy allocates a fraction of the event's size. The
// usage of the chunk after it is read.
func TestLongEvent(t *testing.T) {
	const lines = 96 << 10
	line := "data: " + strings.Repeat("x", 1017) + "\n"
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range lines {
			io.WriteString(w, line)
		}
		io.WriteString(w, "\ndata: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-5\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	})
	cfg := config(t, up)
	ledger := &syncBuffer{}
	cfg.Ledger = NewLedger(ledger, nil)
	proxyURL, logs := serve(t, cfg)
	body := []byte(`{"model":"gpt-5","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	req, _ := http.NewRequest(http.MethodPost, proxyURL+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	logs.settle()
	runtime.ReadMemStats(&after)
	if err != nil || n < lines*int64(len(line)) {
		t.Errorf("the client read %d bytes: %v", n, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("%d MiB allocated for an answer of %d MiB", alloc>>20, n>>20)
	}
	if es := ledger.entries(t); len(es) != 1 || es[0].Usage == nil || es[0].Usage.Input != 7 {
		t.Errorf("the ledger: %+v", es)
	}
	for _, line := range logs.all() {
		t.Errorf("logged %s", line)
	}
}
