//go:build unix

package safefile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestPrivate: what holds a user's data is made 0700 (directories) and 0600
// (files) whatever the umask, by each way of making it; a file that
// exists keeps its mode.
func TestPrivate(t *testing.T) {
	testutil.Umask0(t)
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	if err := safefile.MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	testutil.Private(t, filepath.Join(root, "a"), dir)

	opened := filepath.Join(root, "c", "ledger.jsonl")
	f, err := safefile.OpenPrivate(opened, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	written := filepath.Join(root, "d", "state.json")
	if err := safefile.WritePrivate(written, strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	unlock, err := safefile.Lock(filepath.Join(root, "e", "playbook.json.lock"))
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	testutil.Private(t, filepath.Dir(opened), opened, filepath.Dir(written), written,
		filepath.Join(root, "e"), filepath.Join(root, "e", "playbook.json.lock"))

	// A file that exists keeps its mode: the user chose it.
	shared := filepath.Join(root, "shared.json")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := safefile.WritePrivate(shared, strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(shared); st.Mode().Perm() != 0o640 {
		t.Errorf("a file rewritten has mode %v, want the 0640 it had", st.Mode().Perm())
	}
	// Write, for the user's own outputs, leaves the mode to the umask.
	public := filepath.Join(root, "f", "out.jsonl")
	if err := safefile.Write(public, strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(public); st.Mode().Perm() != 0o666 {
		t.Errorf("Write made a file of mode %v, want 0666 under umask 0", st.Mode().Perm())
	}
}
