package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Query selects executions. Every field set narrows the selection; the zero
// Query selects every execution, newest first.
type Query struct {
	ID      string // a handle or a call id
	Session string
	Tool    string // a tool's name or a kind (read, shell, ...), any case
	Path    string // any call that read, edited, wrote or listed it (or, for a directory, a file under it)
	Since   time.Time
	Until   time.Time // exclusive
	Failed  bool
	Text    string // words the output or the command holds (full-text, ranked); see FTSQuery
	Limit   int    // at most this many records; 0 is DefaultLimit, more than MaxLimit is MaxLimit
	// IncludeOutput fills each record's Output.
	IncludeOutput bool
}

// The number of records a query returns unless told, and at most.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// Record is an execution as a query returns it. Its JSON is the schema of
// ctx-recall --json and memory_query (docs/recall.md).
type Record struct {
	ID       string          `json:"id"` // the handle: what ctx-recall and memory_query take
	CallID   string          `json:"call_id"`
	Session  string          `json:"session"`
	Tool     string          `json:"tool"`
	Kind     string          `json:"kind"`
	Args     json.RawMessage `json:"args"` // the canonical arguments: an object, or a string for a custom tool's text
	Path     string          `json:"path"`
	Range    string          `json:"range"`
	Command  string          `json:"command"`
	Target   string          `json:"target"` // what the call was about: path, command, pattern or URL
	Intent   string          `json:"intent"`
	Time     *string         `json:"time"` // RFC 3339, UTC; null when the transcript does not say
	Failed   bool            `json:"failed"`
	ExitCode outcome.Code    `json:"exit_code"` // null when unknown
	SHA256   string          `json:"sha256"`    // of the output
	Bytes    int             `json:"bytes"`
	Chars    int             `json:"chars"`
	Lines    int             `json:"lines"`
	Tokens   int             `json:"tokens"` // o200k_base
	Format   string          `json:"format"`
	Cwd      string          `json:"cwd"`
	Preview  string          `json:"preview"`           // the output's first lines
	Snippet  string          `json:"snippet,omitempty"` // with Text: where it matched, **marked**
	Output   *string         `json:"output,omitempty"`  // with IncludeOutput: the whole output
}

// Page is a query's answer: the total that match, and the first Limit.
type Page struct {
	Total   int      `json:"total"`
	Records []Record `json:"records"`
}

// ErrAmbiguous is Get's error when an id names executions with different
// outputs in several sessions.
var ErrAmbiguous = errors.New("ambiguous id")

// Get returns the execution with a handle or call id, its output included.
// A call id that several sessions share is ambiguous unless their outputs
// are the same text (a resumed session repeats its history), or session
// narrows it.
func (a *Archive) Get(id, session string) (Record, error) {
	return a.GetContext(context.Background(), id, session)
}

// GetContext is Get, stopped when ctx is done (SQLite interrupted): the
// error is then ctx's, wrapped.
func (a *Archive) GetContext(ctx context.Context, id, session string) (rec Record, err error) {
	defer a.stopped(ctx, &err)
	where, args := Query{ID: id, Session: session}.where(1)
	rows, err := a.db.QueryContext(ctx, `SELECT e.id, e.session, o.sha256 FROM executions e JOIN outputs o ON o.id = e.output_id`+where+
		` ORDER BY e.id LIMIT 101`, args...)
	if err != nil {
		return Record{}, a.wrap(err)
	}
	defer rows.Close()
	var first int64
	var firstSum []byte
	var sessions []string
	ambiguous := false
	for rows.Next() {
		var eid int64
		var s string
		var sum []byte
		if err := rows.Scan(&eid, &s, &sum); err != nil {
			return Record{}, a.wrap(err)
		}
		if sessions == nil {
			first, firstSum = eid, sum
		}
		ambiguous = ambiguous || string(sum) != string(firstSum)
		sessions = append(sessions, s)
	}
	if err := rows.Err(); err != nil {
		return Record{}, a.wrap(err)
	}
	switch {
	case sessions == nil:
		return Record{}, fmt.Errorf("%s: %w %q", a.path, ErrNotFound, id)
	case ambiguous:
		return Record{}, fmt.Errorf("%s: %w %q: %d executions in sessions %s have it; choose one with the session",
			a.path, ErrAmbiguous, id, len(sessions), strings.Join(sessions, ", "))
	}
	recs, _, err := a.records(ctx, []int64{first}, true)
	if err != nil {
		return Record{}, err
	}
	return recs[0], nil
}

