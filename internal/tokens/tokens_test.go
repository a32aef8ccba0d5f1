package tokens

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCountKnownValues(t *testing.T) {
	// Special-token text counts as the ordinary pieces it is made of.
	cases := []struct {
		enc, text string
		want      int
	}{
		{"cl100k_base", "hello world", 2},
		{"o200k_base", "hello world", 2},
		{"cl100k_base", "", 0},
		{"cl100k_base", "<|endoftext|>", 7},
		{"o200k_base", "<|endoftext|>", 7},
		{"approx", "abcdefgh", 2},
		{"approx", "abcdefghi", 3},
		{"approx", "", 0},
	}
	for _, c := range cases {
		ctr, err := New(c.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := ctr.Count(c.text); got != c.want {
			t.Errorf("%s.Count(%q) = %d, want %d", c.enc, c.text, got, c.want)
		}
	}
}

func TestNewRejectsUnknown(t *testing.T) {
	if _, err := New("p50k_nope"); err == nil {
		t.Fatal("New accepted an unknown encoding")
	}
	for _, n := range Names() {
		c, err := New(n)
		if err != nil {
			t.Fatalf("New(%q): %v", n, err)
		}
		if c.Name() != n {
			t.Errorf("New(%q).Name() = %q", n, c.Name())
		}
	}
}

// TestOffline proves nothing is downloaded: with no cache dir and a proxy
// that refuses every connection, counting still works.
func TestOffline(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TIKTOKEN_CACHE_DIR", filepath.Join(dir, "none"))
	t.Setenv("DATA_GYM_CACHE_DIR", filepath.Join(dir, "none"))
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Count("offline counting works"); n == 0 {
			t.Fatalf("%s counted 0 tokens", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Fatal("a cache dir was created: something was fetched")
	}
}
