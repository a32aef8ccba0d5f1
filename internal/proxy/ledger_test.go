package proxy

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestUncompacted: the tokens the cache model reads more as the client
// sent the request are cache reads where the API caches, input where it
// does not; those it writes more are billed as the API bills a miss: a
// 5-minute or an hour's write (Messages with cache_control), input
// (Messages without, the OpenAI APIs).
func TestUncompacted(t *testing.T) {
	u := pricing.Tokens{Input: 3, CacheWrite: 1000, CacheRead: 20000, Output: 50}
	client, sent := Cached{Read: 30000, Written: 500}, Cached{Read: 19000, Written: 1500} // the proxy's replacement broke the cache
	for _, c := range []struct {
		kind cacheKind
		want pricing.Tokens
	}{
		{cacheNone, pricing.Tokens{Input: 3 + 11000 - 1000, CacheWrite: 1000, CacheRead: 20000, Output: 50}},
		{cache5m, pricing.Tokens{Input: 3, CacheWrite: 0, CacheRead: 31000, Output: 50}},
		{cache1h, pricing.Tokens{Input: 3, CacheWrite: 1000, CacheWrite1h: 0, CacheRead: 31000, Output: 50}},
		{cacheAuto, pricing.Tokens{Input: 0, CacheWrite: 1000, CacheRead: 31000, Output: 50}},
	} {
		if got := uncompacted(u, c.kind, client, sent); got != c.want {
			t.Errorf("kind %d: %+v, want %+v", c.kind, got, c.want)
		}
	}
}

// TestLedgerConversations: each conversation's request is priced after the
// one before it in that conversation, however they interleave; a ledger
// started anew knows none.
func TestLedgerConversations(t *testing.T) {
	var b bytes.Buffer
	l := NewLedger(&b, nil)
	p := func(tokens ...int) replay.Prompt {
		out := replay.Prompt{Tokens: tokens}
		for i := range tokens {
			out.Keys = append(out.Keys, uint64(i+1))
		}
		return out
	}
	record := func(conv string, prompt replay.Prompt) Entry {
		st := &step{api: Messages, session: "s", conv: conv, client: prompt, sent: prompt, measured: true, cache: cache5m}
		if err := l.record(st, metered{found: true, tokens: pricing.Tokens{CacheWrite: 10}}, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		es, skipped, err := ReadLedger(&b)
		if err != nil || len(es) != 1 || len(skipped) > 0 {
			t.Fatalf("%v, %d entries, lines %v skipped", err, len(es), skipped)
		}
		return es[0]
	}
	for _, c := range []struct {
		conv   string
		prompt replay.Prompt
		want   Cached
	}{
		{"main", p(10, 20), Cached{0, 30}},
		{"side", p(5), Cached{0, 5}},
		{"main", p(10, 20, 30), Cached{30, 30}},
		{"side", p(5, 6), Cached{5, 6}},
	} {
		if e := record(c.conv, c.prompt); e.Client != c.want || e.Sent != c.want {
			t.Errorf("%s %v: client %+v, sent %+v; want %+v", c.conv, c.prompt.Tokens, e.Client, e.Sent, c.want)
		}
	}
	l = NewLedger(&b, nil)
	if e := record("main", p(10, 20, 30)); e.Client != (Cached{0, 60}) {
		t.Errorf("after a restart: %+v", e.Client)
	}
}

// TestReport pins the report of a ledger: sessions in the order they
// started, the total, the requests without usage, as a table and as JSON.
func TestReport(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 11, 25, 10, min, 0, 0, time.UTC) }
	tk := func(in, w, r, out int64) *pricing.Tokens {
		return &pricing.Tokens{Input: in, CacheWrite: w, CacheRead: r, Output: out}
	}
	entries := []Entry{
		{Time: at(0), Session: "a11432aa-9daf-476c-90e8-39dac01b2c17", API: Messages, Model: "claude-opus-4-6",
			Usage: tk(3, 20000, 0, 300), Uncompacted: tk(3, 20000, 0, 300), Cost: 0.1325, UncompactedCost: 0.1325},
		{Time: at(5), Session: "019e2a7c-5d1f-7b20-9c44-1f0e8a6b3d21", API: Responses, Model: "gpt-5",
			Usage: tk(1000, 0, 9000, 200), Uncompacted: tk(1000, 0, 30000, 200), Cost: 0.004375, UncompactedCost: 0.007, Replaced: 4},
		{Time: at(1), Session: "a11432aa-9daf-476c-90e8-39dac01b2c17", API: Messages, Model: "claude-opus-4-6", Replaced: 2,
			Usage: tk(3, 4000, 18000, 250), Uncompacted: tk(3, 1000, 40000, 250), Cost: 0.040265, UncompactedCost: 0.032515},
		{Time: at(2), Session: "a11432aa-9daf-476c-90e8-39dac01b2c17", API: Messages, Model: "claude-opus-4-6", Replaced: 3,
			Usage: tk(3, 500, 22000, 100), Uncompacted: tk(3, 500, 60000, 100), Cost: 0.016640, UncompactedCost: 0.035640},
		{Time: at(7), Session: "anon-5c1b0e2f8a7d4c33", API: Chat, Model: "deepseek-chat"},
	}
	rep := Summarize(entries)
	var table, js bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "report.txt"), table.Bytes())
	testutil.Golden(t, filepath.Join("testdata", "report.json"), js.Bytes())
	if s := rep.Sessions[0]; s.Requests != 3 || s.Replaced != 3 || !nearly(s.Saved, 0.2006550-0.189405) {
		t.Errorf("the first session: %+v", s)
	}
}