// Find runs a query.
func (a *Archive) Find(q Query) (Page, error) { return a.FindContext(context.Background(), q) }

// FindContext is Find, stopped when ctx is done (SQLite interrupted): the
// error is then ctx's, wrapped. A server bounds a query's time so.
func (a *Archive) FindContext(ctx context.Context, q Query) (p Page, err error) {
	defer a.stopped(ctx, &err)
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	// The ids of the page, in order, then their records: the ranking
	// carries no columns, and only the page's outputs are read.
	var ids []int64
	var fts string
	if q.Text != "" {
		var err error
		if fts, err = FTSQuery(q.Text); err != nil {
			return Page{}, err
		}
		where, args := q.where(2) // ?1 is the full-text query
		if p.Total, ids, err = a.match(ctx, fts, and(where, notCopy), args, limit); err != nil {
			return Page{}, a.queryError(err)
		}
	} else {
		// The total is counted without a look at the rows (the copies,
		// few and found by their empty call id, are taken off after).
		where, args := q.where(1)
		var copies int
		err := a.db.QueryRowContext(ctx, `SELECT count(*) FROM executions e`+where, args...).Scan(&p.Total)
		if err == nil {
			err = a.db.QueryRowContext(ctx, `SELECT count(*) FROM executions e`+and(where, isCopy), args...).Scan(&copies)
			p.Total -= copies
		}
		if err == nil {
			ids, _, err = a.ids(ctx, `SELECT e.id, 0 FROM executions e`+and(where, notCopy)+fmt.Sprintf(` ORDER BY e.time DESC, e.id DESC LIMIT ?%d`, len(args)+1),
				append(args, limit))
		}
		if err != nil {
			return Page{}, a.wrap(err)
		}
	}
	var outputIDs []int64
	if p.Records, outputIDs, err = a.records(ctx, ids, q.IncludeOutput); err != nil {
		return Page{}, err
	}
	if fts != "" {
		for i := range p.Records {
			if p.Records[i].Snippet, err = a.snippet(ctx, fts, outputIDs[i], ids[i]); err != nil {
				return Page{}, a.wrap(err)
			}
		}
	}
	return p, nil
}

// stopped makes a query's error ctx's when ctx is done: SQLite then says
// only "interrupted".
func (a *Archive) stopped(ctx context.Context, err *error) {
	if *err != nil && ctx.Err() != nil {
		*err = fmt.Errorf("%s: %w", a.path, ctx.Err())
	}
}

