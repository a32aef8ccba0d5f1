//go:build unix

package testutil

import (
	"os"
	"syscall"
	"testing"

	"github.com/ctxkit/ctxkit/internal/safefile"
)

// Umask0 sets the process's umask to 0 until the test ends, so that a mode
// the test then sees is the one the code asked for, not one the umask
// narrowed. The umask is the process's: a test that calls it must not run
// in parallel with one that checks modes.
func Umask0(t testing.TB) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
}

// Private fails the test unless every path is the user's alone: a
// directory safefile.PrivateDir, anything else safefile.PrivateFile.
func Private(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Error(err)
			continue
		}
		want := safefile.PrivateFile
		if st.IsDir() {
			want = safefile.PrivateDir
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}
