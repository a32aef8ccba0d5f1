package archive

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

var _ llm.Cache = LLMCache{}

// TestLLMCache: an answer put is got back by its key alone, in this run and
// in the next; a later answer to the same request replaces it; many
// goroutines put at once and lose nothing; a read-only archive gives
// answers but takes none.
func TestLLMCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "archive.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c := a.LLMCache()
	k := llm.Key{Model: "qwen2.5-coder:1.5b", Version: "3", Hash: "ab12"}
	if _, ok := c.Get(k); ok {
		t.Fatal("an empty cache has an answer")
	}
	if err := c.Put(k, "first"); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(k, "Reads store.go: \"quoted\"\nnext line"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Put(llm.Key{Model: "m", Version: "3", Hash: strings.Repeat("x", i+1)}, strings.Repeat("y", i+1)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	a.Close()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rc := ro.LLMCache()
	if got, ok := rc.Get(k); !ok || got != "Reads store.go: \"quoted\"\nnext line" {
		t.Errorf("Get = %q, %v; want the later answer", got, ok)
	}
	for _, other := range []llm.Key{{Model: "other", Version: "3", Hash: "ab12"}, {Model: k.Model, Version: "4", Hash: "ab12"}, {Model: k.Model, Version: "3", Hash: "ab13"}} {
		if got, ok := rc.Get(other); ok {
			t.Errorf("Get(%+v) = %q: another key's answer", other, got)
		}
	}
	for i := range 20 {
		if got, ok := rc.Get(llm.Key{Model: "m", Version: "3", Hash: strings.Repeat("x", i+1)}); !ok || got != strings.Repeat("y", i+1) {
			t.Errorf("answer %d lost: %q, %v", i, got, ok)
		}
	}
	if err := rc.Put(k, "x"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Put on a read-only archive: %v", err)
	}
}

// TestMigrateLLMAnswers: an archive of schema version 1, written before the
// answers' table, is read as it is, and upgraded on its first write, what
// it held kept.
func TestMigrateLLMAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "archive.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := transcripttest.Parse(t, []byte(`[{"role":"assistant","content":null,"tool_calls":[{"id":"call_aaaaaaaaaaaaaaaaaaaaaaaa","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_aaaaaaaaaaaaaaaaaaaaaaaa","content":"kept"}]`))
	store(t, a, tr)
	// Back to version 1, as the first release wrote it.
	if _, err := a.db.Exec(`DROP TABLE llm_answers; PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	a.Close()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("a version 1 archive is not read: %v", err)
	}
	if rec, err := ro.Get(tr.Results[0].CallID, ""); err != nil || *rec.Output != "kept" {
		t.Errorf("Get from a version 1 archive: %v", err)
	}
	ro.Close()

	a, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var v int
	if err := a.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) || v < 2 {
		t.Fatalf("schema version %d after the upgrade (%v), want %d", v, err, len(migrations))
	}
	if err := a.LLMCache().Put(llm.Key{Model: "m", Version: "1", Hash: "h"}, "answer"); err != nil {
		t.Fatal(err)
	}
	if rec, err := a.Get(tr.Results[0].CallID, ""); err != nil || *rec.Output != "kept" {
		t.Errorf("Get after the upgrade: %v", err)
	}
	var n int
	if err := a.db.QueryRow(`SELECT count(*) FROM llm_answers`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d answers (%v)", n, err)
	}
}
