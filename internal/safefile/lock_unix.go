//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes an exclusive lock on the file at path (made if missing),
// waiting for whoever holds it. The lock goes when unlock is called, or
// when the process ends, however it ends: a killed run leaves no stale
// lock. The file itself stays, since removing it would let two runs lock
// two different files.
func Lock(path string) (unlock func(), err error) {
	// Beside a file of the user's data (the playbook): private as it is.
	if err := MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, PrivateFile)
	if err != nil {
		return nil, PathError(path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, PathError(path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
