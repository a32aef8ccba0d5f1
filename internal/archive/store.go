package archive

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Stored is what a Store added.
type Stored struct {
	Executions int // executions given
	New        int // of them, not in the archive before
	Outputs    int // outputs added (the others were there already, from another execution)
}

// timeLayout is how times are stored: fixed width, so that they compare as
// strings.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Store archives executions. An execution already in the archive (same
// session and handle) is left as it is, and an output already there (same
// SHA-256) is not stored again, so storing the same transcript twice adds
// nothing. The work that needs no lock (hashing, counting tokens) is done
// first; the writes are one immediate transaction.
func (a *Archive) Store(execs []Execution) (Stored, error) {
	st, _, err := a.store(execs)
	return st, err
}

// store is Store, and says which executions it inserted.
func (a *Archive) store(execs []Execution) (Stored, []bool, error) {
	st := Stored{Executions: len(execs)}
	inserted := make([]bool, len(execs))
	if a.readOnly {
		return st, inserted, fmt.Errorf("%s: %w", a.path, ErrReadOnly)
	}
	if len(execs) == 0 {
		return st, inserted, nil
	}
	fresh, err := a.unstored(execs)
	if err != nil {
		return st, inserted, a.wrap(err)
	}
	outs, err := a.newOutputs(execs, fresh)
	if err != nil {
		return st, inserted, a.wrap(err)
	}
	now := time.Now().UTC().Format(timeLayout)
	err = a.tx(func(tx *sql.Tx) error {
		w, err := prepareWriter(tx)
		if err != nil {
			return err
		}
		defer w.close()
		// The full-text indexes take this run's rows at the end, in one
		// statement each: FTS5 writes its pending rows to disk at every
		// statement of a transaction that has touched it, so a row a
		// statement would make a segment a row.
		var lastOutput, lastCall int64
		if err := tx.QueryRow(`SELECT (SELECT coalesce(max(id), 0) FROM outputs), (SELECT coalesce(max(id), 0) FROM calls)`).Scan(&lastOutput, &lastCall); err != nil {
			return err
		}
		ids := make(map[[32]byte]int64, len(outs))
		for _, e := range fresh {
			o := outs[e]
			id, ok := ids[o.sum]
			if !ok {
				added := false
				if id, added, err = w.output(o); err != nil {
					return err
				}
				ids[o.sum] = id
				if added {
					st.Outputs++
				}
			}
			added, err := w.execution(&execs[e], id, now)
			if err != nil {
				return err
			}
			if added {
				st.New++
				inserted[e] = true
			}
		}
		if _, err := tx.Exec(`INSERT INTO outputs_fts (rowid, text) SELECT id, text FROM outputs WHERE id > ?`, lastOutput); err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO commands_fts (rowid, command, target) SELECT id, command, target FROM calls
			WHERE id > ? AND (command != '' OR target != '')`, lastCall)
		return err
	})
	if err != nil {
		return Stored{Executions: len(execs)}, make([]bool, len(execs)), a.wrap(err)
	}
	if st.New > 0 {
		// Keep the query planner's statistics current, cheaply (a
		// sample of each index): without them it scans where an index
		// would do.
		if _, err := a.db.Exec(`PRAGMA analysis_limit = 400; PRAGMA optimize = 0x10002`); err != nil {
			return st, inserted, a.wrap(err)
		}
	}
	return st, inserted, nil
}

// unstored returns the indexes of the executions not in the archive yet,
// without their repeats: one query per session of the input.
func (a *Archive) unstored(execs []Execution) ([]int, error) {
	have := map[string]map[string]bool{}
	var out []int
	for i, e := range execs {
		known, ok := have[e.Session]
		if !ok {
			known = map[string]bool{}
			rows, err := a.db.Query(`SELECT handle FROM executions WHERE session = ?`, e.Session)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var h string
				if err := rows.Scan(&h); err != nil {
					rows.Close()
					return nil, err
				}
				known[h] = true
			}
			if err := rows.Close(); err != nil {
				return nil, err
			}
			have[e.Session] = known
		}
		if !known[e.Handle] {
			known[e.Handle] = true
			out = append(out, i)
		}
	}
	return out, nil
}

// output is an output about to be stored: its hash, and for a text the
// archive does not have yet, its sizes and tokens.
type output struct {
	sum                         [32]byte
	text                        string
	known                       bool // in the archive already: nothing to count or insert
	bytes, chars, lines, tokens int
}

// newOutputs hashes the outputs of the fresh executions and measures the
// ones the archive lacks, counting each distinct text's tokens once (on
// every core when there is much of it).
func (a *Archive) newOutputs(execs []Execution, fresh []int) (map[int]*output, error) {
	byExec := make(map[int]*output, len(fresh))
	bySum := map[[32]byte]*output{}
	var todo []*output
	stmt, err := a.db.Prepare(`SELECT 1 FROM outputs WHERE sha256 = ?`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for _, e := range fresh {
		text := execs[e].Output
		sum := sha256.Sum256([]byte(text))
		o, ok := bySum[sum]
		if !ok {
			o = &output{sum: sum, text: text}
			var one int
			switch err := stmt.QueryRow(sum[:]).Scan(&one); {
			case err == nil:
				o.known = true
			case errors.Is(err, sql.ErrNoRows):
				todo = append(todo, o)
			default:
				return nil, err
			}
			bySum[sum] = o
		}
		byExec[e] = o
	}
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(todo))
	for i, o := range todo {
		texts[i] = o.text
	}
	for i, n := range tokens.CountAll(counter, texts) {
		o := todo[i]
		o.bytes, o.chars, o.lines, o.tokens = len(o.text), utf8.RuneCountInString(o.text), countLines(o.text), n
	}
	return byExec, nil
}

// countLines counts lines as the markers do: a last line without a newline
// counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// writer holds the statements of one Store's transaction.
type writer struct {
	tx                                             *sql.Tx
	outputID, addOutput, addExec, addCall, addPath *sql.Stmt
}

func prepareWriter(tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx}
	for _, s := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&w.outputID, `SELECT id FROM outputs WHERE sha256 = ?`},
		{&w.addOutput, `INSERT INTO outputs (sha256, bytes, chars, lines, tokens, text) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (sha256) DO NOTHING RETURNING id`},
		{&w.addExec, `INSERT INTO executions (output_id, time, failed, exit_code, kind, tool, seq, range_start, range_end,
			range_last, format, archived, session, handle, call_id, cwd, path)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session, handle) DO NOTHING RETURNING id`},
		{&w.addCall, `INSERT INTO calls (id, args_json, intent, command, target, args) VALUES (?, ?, ?, ?, ?, ?)`},
		{&w.addPath, `INSERT OR IGNORE INTO paths (path, reversed, execution_id) VALUES (?, ?, ?)`},
	} {
		st, err := tx.Prepare(s.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*s.stmt = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, s := range []*sql.Stmt{w.outputID, w.addOutput, w.addExec, w.addCall, w.addPath} {
		if s != nil {
			s.Close()
		}
	}
}

// output stores an output unless the archive has it, and returns its id.
func (w *writer) output(o *output) (id int64, added bool, err error) {
	if !o.known {
		err = w.addOutput.QueryRow(o.sum[:], o.bytes, o.chars, o.lines, o.tokens, o.text).Scan(&id)
		if err == nil {
			return id, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, err
		}
		// Another process stored the same text since newOutputs looked.
	}
	err = w.outputID.QueryRow(o.sum[:]).Scan(&id)
	return id, false, err
}

// execution stores an execution unless the archive has it.
func (w *writer) execution(e *Execution, outputID int64, now string) (bool, error) {
	var when, exit any
	if !e.Time.IsZero() {
		when = e.Time.UTC().Format(timeLayout)
	}
	if n, ok := e.ExitCode.Get(); ok {
		exit = n
	}
	// A shell call's target is its command: stored (and indexed) once. The
	// full-text index reads its content back from these columns, so they
	// must hold exactly what was indexed.
	target := e.Target
	if target == e.Command {
		target = ""
	}
	var id int64
	err := w.addExec.QueryRow(outputID, when, e.Failed, exit, string(e.Kind), e.Tool, e.Seq, e.Range.Start, e.Range.End,
		e.Range.Last, string(e.Format), now, e.Session, e.Handle, e.CallID, e.Cwd, e.Path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // another process stored it since unstored looked
	}
	if err != nil {
		return false, err
	}
	args := tools.Canonical(e.Input, e.InputIsText)
	argsJSON := !e.InputIsText && gjson.Valid(args)
	if _, err := w.addCall.Exec(id, argsJSON, e.Intent, e.Command, target, args); err != nil {
		return false, err
	}
	for _, p := range e.Paths {
		if _, err := w.addPath.Exec(p, reverse(p), id); err != nil {
			return false, err
		}
	}
	return true, nil
}

// reverse is a path backwards, byte by byte: the paths table's reversed
// column, where a suffix is a prefix.
func reverse(s string) string {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		b[len(s)-1-i] = s[i]
	}
	return string(b)
}

// ErrConflict is Keep's error when the archive holds another output under
// a handle.
var ErrConflict = errors.New("the archive holds another output under this handle")

// Keep stores the executions whose outputs a filter replaced (Store), and
// makes sure that the archive gives each one's output back by its handle:
// that an execution it already had under the same session and handle has
// the same output. A marker citing a handle that gives back another text
// would be worse than none.
func (a *Archive) Keep(execs []Execution) error {
	_, inserted, err := a.store(execs)
	if err != nil {
		return err
	}
	var held *sql.Stmt
	for i, e := range execs {
		if inserted[i] {
			continue // stored with this output just now
		}
		if held == nil {
			if held, err = a.db.Prepare(heldSum); err != nil {
				return a.wrap(err)
			}
			defer held.Close()
		}
		var sum []byte
		if err := held.QueryRow(e.Session, e.Handle).Scan(&sum); err != nil {
			return a.wrap(err)
		}
		if want := sha256.Sum256([]byte(e.Output)); string(sum) != string(want[:]) {
			return fmt.Errorf("%s: %w: %s (session %s)", a.path, ErrConflict, e.Handle, e.Session)
		}
	}
	return nil
}

// heldSum is the SHA-256 of the output the archive holds under a session
// and handle.
const heldSum = `SELECT o.sha256 FROM executions e JOIN outputs o ON o.id = e.output_id WHERE e.session = ? AND e.handle = ?`

// Conflicts reports, for each execution, whether Keep would refuse it: the
// archive holds another output under its session and handle, or an
// execution before it in execs has another output under them. It writes
// nothing, so that a caller may leave those results as they are before
// it sends what cites the others, and keep the others later.
func (a *Archive) Conflicts(execs []Execution) ([]bool, error) {
	out := make([]bool, len(execs))
	if len(execs) == 0 {
		return out, nil
	}
	held, err := a.db.Prepare(heldSum)
	if err != nil {
		return nil, a.wrap(err)
	}
	defer held.Close()
	seen := map[[2]string][32]byte{}
	for i, e := range execs {
		want := sha256.Sum256([]byte(e.Output))
		k := [2]string{e.Session, e.Handle}
		if sum, ok := seen[k]; ok {
			out[i] = sum != want
			continue
		}
		seen[k] = want
		var sum []byte
		switch err := held.QueryRow(e.Session, e.Handle).Scan(&sum); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, a.wrap(err)
		default:
			out[i] = string(sum) != string(want[:])
		}
	}
	return out, nil
}
