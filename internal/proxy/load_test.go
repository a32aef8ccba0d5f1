package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
)

// history is the Messages request body of a session of its own before
// its k-th model turn: each turn a shell call whose output runs to a few
// thousand lines, half of them re-runs of an earlier command.
func history(session, k int) []byte {
	msgs := []any{map[string]any{"role": "user", "content": fmt.Sprintf("Session %d: make the tests pass.", session)}}
	for j := range k {
		id := fmt.Sprintf("toolu_load_%04d_%06d", session, j)
		cmd := fmt.Sprintf("go test ./pkg%d/...", j/2) // every command twice
		msgs = append(msgs, map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}})
		var out strings.Builder
		for line := range 40 + 30*(j%5) {
			fmt.Fprintf(&out, "=== RUN   TestCase%d_%d\n--- PASS: TestCase%d_%d (0.00s)\n", j/2, line, j/2, line)
		}
		out.WriteString("ok  \tpkg\t0.012s\n")
		msgs = append(msgs, map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": out.String()}}})
	}
	body, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
		"metadata": map[string]any{"user_id": fmt.Sprintf(`{"session_id":"load-%d"}`, session)},
		"system":   []any{map[string]any{"type": "text", "text": "You are a coding agent.", "cache_control": map[string]any{"type": "ephemeral"}}},
		"messages": msgs})
	return body
}

// sseAnswer is the stream the load test's upstream answers a body with.
func sseAnswer(body []byte) string {
	return fmt.Sprintf("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":%d,\"output_tokens\":1}}}\n\n", len(body)/4) +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":12}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
}

// TestLoad: 32 sessions at once through one proxy on loopback, each its
// own conversation of streamed requests: every request arrives upstream
// compacted, every answer comes back whole, and the ledger has every
// request under its session.
func TestLoad(t *testing.T) {
	const sessions, requests = 32, 12
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseAnswer(body))
	})
	cfg := config(t, up)
	ledger := &syncBuffer{}
	cfg.Ledger = NewLedger(ledger, nil)
	proxyURL, logs := serve(t, cfg)
	// The deadline bounds a run that would otherwise hang; it measures
	// nothing.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := range sessions {
		wg.Go(func() {
			for k := range requests {
				body := history(s, k)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxyURL+"/v1/messages", strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				answer, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(answer), "event: message_start") || !strings.HasSuffix(string(answer), "{\"type\":\"message_stop\"}\n\n") {
					errs <- fmt.Errorf("session %d, request %d: %d %v %.100q", s, k, resp.StatusCode, err, answer)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	logs.settle()
	got := up.got()
	if len(got) != sessions*requests {
		t.Fatalf("the upstream got %d requests, want %d", len(got), sessions*requests)
	}
	compacted := 0
	for _, r := range got {
		if strings.Contains(string(r.Body), "[ctx-") {
			compacted++
		}
	}
	if compacted < sessions*(requests-3) {
		t.Errorf("%d of %d requests compacted", compacted, len(got))
	}
	rep := Summarize(ledger.entries(t))
	if len(rep.Sessions) != sessions || rep.Total.Requests != sessions*requests || rep.Total.Unmetered != 0 {
		t.Errorf("the ledger: %d sessions, %d requests (%d without usage)", len(rep.Sessions), rep.Total.Requests, rep.Total.Unmetered)
	}
	for _, s := range rep.Sessions {
		if s.Requests != requests || s.Saved <= 0 {
			t.Errorf("session %s: %d requests, saved $%.4f", s.Session, s.Requests, s.Saved)
		}
	}
	for _, line := range logs.all() {
		t.Errorf("logged %s", line)
	}
}

// TestMemoryBounded: what the proxy keeps from request to request (the
// outputs it archived, the summaries it made, the ledger's conversations)
// does not keep the requests' bodies alive: after 32 sessions of 26
// growing requests (235 MB of bodies), the live heap is a few megabytes.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("800 requests")
	}
	cfg := config(t, newUpstream(t, nil))
	var err error
	if cfg.Archive, err = archive.Open(filepath.Join(t.TempDir(), "archive.db")); err != nil {
		t.Fatal(err)
	}
	defer cfg.Archive.Close()
	cfg.Ledger = NewLedger(discard{}, nil)
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 32 {
		for k := 0; k <= 100; k += 4 {
			st := p.compact(Messages, http.Header{}, history(100+s, k), "memory")
			if err := p.cfg.Ledger.record(st, metered{}, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 64<<20 {
		t.Errorf("%d MB live after the load", m.HeapAlloc>>20)
	}
	runtime.KeepAlive(p)
}
