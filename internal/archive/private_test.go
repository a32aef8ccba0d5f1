//go:build unix

package archive

import (
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestOpenPrivate: a new archive, its -wal and -shm files and the
// directories made for it are the user's alone, whatever the umask: they
// hold whole tool outputs.
func TestOpenPrivate(t *testing.T) {
	testutil.Umask0(t)
	dir := filepath.Join(t.TempDir(), "ctxkit", "sub")
	path := filepath.Join(dir, "archive.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	store(t, a, transcripttest.Parse(t, []byte(`[
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"env\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"API_KEY=secret"}]`)))
	testutil.Private(t, filepath.Dir(dir), dir, path, path+"-wal", path+"-shm")
}
