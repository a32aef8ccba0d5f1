package safefile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The modes of what ctxkit creates to hold a user's data: the archive (tool
// outputs: source, secrets in logs), the proxy's ledger, a model's cached
// answers, the playbook, hooks' state. They are the user's alone, whatever
// the umask: other users on the machine read none of it.
const (
	PrivateDir  fs.FileMode = 0o700
	PrivateFile fs.FileMode = 0o600
)

// MkdirPrivate makes dir and the parents it lacks, each one it makes
// PrivateDir. A directory that exists keeps its mode.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, PrivateDir); err != nil {
		return PathError(dir, err)
	}
	return nil
}

// OpenPrivate opens the file at path with flag, creating it PrivateFile,
// and its directory as MkdirPrivate does, when it is missing. A file that
// exists keeps its mode.
func OpenPrivate(path string, flag int) (*os.File, error) {
	if err := MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|os.O_CREATE, PrivateFile)
	if err != nil {
		return nil, PathError(path, err)
	}
	return f, nil
}

// WritePrivate is Write for a file of a user's data: a new file is
// PrivateFile and the directories made for it PrivateDir; a file that
// exists keeps its mode, as with Write.
func WritePrivate(path string, content io.WriterTo) error {
	return (&Writer{swept: map[string]bool{}, private: true}).Write(path, content)
}
