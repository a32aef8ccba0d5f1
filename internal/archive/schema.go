package archive

import (
	"database/sql"
	"fmt"
)

// applicationID marks a SQLite file as a ctxkit archive ("ctxA"), so that
// another program's database is refused rather than written into.
const applicationID = 0x63747841

// migrations bring the schema from version i to i+1; the schema's version
// is len(migrations). A release only appends to this list: an archive
// written by an older ctxkit is upgraded in place, and one written by a
// newer one is refused (ErrNewerSchema).
var migrations = []string{
	// 1: the first schema. What can be long (outputs, arguments,
	// commands) is kept out of the executions table and last in its own
	// rows, so that a query's scan of executions reads small rows only.
	`
CREATE TABLE outputs (
	id     INTEGER PRIMARY KEY,
	sha256 BLOB NOT NULL UNIQUE,  -- of text: identical outputs are stored once
	bytes  INTEGER NOT NULL,
	chars  INTEGER NOT NULL,
	lines  INTEGER NOT NULL,
	tokens INTEGER NOT NULL,      -- o200k_base
	text   TEXT NOT NULL          -- the result's text, byte for byte
);
CREATE TABLE executions (
	id          INTEGER PRIMARY KEY,
	output_id   INTEGER NOT NULL REFERENCES outputs (id),
	time        TEXT,             -- UTC, 2006-01-02T15:04:05.000Z; NULL when unknown
	failed      INTEGER NOT NULL,
	exit_code   INTEGER,          -- NULL when unknown
	kind        TEXT NOT NULL,
	tool        TEXT NOT NULL,
	seq         INTEGER NOT NULL, -- the result's position in its transcript
	range_start INTEGER NOT NULL,
	range_end   INTEGER NOT NULL,
	range_last  INTEGER NOT NULL,
	format      TEXT NOT NULL,
	archived    TEXT NOT NULL,    -- when it was stored, UTC
	session     TEXT NOT NULL,    -- marker.SessionKey
	handle      TEXT NOT NULL,    -- Handle: what markers cite
	call_id     TEXT NOT NULL,
	cwd         TEXT NOT NULL,
	path        TEXT NOT NULL,
	UNIQUE (session, handle)
);
-- The call of each execution: its arguments, command and intent.
CREATE TABLE calls (
	id        INTEGER PRIMARY KEY REFERENCES executions (id),
	args_json INTEGER NOT NULL,   -- args is JSON, not a custom tool's text
	intent    TEXT NOT NULL,
	command   TEXT NOT NULL,
	target    TEXT NOT NULL,      -- what the call is about when it is not its command: a path, pattern or URL
	args      TEXT NOT NULL       -- tools.Canonical
);
CREATE INDEX executions_handle ON executions (handle);
CREATE INDEX executions_call_id ON executions (call_id);
CREATE INDEX executions_output ON executions (output_id);
CREATE INDEX executions_time ON executions (time);
CREATE INDEX executions_failed ON executions (time) WHERE failed;
CREATE INDEX executions_kind ON executions (kind, time);
CREATE INDEX executions_tool ON executions (tool COLLATE NOCASE, time);
-- Every path an execution names, and the path reversed, so that a path, a
-- path it ends (store.go) and the paths under a directory are all index
-- ranges.
CREATE TABLE paths (
	path         TEXT NOT NULL,
	reversed     TEXT NOT NULL,
	execution_id INTEGER NOT NULL REFERENCES executions (id),
	PRIMARY KEY (path, execution_id)
) WITHOUT ROWID;
CREATE INDEX paths_reversed ON paths (reversed);
CREATE VIRTUAL TABLE outputs_fts USING fts5 (text, content = 'outputs', content_rowid = 'id');
CREATE VIRTUAL TABLE commands_fts USING fts5 (command, target, content = 'calls', content_rowid = 'id');
`,
	// 2: the answers of ctx-summarize --llm (LLMCache), by what the
	// request was.
	`
CREATE TABLE llm_answers (
	model   TEXT NOT NULL,
	version TEXT NOT NULL,        -- the prompt's version
	hash    TEXT NOT NULL,        -- of the rest of the request (llm.Key)
	answer  TEXT NOT NULL,
	stored  TEXT NOT NULL,        -- UTC
	PRIMARY KEY (model, version, hash)
) WITHOUT ROWID;
`,
}

// readable is the oldest schema that a reader (OpenReadOnly) reads as it
// is: the migrations after it add only what writers use, so that an
// archive that no writer has upgraded yet is still read. A migration that
// changes what the queries read raises it.
const readable = 1

// queryer is a database or a transaction.
type queryer interface {
	QueryRow(query string, args ...any) *sql.Row
}

// version reads the archive's schema version, checking that it is an
// archive at all.
func (a *Archive) version(q queryer) (int, error) {
	// One statement, so that all three come from one snapshot, not from
	// either side of another process's creating the schema.
	var app, v, n int
	err := q.QueryRow(`SELECT (SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)`).Scan(&app, &v, &n)
	if err != nil {
		return 0, err
	}
	if app != applicationID {
		switch {
		case n > 0 || v != 0:
			return 0, fmt.Errorf("%w (a SQLite database of another program)", ErrNotArchive)
		case a.readOnly:
			// An empty file: an archive that another process is creating
			// right now, or that never got its first write.
			return 0, ErrMissing
		}
		return 0, nil // a new, empty file: migrate creates the schema
	}
	if v > len(migrations) {
		return 0, fmt.Errorf("%w (schema version %d; this ctxkit reads up to %d)", ErrNewerSchema, v, len(migrations))
	}
	return v, nil
}

// migrate brings the schema up to date, in one immediate transaction that
// reads the version again under the write lock: two processes opening a
// new archive at once create it once.
func (a *Archive) migrate() error {
	v, err := a.version(a.db)
	if err != nil || v == len(migrations) {
		return err
	}
	return a.tx(func(tx *sql.Tx) error {
		if v, err = a.version(tx); err != nil {
			return err
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.Exec(migrations[v]); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
			}
		}
		_, err := tx.Exec(fmt.Sprintf(`PRAGMA application_id = %d; PRAGMA user_version = %d`, applicationID, len(migrations)))
		return err
	})
}
