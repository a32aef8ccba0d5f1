package cli

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// staleAfter is the age past which a temporary file of ours is taken for
// one that a killed run left behind: writing one takes seconds.
const staleAfter = time.Hour

// tempPattern matches our temporary files, ".<name>.ctx-<random>.tmp",
// beside the file they replace (createTemp names them): hidden, so that no
// directory walk takes them, and recognisable, so that a later run removes
// the ones a killed run left behind.
const tempPattern = ".?*.ctx-*.tmp"

// syncFile flushes a file to the disk; a test counts the calls.
var syncFile = (*os.File).Sync

// fileWriter writes files atomically, and removes the stale temporary
// files of ours in each directory it writes to, once.
type fileWriter struct {
	swept map[string]bool
}

func newFileWriter() *fileWriter { return &fileWriter{swept: map[string]bool{}} }

// write writes content to path atomically: a temporary file in the same
// directory, flushed to the disk, then renamed over path. A link is
// followed: its target is rewritten and the link kept. An existing file
// keeps its mode and, where permitted, its owner and group; a new one gets
// the mode the umask gives. Only a regular file is replaced. Errors name the
// file written (the link's target), never the temporary one, and the
// temporary file is removed on any error.
func (w *fileWriter) write(path string, content io.WriterTo) (err error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		target, err = path, nil
	}
	if err != nil {
		return fileError(path, err)
	}
	old, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fileError(target, err)
	case !old.Mode().IsRegular():
		return Failf("%s: not a regular file", target)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fileError(target, err)
	}
	w.sweep(dir)
	tmp, err := createTemp(dir, filepath.Base(target))
	if err != nil {
		return fileError(target, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fileError(target, err)
		}
	}()
	if err = copyTo(tmp, content); err != nil {
		return err
	}
	if old != nil {
		keepOwner(tmp, old) // before the mode: a chown clears set-id bits
		if err = tmp.Chmod(old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
			return err
		}
	}
	if err = syncFile(tmp); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// createTemp creates a new temporary file for name in dir, with the mode
// the umask gives a new file (os.CreateTemp's is 0600).
func createTemp(dir, name string) (*os.File, error) {
	for {
		path := filepath.Join(dir, "."+name+".ctx-"+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// sweep removes, once per directory, the temporary files of ours that are
// older than staleAfter. It does its best: what it cannot remove stays.
func (w *fileWriter) sweep(dir string) {
	if w.swept[dir] {
		return
	}
	w.swept[dir] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range entries {
		if ours, _ := filepath.Match(tempPattern, d.Name()); !ours || !d.Type().IsRegular() {
			continue
		}
		if st, err := d.Info(); err == nil && time.Since(st.ModTime()) > staleAfter {
			os.Remove(filepath.Join(dir, d.Name()))
		}
	}
}
