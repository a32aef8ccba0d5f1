package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzDecode: any answer body gives an answer with text, or a typed
// failure; never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image_url"}]},"finish_reason":"length"}]}`,
		`{"choices":[{"message":{"content":null,"reasoning_content":"x"}}]}`,
		`{"choices":[]}`, `[]`, `null`, `{"choices":[{"message":{"content":"<think>a</think>b"}}]}`,
	} {
		f.Add([]byte(s))
	}
	c := &Client{cfg: Config{Cap: 10}}
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := c.decode(data)
		switch {
		case err == nil && strings.TrimSpace(resp.Content) == "":
			t.Errorf("an answer without text: %q", data)
		case err != nil && err.Failure == "":
			t.Errorf("a failure without a kind: %v", err)
		}
	})
}

// FuzzRetryAfter: any header gives a wait of 0 or more, or none.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, h string) {
		if p, ok := retryAfter(h, now); p.d < 0 || !ok && p != (pause{}) {
			t.Errorf("retryAfter(%q) = %+v, %v", h, p, ok)
		}
	})
}

// FuzzCacheFile: whatever the cache file holds, it opens, and what a Put
// adds is read back by the next open.
func FuzzCacheFile(f *testing.F) {
	f.Add([]byte(`{"model":"m","version":"v","hash":"h","answer":"a"}` + "\n" + `{"model":`))
	f.Add([]byte("\x00\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "llm.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := OpenFileCache(path)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		k := Key{Model: "m", Version: "v", Hash: "fuzz"}
		if err := c.Put(k, "answer\nwith a newline"); err != nil {
			t.Fatal(err)
		}
		c.Close()
		c, err = OpenFileCache(path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if a, ok := c.Get(k); !ok || a != "answer\nwith a newline" {
			t.Errorf("after a put: %q, %v", a, ok)
		}
	})
}
