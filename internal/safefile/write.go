// Package safefile writes files atomically and locks them, so that a file
// ctxkit rewrites (a transcript with -i, a playbook, a hook's state) is
// never seen half written, and two runs that update one file wait for each
// other instead of losing an update.
package safefile

import (
	"bufio"
	"errors"
	"fmt"
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

// Writer writes files atomically, and removes the stale temporary files of
// ours in each directory it writes to, once.
type Writer struct {
	swept   map[string]bool
	private bool // new files and directories are the user's alone (WritePrivate)
}

// NewWriter returns a Writer for a run that may write many files.
func NewWriter() *Writer { return &Writer{swept: map[string]bool{}} }

// Write writes content to path atomically, as Writer.Write does, for a
// single file.
func Write(path string, content io.WriterTo) error { return NewWriter().Write(path, content) }

// Write writes content to path atomically: a temporary file in the same
// directory, flushed to the disk, then renamed over path. A link is
// followed: its target is rewritten and the link kept. An existing file
// keeps its mode and, where permitted, its owner and group; a new one gets
// the mode the umask gives. Only a regular file is replaced. Errors name the
// file written (the link's target), never the temporary one, and the
// temporary file is removed on any error.
func (w *Writer) Write(path string, content io.WriterTo) (err error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		target, err = path, nil
	}
	if err != nil {
		return PathError(path, err)
	}
	old, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return PathError(target, err)
	case !old.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", target)
	}
	dir := filepath.Dir(target)
	dirMode, fileMode := fs.FileMode(0o777), fs.FileMode(0o666) // as the umask gives
	if w.private {
		dirMode, fileMode = PrivateDir, PrivateFile
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return PathError(target, err)
	}
	w.sweep(dir)
	tmp, err := createTemp(dir, filepath.Base(target), fileMode)
	if err != nil {
		return PathError(target, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = PathError(target, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20) // a transcript writes itself in many small pieces
	if _, err = content.WriteTo(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
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

// createTemp creates a new temporary file for name in dir, with mode as
// the umask leaves it (os.CreateTemp's is always 0600).
func createTemp(dir, name string, mode fs.FileMode) (*os.File, error) {
	for {
		path := filepath.Join(dir, "."+name+".ctx-"+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// sweep removes, once per directory, the temporary files of ours that are
// older than staleAfter. It does its best: what it cannot remove stays.
func (w *Writer) sweep(dir string) {
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

// PathError is a failure naming a file, with the operating system's reason
// alone, "s.jsonl: no such file or directory": not the temporary file's name
// nor the operation.
func PathError(name string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s: %w", name, err)
}