// where is the query's filters as SQL over executions e, with their
// arguments, numbered from ?first. A copy of an output (Execution) is
// found by its handle alone: it has no call id, and Find leaves copies
// out (notCopy).
func (q Query) where(first int) (string, []any) {
	var conds []string
	var args []any
	// add numbers each ? of cond after the parameters so far.
	add := func(cond string, vals ...any) {
		parts := strings.Split(cond, "?")
		var b strings.Builder
		for i, part := range parts {
			if i > 0 {
				fmt.Fprintf(&b, "?%d", len(args)+first)
				args = append(args, vals[i-1])
			}
			b.WriteString(part)
		}
		conds = append(conds, b.String())
	}
	if q.ID != "" {
		add(`(e.handle = ? OR e.call_id = ?)`, q.ID, q.ID)
	}
	if q.Session != "" {
		add(`e.session = ?`, q.Session)
	}
	if q.Tool != "" {
		add(`(e.tool = ? COLLATE NOCASE OR e.kind = ?)`, q.Tool, strings.ToLower(q.Tool))
	}
	if p := cleanPath(q.Path); p != "" {
		// The path itself, a path it ends (a.go finds src/a.go), or a
		// path under it (src finds src/a.go): three index ranges, a
		// suffix being a prefix of the reversed path. ('/' + 1 is '0'.)
		add(`e.id IN (SELECT execution_id FROM paths WHERE path = ?
			OR reversed >= ? AND reversed < ?
			OR path >= ? AND path < ?)`, p, reverse("/"+p), reverse("0"+p), p+"/", p+"0")
	}
	if !q.Since.IsZero() {
		add(`e.time >= ?`, q.Since.UTC().Format(timeLayout))
	}
	if !q.Until.IsZero() {
		add(`e.time < ?`, q.Until.UTC().Format(timeLayout))
	}
	if q.Failed {
		conds = append(conds, `e.failed`)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// isCopy is the executions that are a copy of an output (Execution): every
// result has a call id or a handle of its own (ctx_ and hex digits), and a
// copy has neither; notCopy is the others.
var (
	isCopy  = fmt.Sprintf(`e.call_id = '' AND instr(e.handle, '%s') > 0`, marker.CopyMark)
	notCopy = "NOT (" + isCopy + ")"
)

// and adds a condition to a WHERE clause, which may be empty.
func and(where, cond string) string {
	if where == "" {
		return " WHERE " + cond
	}
	return where + " AND " + cond
}

// cleanPath is a --path as the archive stores paths: cleaned, without a
// leading ./ or a trailing /.
func cleanPath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = path.Clean(strings.TrimPrefix(p, "file://"))
	if p == "." {
		return ""
	}
	return p
}

// queryError reports a bad full-text query as the user's mistake.
func (a *Archive) queryError(err error) error {
	if msg := err.Error(); strings.Contains(msg, "fts5") {
		return fmt.Errorf("%w: %s", ErrBadQuery, trimSQLite(msg))
	}
	return a.wrap(err)
}

// ErrBadQuery is a full-text query SQLite cannot read.
var ErrBadQuery = errors.New("bad query")

// records reads the records of executions, with their outputs or not, and
// the ids of their outputs. Every output read, whole or for its preview, is
// checked against the SHA-256 stored with it: a record never shows bytes
// that are not the tool's.
func (a *Archive) records(ctx context.Context, ids []int64, withOutput bool) ([]Record, []int64, error) {
	stmt, err := a.db.PrepareContext(ctx, `SELECT e.handle, e.call_id, e.session, e.tool, e.kind, c.args, c.args_json, e.path,
		e.range_start, e.range_end, e.range_last, c.command, c.target, c.intent, e.time, e.failed, e.exit_code, o.sha256,
		o.bytes, o.chars, o.lines, o.tokens, e.format, e.cwd, o.text, e.output_id
		FROM executions e JOIN outputs o ON o.id = e.output_id JOIN calls c ON c.id = e.id WHERE e.id = ?`)
	if err != nil {
		return nil, nil, a.wrap(err)
	}
	defer stmt.Close()
	recs := make([]Record, len(ids))
	outputIDs := make([]int64, len(ids))
	for i, id := range ids {
		if recs[i], err = scanRecord(stmt.QueryRowContext(ctx, id), withOutput, &outputIDs[i]); err != nil {
			if errors.Is(err, errMismatch) {
				return nil, nil, fmt.Errorf("%s: %w: the output of %s does not match the SHA-256 stored with it", a.path, ErrCorrupt, recs[i].ID)
			}
			return nil, nil, a.wrap(err)
		}
	}
	return recs, outputIDs, nil
}

// errMismatch is scanRecord's error for an output that does not match its
// SHA-256; records names the id.
var errMismatch = errors.New("output does not match its SHA-256")

// ids runs a query of execution ids and their scores.
func (a *Archive) ids(ctx context.Context, query string, args []any) (ids []int64, scores []float64, err error) {
	rows, err := a.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return nil, nil, err
		}
		ids, scores = append(ids, id), append(scores, score)
	}
	return ids, scores, rows.Err()
}

