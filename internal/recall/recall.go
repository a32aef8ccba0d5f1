// Package recall answers what ctx-recall and its MCP tool memory_query are
// asked: one archived execution's output by its id (the handle a marker
// cites), or a query over the archive. The arguments, their checks and the
// answers have one home here, so that the command line and the MCP server
// say the same things; internal/archive runs the queries.
package recall

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/timespan"
)

// Args are memory_query's arguments, and ctx-recall's flags by the same
// names. Their JSON schema (from the tags) is the MCP tool's input schema.
type Args struct {
	ID            string `json:"id,omitempty" jsonschema:"the id a marker names (e.g. toolu_01AB or ctx_3f9a1c2b7d0e): returns that execution's output, exactly as the tool printed it; only range, offset and session go with it"`
	Range         string `json:"range,omitempty" jsonschema:"with id: only lines A to B of the output, as A,B (1-based, inclusive)"`
	Offset        int    `json:"offset,omitempty" jsonschema:"with id: start this many bytes into the output, or into its lines of range: to read on in a line too long to be shown whole"`
	Session       string `json:"session,omitempty" jsonschema:"only this session's executions (a session id as records show it)"`
	Tool          string `json:"tool,omitempty" jsonschema:"only calls of this tool name (Bash, Read, exec_command) or kind (read, edit, write, shell, list, search, git, web, other)"`
	Path          string `json:"path,omitempty" jsonschema:"only calls that read, edited, wrote or listed this file or directory (a relative path matches its last parts)"`
	Since         string `json:"since,omitempty" jsonschema:"only executions at or after this time: a date (2026-01-31, local time), a local time (2026-01-31T14:00) or an RFC 3339 time (2026-01-31T14:00:00Z)"`
	Until         string `json:"until,omitempty" jsonschema:"only executions before this time, as since; a date takes all of that day"`
	Failed        bool   `json:"failed,omitempty" jsonschema:"only executions that failed (an error, or a non-zero exit code)"`
	Query         string `json:"query,omitempty" jsonschema:"words the output or the command contains, best match first; \"a phrase\" in double quotes, word* for a prefix, OR between alternatives"`
	Limit         int    `json:"limit,omitempty" jsonschema:"how many executions to list: 10 unless given, at most 100"`
	IncludeOutput bool   `json:"include_output,omitempty" jsonschema:"list each execution's whole output, not only its first lines"`
	// IDGiven says that an id was given, even an empty one: the command
	// line's argument, or memory_query's "id"; LimitGiven, that a limit
	// was, even 0, which is then not the default (UnmarshalJSON sets both).
	IDGiven, LimitGiven bool `json:"-"`
}

// UnmarshalJSON reads memory_query's arguments, and whether "id" and
// "limit" are among them.
func (a *Args) UnmarshalJSON(data []byte) error {
	type args Args // without this method
	var v struct {
		args
		ID    *string `json:"id"`
		Limit *int    `json:"limit"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*a = Args(v.args)
	if v.ID != nil {
		a.ID, a.IDGiven = *v.ID, true
	}
	if v.Limit != nil {
		a.Limit, a.LimitGiven = *v.Limit, true
	}
	return nil
}

// ArgError is arguments that cannot be read or do not go together: a
// usage error on the command line, a tool error for a model.
type ArgError struct{ msg string }

func (e *ArgError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &ArgError{fmt.Sprintf(format, args...)}
}

// Lines is what part of an output is asked for: lines From to To of it
// (a --range; all of them when From is 0), from byte Offset of those.
type Lines struct{ From, To, Offset int }

// Check reads and checks the arguments: the archive query they make, and
// the lines of --range (zero without it). Its errors are *ArgError.
func (a Args) Check() (archive.Query, Lines, error) {
	q := archive.Query{ID: strings.TrimSpace(a.ID), Session: a.Session, Tool: a.Tool, Path: a.Path,
		Failed: a.Failed, Text: a.Query, Limit: a.Limit, IncludeOutput: a.IncludeOutput}
	lines := Lines{Offset: a.Offset}
	if a.IDGiven && q.ID == "" {
		return q, lines, usagef("the id is empty: give the id a marker names, or no id to search")
	}
	switch {
	case a.Offset < 0:
		return q, lines, usagef("offset must be 0 or more")
	case a.Offset > 0 && q.ID == "":
		return q, lines, usagef("offset reads on in one output: give its id")
	}
	if a.Range != "" {
		if q.ID == "" {
			return q, lines, usagef("range takes the lines of one output: give its id")
		}
		var err error
		if lines.From, lines.To, err = parseRange(a.Range); err != nil {
			return q, lines, err
		}
	}
	if q.ID != "" {
		for _, f := range []struct {
			name string
			set  bool
		}{{"tool", a.Tool != ""}, {"path", a.Path != ""}, {"since", a.Since != ""}, {"until", a.Until != ""},
			{"failed", a.Failed}, {"query", a.Query != ""}, {"limit", a.Limit != 0 || a.LimitGiven}} {
			if f.set {
				return q, lines, usagef("an id names one execution; %s does not go with it (session does)", f.name)
			}
		}
	}
	if a.Limit < 0 || a.Limit > archive.MaxLimit || a.LimitGiven && a.Limit == 0 {
		return q, lines, usagef("limit must be 1 to %d", archive.MaxLimit)
	}
	// A date or a time without a zone is the local time of the machine
	// that runs ctx-recall, and a date as until takes all of that day.
	var err error
	if q.Since, q.Until, err = timespan.Span(a.Since, a.Until, time.Local); err != nil {
		return q, lines, usagef("%v", err)
	}
	if a.Query != "" {
		if _, err := archive.FTSQuery(a.Query); err != nil {
			return q, lines, usagef("query: %v", err)
		}
	}
	return q, lines, nil
}

func parseRange(s string) (from, to int, err error) {
	a, b, ok := strings.Cut(s, ",")
	from, errA := strconv.Atoi(strings.TrimSpace(a))
	to, errB := strconv.Atoi(strings.TrimSpace(b))
	if !ok || errA != nil || errB != nil || from < 1 || to < from {
		return 0, 0, usagef("range %q: want A,B, two line numbers with 1 <= A <= B", s)
	}
	return from, to, nil
}

// Output is the part of an output that l asks for; nothing when it asks for
// more than there is.
func (l Lines) Output(text string) string {
	if l.From > 0 {
		text = archive.Lines(text, l.From, l.To)
	}
	if l.Offset >= len(text) {
		return ""
	}
	return text[l.Offset:]
}

// Select is Output, and an *ArgError when l asks for more than there is: a
// range that starts after the last of the output's lines (it has lines),
// or an offset at or past the end of what the range selects. An empty
// output is not there to be asked for.
func (l Lines) Select(text string, lines int) (string, error) {
	if l.From > lines {
		return "", usagef("range %d,%d: the output has %s", l.From, l.To, textfmt.Plural(lines, "line", "lines"))
	}
	sel := Lines{From: l.From, To: l.To}.Output(text)
	if l.Offset > 0 && l.Offset >= len(sel) {
		what := "the output has"
		if l.From > 0 {
			what = fmt.Sprintf("lines %d-%d have", l.From, min(l.To, lines))
		}
		return "", usagef("offset %d: %s %s", l.Offset, what, textfmt.Plural(len(sel), "byte", "bytes"))
	}
	return sel[l.Offset:], nil
}
