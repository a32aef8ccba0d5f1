package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/outcome"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name  string
		args  Args
		err   string // a part of the error; "" for none
		lines Lines
	}{
		{"nothing", Args{}, "", Lines{}},
		{"an id", Args{ID: " toolu_01AB "}, "", Lines{}},
		{"an id and a range", Args{ID: "x", Range: "3, 9"}, "", Lines{From: 3, To: 9}},
		{"a range alone", Args{Range: "1,2"}, "give its id", Lines{}},
		{"a range backwards", Args{ID: "x", Range: "9,3"}, `range "9,3"`, Lines{}},
		{"a range from 0", Args{ID: "x", Range: "0,3"}, `range "0,3"`, Lines{}},
		{"a range of one number", Args{ID: "x", Range: "3"}, `range "3"`, Lines{}},
		{"an id and a session", Args{ID: "x", Session: "s"}, "", Lines{}},
		{"an id and a tool", Args{ID: "x", Tool: "Bash"}, "tool does not go with it", Lines{}},
		{"an id and failed", Args{ID: "x", Failed: true}, "failed does not go with it", Lines{}},
		{"limit 100", Args{Limit: 100}, "", Lines{}},
		{"limit 101", Args{Limit: 101}, "limit must be 1 to 100", Lines{}},
		{"limit -1", Args{Limit: -1}, "limit must be 1 to 100", Lines{}},
		{"limit 0, given", Args{LimitGiven: true}, "limit must be 1 to 100", Lines{}},
		{"a date", Args{Since: "2025-06-01"}, "", Lines{}},
		{"a date as the end", Args{Until: "2025-06-01"}, "", Lines{}},
		{"a local time", Args{Since: "2025-06-01T14:05"}, "", Lines{}},
		{"a time with a zone", Args{Until: "2025-06-01T10:00:00+02:00"}, "", Lines{}},
		{"not a time", Args{Since: "last week"}, `since: "last week" is not a date`, Lines{}},
		{"not a time as the end", Args{Until: "2025-06-01 10:00"}, `until: "2025-06-01 10:00" is not a date`, Lines{}},
		{"an unclosed quote", Args{Query: `"never closed`}, "unclosed quote", Lines{}},
		{"a query", Args{Query: "panic: nil map"}, "", Lines{}},
		{"an offset", Args{ID: "x", Range: "2,2", Offset: 40_000}, "", Lines{From: 2, To: 2, Offset: 40_000}},
		{"since after until", Args{Since: "2025-06-02", Until: "2025-06-01T12:00"}, "since (2025-06-02) is not before until (2025-06-01T12:00)", Lines{}},
		{"since at until", Args{Since: "2025-06-01T12:00", Until: "2025-06-01T12:00"}, "is not before until", Lines{}},
		{"since before until", Args{Since: "2025-06-01", Until: "2025-06-01"}, "", Lines{}},
		{"an offset alone", Args{Offset: 5}, "give its id", Lines{Offset: 5}},
		{"an offset below 0", Args{ID: "x", Offset: -1}, "offset must be 0 or more", Lines{Offset: -1}},
	}
	for _, c := range cases {
		q, lines, err := c.args.Check()
		var ae *ArgError
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ae)):
			t.Errorf("%s: %v, want an *ArgError with %q", c.name, err, c.err)
		case lines != c.lines:
			t.Errorf("%s: lines %v, want %v", c.name, lines, c.lines)
		}
		if c.name == "an id" && q.ID != "toolu_01AB" {
			t.Errorf("the id is not trimmed: %q", q.ID)
		}
		// Times read as ctx-count reads them (timespan): a date or a time
		// without a zone is local, a date as the end takes all of the day.
		switch want := map[string]time.Time{
			"a date":             time.Date(2025, 6, 1, 0, 0, 0, 0, time.Local),
			"a date as the end":  time.Date(2025, 6, 2, 0, 0, 0, 0, time.Local),
			"a local time":       time.Date(2025, 6, 1, 14, 5, 0, 0, time.Local),
			"a time with a zone": time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC),
		}[c.name]; {
		case want.IsZero():
		case c.args.Since != "" && !q.Since.Equal(want):
			t.Errorf("%s: since %v, want %v", c.name, q.Since, want)
		case c.args.Until != "" && !q.Until.Equal(want):
			t.Errorf("%s: until %v, want %v", c.name, q.Until, want)
		}
	}
}

func TestLinesOutput(t *testing.T) {
	if got := (Lines{}).Output("a\nb"); got != "a\nb" {
		t.Errorf("no range: %q", got)
	}
	if got := (Lines{From: 2, To: 2}).Output("a\nb\nc\n"); got != "b\n" {
		t.Errorf("line 2: %q", got)
	}
}

