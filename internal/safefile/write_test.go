//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteSyncsBeforeRename: the data reaches the disk before the rename
// makes it the file, and a failure there leaves the file as it was, removes
// the temporary file and names the file, not the temporary one.
func TestWriteSyncsBeforeRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var synced []string
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(f *os.File) error {
		synced = append(synced, f.Name())
		if got, _ := os.ReadFile(path); string(got) != "old" {
			t.Errorf("the file holds %q before the sync, want the old content", got)
		}
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
	}
	err := Write(path, strings.NewReader("new"))
	if err == nil || err.Error() != path+": input/output error" {
		t.Errorf("error %q, want %q", err, path+": input/output error")
	}
	if len(synced) != 1 || !strings.HasPrefix(filepath.Base(synced[0]), ".s.jsonl.ctx-") {
		t.Errorf("synced %q, want one temporary file", synced)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the file alone", len(entries))
	}

	syncFile = (*os.File).Sync
	if err := Write(path, strings.NewReader("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("the file holds %q, want new", got)
	}
}

// TestWriteKeepsOwner: as root, the file written keeps its owner and group
// (another user's), its mode and its set-group-id bit.
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 4321, 8765); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, strings.NewReader("new")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 4321 || sys.Gid != 8765 {
		t.Errorf("owner %d:%d, want 4321:8765", sys.Uid, sys.Gid)
	}
	if st.Mode() != 0o640|fs.ModeSetgid {
		t.Errorf("mode %v, want %v", st.Mode(), 0o640|fs.ModeSetgid)
	}
}

// TestWriteRefusesNonRegular: a directory where the file should be is not
// replaced.
func TestWriteRefusesNonRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(path, strings.NewReader("new"))
	if err == nil || !strings.HasSuffix(err.Error(), "s.jsonl: not a regular file") {
		t.Errorf("error %v, want a failure naming the file", err)
	}
}
