package proxy

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// chatHistory is a Chat Completions body: the task, then turns shell calls
// with short ids (call_0, call_1, …, as many chat agents number them),
// each output a long log that says which conversation it is.
func chatHistory(conv string, turns int) []byte {
	msgs := []any{map[string]any{"role": "system", "content": "You are a coding agent."},
		map[string]any{"role": "user", "content": "Make the tests pass."}}
	for i := range turns {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"make test"}`}}}})
		var out strings.Builder
		for line := range 3000 {
			fmt.Fprintf(&out, "conversation %s, run %d: test_%04d passed\n", conv, i, line)
		}
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": out.String()})
	}
	body, _ := json.Marshal(map[string]any{"model": "gpt-5", "messages": msgs})
	return body
}

// TestHandleCollision: two conversations with the same opening and the
// same short tool ids (one session key, call_0 and call_1 in both), one
// after the other through one proxy with an archive: the second is
// compacted as the first was, and every marker of each cites an id that
// gives back that conversation's own output; nothing is logged.
func TestHandleCollision(t *testing.T) {
	up := newUpstream(t, nil)
	cfg := config(t, up)
	db := filepath.Join(t.TempDir(), "archive.db")
	var err error
	if cfg.Archive, err = archive.Open(db); err != nil {
		t.Fatal(err)
	}
	defer cfg.Archive.Close()
	proxyURL, logs := serve(t, cfg)
	for _, conv := range []string{"A", "B"} {
		for turns := 1; turns <= 3; turns++ {
			body := chatHistory(conv, turns)
			post(t, proxyURL, "/v1/chat/completions", body, nil)
			sent := transcripttest.Parse(t, up.last(t).Body)
			client := transcripttest.Parse(t, body)
			a, err := archive.OpenReadOnly(db)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range sent.Results {
				id := marker.CitedIn(r.Text())
				if id == "" {
					t.Errorf("%s, %d turns: result %d not replaced", conv, turns, i)
					continue
				}
				if rec, err := a.Get(id, ""); err != nil || *rec.Output != client.Results[i].Text() {
					t.Errorf("%s, %d turns: result %d cites %s, which gives back another output (%v)", conv, turns, i, id, err)
				}
			}
			a.Close()
		}
	}
	logs.settle()
	for _, line := range logs.all() {
		t.Errorf("logged %s", line)
	}
}

// TestHandleConflict: a result whose handle the archive holds with another
// output (an agent that used a call id twice in a session) is sent as it
// came, and only it: the request's other results are replaced, and one
// line says which.
func TestHandleConflict(t *testing.T) {
	up := newUpstream(t, nil)
	cfg := config(t, up)
	var err error
	if cfg.Archive, err = archive.Open(filepath.Join(t.TempDir(), "archive.db")); err != nil {
		t.Fatal(err)
	}
	defer cfg.Archive.Close()
	proxyURL, logs := serve(t, cfg)
	first := history(7, 6)
	post(t, proxyURL, "/v1/messages", first, nil)
	// The same session and ids, the third output another.
	second := []byte(strings.Replace(string(first), "TestCase1_0\\n", "TestCase1_0 (again)\\n", 1))
	if string(second) == string(first) {
		t.Fatal("the second body is the first")
	}
	post(t, proxyURL, "/v1/messages", second, nil)
	sent := transcripttest.Parse(t, up.last(t).Body)
	client := transcripttest.Parse(t, second)
	changed := 0
	for i, r := range sent.Results {
		switch {
		case client.Results[i].CallID == "toolu_load_0007_000002":
			if r.Text() != client.Results[i].Text() {
				t.Errorf("the conflicting result was replaced: %.200q", r.Text())
			}
		case r.Text() != client.Results[i].Text():
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("nothing else replaced")
	}
	logs.settle()
	if lines := logs.all(); len(lines) != 1 || !strings.Contains(lines[0], "1 result sent as received: the archive holds other outputs under their handles (toolu_load_0007_000002)") {
		t.Errorf("logged %q", lines)
	}
}
