package archive

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestOpenBadArchives: a missing, corrupt, foreign or newer archive is one
// clear error, from either Open.
func TestOpenBadArchives(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	if err := os.WriteFile(corrupt, []byte(strings.Repeat("not a database ", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	newer := filepath.Join(dir, "newer.db")
	a, err := Open(newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	a.Close()

	cases := []struct {
		path     string
		readOnly bool
		want     error
	}{
		{filepath.Join(dir, "missing.db"), true, ErrMissing},
		{corrupt, true, ErrNotArchive},
		{corrupt, false, ErrNotArchive},
		{foreign, true, ErrNotArchive},
		{foreign, false, ErrNotArchive},
		{newer, true, ErrNewerSchema},
		{newer, false, ErrNewerSchema},
	}
	for _, c := range cases {
		open := Open
		if c.readOnly {
			open = OpenReadOnly
		}
		a, err := open(c.path)
		if err == nil {
			a.Close()
		}
		if !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), c.path+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s (read-only %v): %v; want one line naming the file: %v", filepath.Base(c.path), c.readOnly, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("OpenReadOnly created the missing archive")
	}
}

// TestReadOnlyArchive reads an archive in a directory and file the user
// cannot write. (As root, permissions do not bind, and this checks less.)
func TestReadOnlyArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	path := filepath.Join(dir, "archive.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := transcripttest.Parse(t, []byte(`[{"role":"assistant","content":null,"tool_calls":[{"id":"call_aaaaaaaaaaaaaaaaaaaaaaaa","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_aaaaaaaaaaaaaaaaaaaaaaaa","content":"kept"}]`))
	store(t, a, tr)
	a.Close()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before, _ := os.ReadDir(dir)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rec, err := ro.Get("call_aaaaaaaaaaaaaaaaaaaaaaaa", "")
	if err != nil || *rec.Output != "kept" {
		t.Fatalf("Get: %v, %v", rec.Output, err)
	}
	if _, err := ro.Store(Executions(tr, tr.Results)); err == nil {
		t.Error("a read-only archive took a write")
	}
	ro.Close()
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("reading left files behind: %d entries, were %d", len(after), len(before))
	}
}
