// Package archive is the execution archive: every tool execution of a
// transcript (call, arguments, output) stored once in a SQLite database, so
// that what a filter removes from a history can be had back, by the handle
// its marker cites or by a query. It is the only package that touches the
// database.
//
// The database is SQLite through modernc.org/sqlite (pure Go: no cgo), in
// WAL mode with a busy timeout, and every write is one short immediate
// transaction, so that parallel hooks and pipes wait for each other instead
// of failing busy. The schema has a version (PRAGMA user_version) and
// migrations; an archive of a newer schema is refused, not misread.
package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/userdir"
)

// Archive is an open archive database.
type Archive struct {
	db       *sql.DB
	path     string
	readOnly bool
}

// Errors a caller tells apart. Each comes wrapped with the archive's path.
var (
	ErrMissing     = errors.New("no archive there (ctx-archive creates it)")
	ErrNotArchive  = errors.New("not a ctxkit archive")
	ErrNewerSchema = errors.New("archive of a newer schema than this ctxkit reads; upgrade ctxkit")
	ErrNotFound    = errors.New("no execution with id")
	ErrReadOnly    = errors.New("archive opened for reading only")
	ErrCorrupt     = errors.New("archive is corrupt")
)

// busyTimeout is how long a statement waits for another process's write
// transaction before it fails: far longer than any one run holds the lock.
const busyTimeout = 60_000 // ms

// Open opens the archive at path for writing, creating it and its directory
// when absent and bringing its schema up to date. A new archive, and the directories made for it, are the user's alone
// (safefile.PrivateFile, PrivateDir): it holds whole tool outputs. SQLite
// gives its -wal and -shm files the database's mode.
func Open(path string) (*Archive, error) {
	// SQLite says only "unable to open database file" of a directory or a
	// file the user may not write: the system says why.
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not an archive", path)
	}
	f, err := safefile.OpenPrivate(path, os.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err)) // the reason alone, after the archive's name
	}
	f.Close()
	// A run's transaction is large: a 64 MiB page cache keeps it from
	// spilling to the WAL before it commits, and statement journals in
	// memory spare a temporary file a write for each statement.
	db, err := sql.Open("sqlite", dsn(path, "_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"+
		"&_pragma=cache_size(-65536)&_pragma=temp_store(memory)"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &Archive{db: db, path: path}
	db.SetMaxOpenConns(1)
	if err := a.migrate(); err != nil {
		db.Close()
		return nil, a.wrap(err)
	}
	return a, nil
}

// OpenReadOnly opens an existing archive for reading only: it never creates
// or changes the file, and works on an archive the user cannot write (a
// read-only file or directory).
func OpenReadOnly(path string) (*Archive, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", path, ErrMissing)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	case st.IsDir():
		return nil, fmt.Errorf("%s: is a directory, not an archive", path)
	}
	// Read-write when the file allows it, so that closing the last
	// connection tidies the WAL files away; the connection refuses writes.
	// Then read-only; then, for a WAL archive in a directory the user
	// cannot write (no shared-memory file can be made), immutable: nothing
	// can be writing to it then either.
	var a *Archive
	for _, params := range []string{"mode=rw&_query_only=1", "mode=ro", "mode=ro&immutable=1"} {
		if a, err = openRO(path, params); err == nil || errors.Is(err, ErrNotArchive) || errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrMissing) {
			break
		}
	}
	return a, err
}

func openRO(path, params string) (*Archive, error) {
	db, err := sql.Open("sqlite", dsn(path, params))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &Archive{db: db, path: path, readOnly: true}
	db.SetMaxOpenConns(1)
	v, err := a.version(a.db)
	if err == nil && v < readable {
		err = fmt.Errorf("schema version %d is older than this ctxkit reads (%d to %d): open it once with ctx-archive to upgrade it", v, readable, len(migrations))
	}
	if err != nil {
		db.Close()
		return nil, a.wrap(err)
	}
	return a, nil
}

// dsn is the driver's name for path with the given parameters: a file: URI,
// so that the path may hold any character.
func dsn(path, params string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && filepath.IsAbs(path) {
		p = "/" + p
	}
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return "file:" + esc + "?_busy_timeout=" + fmt.Sprint(busyTimeout) + "&" + params
}

// Path is where the archive is.
func (a *Archive) Path() string { return a.path }

// Close closes the database.
func (a *Archive) Close() error { return a.db.Close() }

// wrap names the archive in an error, and says plainly what SQLite's codes
// mean for a user.
func (a *Archive) wrap(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			err = fmt.Errorf("%w (%s)", ErrNotArchive, trimSQLite(se.Error()))
		default:
			err = errors.New(trimSQLite(se.Error()))
		}
	}
	return fmt.Errorf("%s: %w", a.path, err)
}

// trimSQLite drops the driver's "(CODE)" suffix and detail noise from a
// message, leaving SQLite's own words.
func trimSQLite(msg string) string {
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		msg = msg[:i]
	}
	return msg
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// DefaultPath is where the archive lives when neither --db nor CTX_ARCHIVE
// says: ctxkit/archive.db in the user's data directory ($XDG_DATA_HOME, else
// ~/.local/share; ~/Library/Application Support on macOS; %LocalAppData% on
// Windows).
func DefaultPath() (string, error) {
	path, err := userdir.DataFile("archive.db")
	if err != nil {
		return "", fmt.Errorf("no data directory for the archive (%v): name one with --db or CTX_ARCHIVE", err)
	}
	return path, nil
}

// tx runs f in one immediate transaction: the write lock is taken at BEGIN,
// so a transaction never fails busy half-way, only waits.
func (a *Archive) tx(f func(tx *sql.Tx) error) error {
	tx, err := a.db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
