//go:build !unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Lock takes an exclusive lock where flock is missing: the lock is the
// file at path, made with O_EXCL and removed by unlock. A lock file older
// than staleAfter is taken for one a killed run left, and removed.
func Lock(path string) (unlock func(), err error) {
	// Beside a file of the user's data (the playbook): private as it is.
	if err := MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, PrivateFile)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, PathError(path, err)
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > staleAfter {
			os.Remove(path)
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
}
