package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/marker"
)

// DBFlag is the archive ctx-archive writes and ctx-recall reads.
var DBFlag = &ucli.StringFlag{Name: "db", EnvVars: []string{"CTX_ARCHIVE"},
	Usage: "the archive database `PATH` (default: ctxkit/archive.db in the user's data directory, $XDG_DATA_HOME or ~/.local/share)"}

// ArchiveFlag is the archive where a filter keeps the outputs it replaces.
// Unlike --db it has no default for a filter, which archives only when told
// to; a hook (--hook) archives to --db's default unless told otherwise.
var ArchiveFlag = &ucli.StringFlag{Name: "archive", EnvVars: []string{"CTX_ARCHIVE"},
	Usage: "keep every output the filter replaces in the archive at `PATH` (as ctx-archive stores them), and cite its id in the marker, for ctx-recall ID or memory_query to give it back; --archive '' turns off a CTX_ARCHIVE. With --hook, the default archive unless given (ctxkit/archive.db in the user's data directory)"}

// archiveHelp is what a filter's --help says about --archive.
const archiveHelp = `

ARCHIVE:
   With --archive PATH (or CTX_ARCHIVE), every output the filter replaces is stored in that
   archive (one SQLite file, as ctx-archive stores outputs) before anything is written, and
   the marker that replaces it ends with the id that gives it back:
      ...; full output: ctx-recall toolu_01AB (or memory_query id=toolu_01AB).
   ctx-recall ID prints it back byte for byte, and an agent can ask for it with the
   memory_query tool of ctx-recall --mcp. An archive that cannot be written stops the run
   (exit 1) before anything is written. See docs/recall.md.`

// Archiving reports whether a filter keeps what it replaces in an archive
// (--archive).
func (e *Env) Archiving() bool { return e.String(ArchiveFlag.Name) != "" }

// Handles gives the handles a filter's markers cite: with --archive, those
// the archive will give back (marker.Citation), else none.
func (e *Env) Handles() marker.Handles {
	if !e.Archiving() {
		return nil
	}
	return marker.Citation
}

// OpenArchive opens the archive of --archive, where a filter keeps what it
// replaces; nil without one. It is opened before any input is read, so
// that an archive that cannot be written stops the run before anything is
// written.
func (e *Env) OpenArchive() (*archive.Archive, error) {
	path := e.String(ArchiveFlag.Name)
	if path == "" {
		return nil, nil
	}
	a, err := archive.Open(path)
	if err != nil {
		return nil, Failf("--archive: %v", err)
	}
	return a, nil
}

// Keep stores, in the archive of --archive, executions whose outputs are
// about to be replaced (archive.Keep).
func (e *Env) Keep(execs []archive.Execution) error {
	a, err := e.OpenArchive()
	if err != nil {
		return err
	}
	err = a.Keep(execs)
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	return err
}

// ArchivePath is the archive of --db, CTX_ARCHIVE, or the default.
func (e *Env) ArchivePath() (string, error) {
	if p := e.String(DBFlag.Name); p != "" {
		return p, nil
	}
	p, err := archive.DefaultPath()
	if err != nil {
		return "", Failf("%v", err)
	}
	return p, nil
}
