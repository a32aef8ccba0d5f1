//go:build unix

package hookstate

import (
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestStatePrivate: a hook's state (what a session read and ran), and the
// directories made for it, are the user's alone whatever the umask.
func TestStatePrivate(t *testing.T) {
	testutil.Umask0(t)
	dir := filepath.Join(t.TempDir(), "ctxkit", "hooks")
	t.Setenv("CTX_STATE_DIR", dir)
	if err := Update("test", "session.jsonl", transcript.ClaudeCode, func(n int) int { return n + 1 }); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "test-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("state files %q, %v; want one", files, err)
	}
	testutil.Private(t, filepath.Dir(dir), dir, files[0])
}
