//go:build unix

package proxy

import (
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestLedgerPrivate: the ledger (every request's model, session and cost),
// and the directories made for it, are the user's alone whatever the
// umask. (The proxy's archive is archive.Open's: TestOpenPrivate.)
func TestLedgerPrivate(t *testing.T) {
	testutil.Umask0(t)
	dir := filepath.Join(t.TempDir(), "ctxkit", "sub")
	path := filepath.Join(dir, "proxy-ledger.jsonl")
	l, err := OpenLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	testutil.Private(t, filepath.Dir(dir), dir, path)
}