func TestWrite(t *testing.T) {
	when := "2025-06-01T10:00:00Z"
	p := archive.Page{Total: 12, Records: []archive.Record{
		{ID: "toolu_01AB", Tool: "Bash", Target: "go test ./...\n  -run X", Time: &when, Failed: true, ExitCode: outcome.ExitCode(1), Lines: 1234, Tokens: 45678, Snippet: "--- **FAIL**: TestX"},
		{ID: "ctx_0123456789ab", Tool: "read_file", Target: "a\x1b[2J\x00.go", Lines: 3, Tokens: 12},
	}}
	var b bytes.Buffer
	if err := WriteTable(&b, p); err != nil {
		t.Fatal(err)
	}
	// Control characters escaped as ls -b does; runs of blanks one space.
	want := `ID                TIME (UTC)           TOOL       STATUS          LINES  TOKENS  TARGET                  MATCH
toolu_01AB        2025-06-01 10:00:00  Bash       failed, exit 1  1,234  45,678  go test ./...\n -run X  --- **FAIL**: TestX
ctx_0123456789ab  -                    read_file  ok                  3      12  a\x1b[2J\x00.go
2 of 12 executions shown (--limit for more, at most 100).
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteJSONL(&b, p); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"id":"toolu_01AB",`) || lines[2] != `{"total":12}` {
		t.Errorf("JSON lines:\n%s", b.String())
	}
	b.Reset()
	if err := WriteTable(&b, archive.Page{}); err != nil || b.String() != "No execution matches.\n" {
		t.Errorf("no match: %q %v", b.String(), err)
	}
}

// FuzzCheck: no argument makes Check panic, and what it accepts makes a
// query FTS5 can run (checked in internal/archive's fuzzing of FTSQuery).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"1,2", "2025-06-01", `"a b" c* OR d`, "", "9,3", "x"} {
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, rng, since, query string) {
		q, lines, err := Args{ID: "x", Range: rng}.Check()
		if err == nil && rng != "" && (lines.From < 1 || lines.To < lines.From || q.ID != "x") {
			t.Errorf("range %q accepted as %v", rng, lines)
		}
		if _, _, err := (Args{Since: since, Query: query}).Check(); err != nil {
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Errorf("%v is not an *ArgError", err)
			}
		}
	})
}

func TestLinesSelect(t *testing.T) {
	text := "one\ntwo\nthree"
	cases := []struct {
		l         Lines
		want, err string
	}{
		{Lines{}, text, ""},
		{Lines{From: 2, To: 9}, "two\nthree", ""},
		{Lines{From: 3, To: 3, Offset: 2}, "ree", ""},
		{Lines{Offset: 5}, "wo\nthree", ""},
		{Lines{From: 4, To: 4}, "", "range 4,4: the output has 3 lines"},
		{Lines{Offset: 13}, "", "offset 13: the output has 13 bytes"},
		{Lines{From: 1, To: 1, Offset: 4}, "", "offset 4: lines 1-1 have 4 bytes"},
	}
	for _, c := range cases {
		got, err := c.l.Select(text, 3)
		var ae *ArgError
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%+v: %q, %v; want %q", c.l, got, err, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err || !errors.As(err, &ae)):
			t.Errorf("%+v: %q, %v; want the *ArgError %q", c.l, got, err, c.err)
		}
	}
	if _, err := (Lines{From: 1, To: 1}).Select("", 0); err == nil {
		t.Error("line 1 of an empty output: no error")
	}
}

// TestEmptyID: an id given empty is a mistake (a marker's id lost on the
// way), not a request for the whole archive.
func TestEmptyID(t *testing.T) {
	for _, js := range []string{`{"id":""}`, `{"id":"  "}`, `{"id":"", "limit": 5}`} {
		var a Args
		if err := json.Unmarshal([]byte(js), &a); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		var ae *ArgError
		if _, _, err := a.Check(); err == nil || !errors.As(err, &ae) || !strings.Contains(err.Error(), "empty") {
			t.Errorf("%s: %v, want an *ArgError saying the id is empty", js, err)
		}
	}
	var zero Args
	if err := json.Unmarshal([]byte(`{"limit": 0}`), &zero); err != nil || !zero.LimitGiven {
		t.Fatalf(`{"limit": 0}: %+v, %v`, zero, err)
	}
	if _, _, err := zero.Check(); err == nil {
		t.Error(`{"limit": 0}: no error; 0 is not the default when given`)
	}
	for _, js := range []string{`{}`, `{"limit": 5}`, `{"id":"toolu_01AB"}`} {
		var a Args
		if err := json.Unmarshal([]byte(js), &a); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if _, _, err := a.Check(); err != nil {
			t.Errorf("%s: %v", js, err)
		}
	}
	if _, _, err := (Args{IDGiven: true}).Check(); err == nil {
		t.Error("IDGiven with no id: no error")
	}
}