// match runs a full-text query with filters: how many executions match in
// their output or their command, and the ids of the best limit of them.
// An execution's score is the better of its output's and its command's
// (bm25: lower is better), and the best limit of all are among the best
// limit of each: two ranked queries, merged here, cost less than ranking
// their union.
func (a *Archive) match(ctx context.Context, fts, where string, args []any, limit int) (total int, ids []int64, err error) {
	and := strings.Replace(where, " WHERE ", " AND ", 1)
	all := append([]any{fts}, args...)
	byOutput := ` FROM outputs_fts JOIN executions e ON e.output_id = outputs_fts.rowid WHERE outputs_fts MATCH ?1` + and
	byCommand := ` FROM commands_fts JOIN executions e ON e.id = commands_fts.rowid WHERE commands_fts MATCH ?1` + and
	// Counted without ranking; a command match whose output matches too
	// is counted once.
	err = a.db.QueryRowContext(ctx, `SELECT (SELECT count(*)`+byOutput+`) + (SELECT count(*)`+byCommand+`
		AND e.output_id NOT IN (SELECT rowid FROM outputs_fts WHERE outputs_fts MATCH ?1))`, all...).Scan(&total)
	if err != nil || total == 0 {
		return total, nil, err
	}
	lim := fmt.Sprintf(" LIMIT ?%d", len(all)+1)
	best := map[int64]float64{}
	for _, q := range []string{
		`SELECT e.id, outputs_fts.rank` + byOutput + ` ORDER BY outputs_fts.rank` + lim,
		`SELECT e.id, commands_fts.rank` + byCommand + ` ORDER BY commands_fts.rank` + lim,
	} {
		found, scores, err := a.ids(ctx, q, append(all, limit))
		if err != nil {
			return 0, nil, err
		}
		for i, id := range found {
			if s, ok := best[id]; !ok || scores[i] < s {
				best[id] = scores[i]
			}
		}
	}
	for id := range best {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if best[ids[i]] != best[ids[j]] {
			return best[ids[i]] < best[ids[j]]
		}
		return ids[i] > ids[j]
	})
	return total, ids[:min(len(ids), limit)], nil
}

// scanRecord reads a record, and the id of its output into outputID.
func scanRecord(row *sql.Row, withOutput bool, outputID *int64) (r Record, err error) {
	var args, when, output string
	var argsJSON bool
	var start, end, last int
	var nullTime sql.NullString
	var exit sql.NullInt64
	var sum []byte
	err = row.Scan(&r.ID, &r.CallID, &r.Session, &r.Tool, &r.Kind, &args, &argsJSON, &r.Path, &start, &end, &last,
		&r.Command, &r.Target, &r.Intent, &nullTime, &r.Failed, &exit, &sum, &r.Bytes, &r.Chars, &r.Lines, &r.Tokens,
		&r.Format, &r.Cwd, &output, outputID)
	if err != nil {
		return r, err
	}
	if want := sha256.Sum256([]byte(output)); !bytes.Equal(want[:], sum) {
		return r, errMismatch
	}
	if argsJSON {
		r.Args = json.RawMessage(args)
	} else {
		r.Args, _ = json.Marshal(args)
	}
	r.Range = tools.Range{Start: start, End: end, Last: last}.String()
	if r.Target == "" {
		r.Target = r.Command
	}
	if nullTime.Valid {
		when = strings.Replace(nullTime.String, ".000Z", "Z", 1)
		r.Time = &when
	}
	if exit.Valid {
		r.ExitCode = outcome.ExitCode(int(exit.Int64))
	}
	r.SHA256 = hex.EncodeToString(sum)
	r.Preview = Preview(output)
	if withOutput {
		r.Output = &output
	}
	return r, nil
}

// Preview is the start of an output as records show it: its first five
// lines, at most 300 characters (a record's lines and chars say how much
// more there is).
func Preview(text string) string {
	end := 0
	for lines := 0; end < len(text) && lines < 5; lines++ {
		nl := strings.IndexByte(text[end:], '\n')
		if nl < 0 {
			end = len(text)
			break
		}
		end += nl + 1
	}
	return textfmt.Clip(strings.TrimRight(text[:end], "\n"), 300)
}

