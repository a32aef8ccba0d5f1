//go:build unix

package llm

import (
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestCachePrivate: the cache of a model's answers (summaries of the
// user's tool outputs), and the directories made for it, are the user's
// alone whatever the umask.
func TestCachePrivate(t *testing.T) {
	testutil.Umask0(t)
	dir := filepath.Join(t.TempDir(), "ctxkit", "sub")
	path := filepath.Join(dir, "llm.jsonl")
	c, err := OpenFileCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Put(Key{Model: "m", Version: "v", Hash: "h"}, "a summary"); err != nil {
		t.Fatal(err)
	}
	testutil.Private(t, filepath.Dir(dir), dir, path)
}
