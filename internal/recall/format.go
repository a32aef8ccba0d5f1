package recall

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// WriteTable writes a page of records for a person: one row each, and how
// many matched.
func WriteTable(w io.Writer, p archive.Page) error {
	snippets := false
	for _, r := range p.Records {
		snippets = snippets || r.Snippet != ""
	}
	t := &textfmt.Table{Right: map[int]bool{4: true, 5: true}}
	head := []string{"ID", "TIME (UTC)", "TOOL", "STATUS", "LINES", "TOKENS", "TARGET"}
	if snippets {
		head = append(head, "MATCH")
	}
	t.Row(head...)
	for _, r := range p.Records {
		when := "-"
		if r.Time != nil {
			when = strings.Replace((*r.Time)[:min(len(*r.Time), 19)], "T", " ", 1)
		}
		row := []string{r.ID, when, oneLine(r.Tool, 24), status(r), textfmt.Int(r.Lines), textfmt.Int(r.Tokens), oneLine(r.Target, 60)}
		if snippets {
			row = append(row, oneLine(r.Snippet, 100))
		}
		t.Row(row...)
	}
	var b bytes.Buffer
	if len(p.Records) > 0 {
		if err := t.Write(&b); err != nil {
			return err
		}
	}
	b.WriteString(count(p) + "\n")
	_, err := w.Write(b.Bytes())
	return err
}

// count says how many executions matched and how many are shown.
func count(p archive.Page) string {
	switch {
	case p.Total == 0:
		return "No execution matches."
	case p.Total == 1:
		return "1 execution."
	case len(p.Records) == p.Total:
		return textfmt.Int(p.Total) + " executions."
	}
	return textfmt.Int(len(p.Records)) + " of " + textfmt.Int(p.Total) + " executions shown (--limit for more, at most 100)."
}

func status(r archive.Record) string {
	if s := outcome.Status(r.Failed, r.ExitCode); s != "" {
		return s
	}
	return "ok"
}

// oneLine puts s on one line of at most n characters and their escapes:
// runs of spaces and tabs become one space, and control characters are
// escaped as in every report (textfmt.Escape: \n, \x1b), as ls -b does.
func oneLine(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
	return textfmt.Escape(textfmt.Clip(s, n))
}

// WriteJSONL writes a page as JSON lines: a record a line, then
// {"total": N}, how many executions matched.
func WriteJSONL(w io.Writer, p archive.Page) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range p.Records {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := enc.Encode(struct {
		Total int `json:"total"`
	}{p.Total}); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