// snippet is where the full-text query matched: in the output, else in the
// command.
func (a *Archive) snippet(ctx context.Context, fts string, outputID, execID int64) (string, error) {
	var s string
	err := a.db.QueryRowContext(ctx, `SELECT snippet(outputs_fts, 0, '**', '**', '…', 24) FROM outputs_fts
		WHERE outputs_fts MATCH ? AND rowid = ?`, fts, outputID).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		err = a.db.QueryRowContext(ctx, `SELECT snippet(commands_fts, -1, '**', '**', '…', 24) FROM commands_fts
			WHERE commands_fts MATCH ? AND rowid = ?`, fts, execID).Scan(&s)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return s, err
}

// FTSQuery turns --query's words into an FTS5 query: every word must
// match, in any order; "a quoted phrase" matches as a phrase; word* matches
// words that start so; OR, AND and NOT between two words work as in FTS5.
// Any other character is taken literally, so that a path or an error
// message can be pasted as it is; a NUL separates words, as a space does.
func FTSQuery(text string) (string, error) {
	terms, err := ftsTerms(text)
	if err != nil {
		return "", err
	}
	var out []string
	ops := 0
	for i, t := range terms {
		// An operator needs a word on each side; else it is a word.
		if t.op && (i == 0 || i == len(terms)-1 || terms[i-1].op || terms[i+1].op) {
			t.s, t.op = quote(t.s), false
		}
		if t.op {
			ops++
		}
		out = append(out, t.s)
	}
	if ops == 0 {
		// Every word must match: a word said twice asks nothing more.
		seen := map[string]bool{}
		out = slices.DeleteFunc(out, func(s string) bool {
			dup := seen[s]
			seen[s] = true
			return dup
		})
	}
	if words := len(out) - ops; words > MaxTerms {
		return "", fmt.Errorf("%w: %d words, more than the %d a query holds: keep those that tell the output apart, or quote a pasted message (\"...\"), which is one", ErrBadQuery, words, MaxTerms)
	}
	if len(out) == 0 {
		return "", fmt.Errorf("%w: no words", ErrBadQuery)
	}
	return strings.Join(out, " "), nil
}

// ftsTerm is a word, a phrase or a prefix of a query, quoted for FTS5, or
// an operator.
type ftsTerm struct {
	s  string
	op bool
}

// ftsTerms splits a query's text into its terms.
func ftsTerms(text string) ([]ftsTerm, error) {
	var terms []ftsTerm
	// SQLite's parser ends a query at a NUL, which the tokenizer reads as
	// a space anyway.
	rest := strings.TrimSpace(strings.ReplaceAll(text, "\x00", " "))
	for rest != "" {
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("%w: unclosed quote in %q", ErrBadQuery, text)
			}
			terms = append(terms, ftsTerm{s: quote(rest[1 : end+1])})
			rest = strings.TrimSpace(rest[end+2:])
			continue
		}
		i := strings.IndexAny(rest, " \t\n\r")
		if i < 0 {
			i = len(rest)
		}
		word := rest[:i]
		rest = strings.TrimSpace(rest[i:])
		switch {
		case word == "OR" || word == "AND" || word == "NOT":
			terms = append(terms, ftsTerm{s: word, op: true})
		case strings.HasSuffix(word, "*") && len(word) > 1:
			terms = append(terms, ftsTerm{s: quote(strings.TrimSuffix(word, "*")) + "*"})
		default:
			terms = append(terms, ftsTerm{s: quote(word)})
		}
	}
	return terms, nil
}

// MaxTerms is the most words and phrases a query holds, a word repeated
// counted once: the time of a search grows with the square of its words
// (FTS5's snippet: 500 of them took 21 s), and no search needs many.
const MaxTerms = 64

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Lines returns lines from through to (1-based, inclusive) of text, each
// with its newline: what ctx-recall --range prints. to 0 means the end.
func Lines(text string, from, to int) string {
	start, line := 0, 1
	for line < from && start < len(text) {
		nl := strings.IndexByte(text[start:], '\n')
		if nl < 0 {
			return ""
		}
		start += nl + 1
		line++
	}
	if line < from {
		return ""
	}
	end := start
	for ; to == 0 || line <= to; line++ {
		nl := strings.IndexByte(text[end:], '\n')
		if nl < 0 {
			return text[start:]
		}
		end += nl + 1
	}
	return text[start:end]
}
