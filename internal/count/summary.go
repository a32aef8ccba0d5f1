package count

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// SchemaVersion is the version of the --json schema; it changes only when a
// field changes meaning or goes away. 2: a command and the calls that poll
// it are one call (tool_calls, polls), and errors counts the calls that
// failed, not those denied or cancelled (denied, cancelled).
const SchemaVersion = 2

// Summary is ctx-count's whole output: a report per file, their total, and
// the budget and before/after comparisons when asked for. Its JSON form is
// the --json schema.
type Summary struct {
	Version  int      `json:"version"`
	Encoding string   `json:"encoding"`
	Files    []Report `json:"files"`
	Total    Report   `json:"total"`
	Budget   *Budget  `json:"budget,omitempty"`
	Before   *Before  `json:"before,omitempty"`
}

// Budget is the total measured against a context window.
type Budget struct {
	Tokens int     `json:"tokens"`
	Used   int     `json:"used"`
	Share  float64 `json:"share"`
	Over   bool    `json:"over"`
}

// NewBudget measures used tokens against a budget.
func NewBudget(budget, used int) *Budget {
	return &Budget{Tokens: budget, Used: used, Share: round4(float64(used) / float64(budget)), Over: used > budget}
}

// Before compares the input with an earlier version of it.
type Before struct {
	File       string  `json:"file"`
	Tokens     int     `json:"tokens"`
	After      int     `json:"after"`
	Saved      int     `json:"saved"`
	SavedShare float64 `json:"saved_share"`
}

// NewBefore compares before and after token counts.
func NewBefore(file string, before, after int) *Before {
	b := &Before{File: file, Tokens: before, After: after, Saved: before - after}
	if before > 0 {
		b.SavedShare = round4(float64(b.Saved) / float64(before))
	}
	return b
}

// TextOptions control the text report.
type TextOptions struct {
	Top   int  // how many files read to list
	Color bool // bold headings, for a terminal
}

// WriteText writes the summary for people: headline numbers, then tables by
// role, by tool, the largest results and the files read.
func (s *Summary) WriteText(w io.Writer, opts TextOptions) error {
	p := &printer{w: w, color: opts.Color}
	t := s.Total
	if len(s.Files) == 1 {
		f := s.Files[0]
		p.line("%s: %s, %s messages, %s", textfmt.Escape(f.File), f.Format, textfmt.Int(f.Messages), callsLine(f))
	} else {
		p.heading("Files")
		tb := textfmt.Table{Indent: "  ", Right: map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true}}
		tb.Row("FILE", "FORMAT", "MESSAGES", "CALLS", "TOKENS", "TOOL OUTPUT", "SHARE")
		for _, f := range s.Files {
			tb.Row(f.File, f.Format, textfmt.Int(f.Messages), textfmt.Int(f.ToolCalls), textfmt.Int(f.Tokens), textfmt.Int(f.ToolOutputTokens), textfmt.Percent(f.ToolOutputShare))
		}
		tb.Row("total", "", textfmt.Int(t.Messages), textfmt.Int(t.ToolCalls), textfmt.Int(t.Tokens), textfmt.Int(t.ToolOutputTokens), textfmt.Percent(t.ToolOutputShare))
		p.table(&tb)
	}
	p.line("")
	head := textfmt.Table{Indent: "  ", Right: map[int]bool{1: true}}
	head.Row("total", textfmt.Int(t.Tokens), "tokens ("+s.Encoding+")")
	head.Row("tool output", textfmt.Int(t.ToolOutputTokens), "tokens, "+textfmt.Percent(t.ToolOutputShare)+" of the total")
	if t.Images > 0 {
		head.Row("images", textfmt.Int(t.Images), "(estimated from their size)")
	}
	if b := s.Budget; b != nil {
		verdict := textfmt.Int(b.Tokens-b.Used) + " tokens left"
		if b.Over {
			verdict = "over by " + textfmt.Int(b.Used-b.Tokens)
		}
		head.Row("budget", textfmt.Int(b.Tokens), "tokens, "+textfmt.Percent(b.Share)+" used, "+verdict)
	}
	if b := s.Before; b != nil {
		head.Row("before", textfmt.Int(b.Tokens), "tokens in "+b.File)
		head.Row("after", textfmt.Int(b.After), "tokens")
		head.Row("saved", textfmt.Int(b.Saved), "tokens, "+textfmt.Percent(b.SavedShare))
	}
	p.table(&head)

	if len(t.Roles) > 0 {
		p.heading("By role")
		tb := textfmt.Table{Indent: "  ", Right: map[int]bool{1: true, 2: true, 3: true}}
		tb.Row("ROLE", "MESSAGES", "TOKENS", "SHARE")
		for _, r := range t.Roles {
			tb.Row(r.Role, textfmt.Int(r.Messages), textfmt.Int(r.Tokens), textfmt.Percent(share(r.Tokens, t.Tokens)))
		}
		p.table(&tb)
	}
	if len(t.Tools) > 0 {
		p.heading("By tool")
		tb := textfmt.Table{Indent: "  ", Right: map[int]bool{2: true, 3: true, 4: true, 5: true}}
		tb.Row("TOOL", "KIND", "CALLS", "FAILED", "INPUT TOKENS", "RESULT TOKENS")
		for _, x := range t.Tools {
			tb.Row(x.Name, x.Kind, textfmt.Int(x.Calls), textfmt.Int(x.Errors), textfmt.Int(x.InputTokens), textfmt.Int(x.ResultTokens))
		}
		p.table(&tb)
	}
	if len(t.Largest) > 0 {
		p.heading("Largest tool results")
		tb := textfmt.Table{Indent: "  ", Right: map[int]bool{0: true}}
		if len(s.Files) > 1 {
			tb.Row("TOKENS", "FILE", "TOOL", "CALL", "TARGET")
		} else {
			tb.Row("TOKENS", "TOOL", "CALL", "TARGET")
		}
		for _, x := range t.Largest {
			target := clip(x.Target, 60)
			var notes []string
			if x.Poll {
				notes = append(notes, "poll")
			}
			if x.End != outcome.OK {
				notes = append(notes, x.End.String())
			}
			if len(notes) > 0 {
				target += " (" + strings.Join(notes, ", ") + ")"
			}
			if len(s.Files) > 1 {
				tb.Row(textfmt.Int(x.Tokens), x.File, x.Tool, x.CallID, target)
			} else {
				tb.Row(textfmt.Int(x.Tokens), x.Tool, x.CallID, target)
			}
		}
		p.table(&tb)
	}
	if len(t.FilesRead) > 0 {
		p.heading("Files read")
		tb := textfmt.Table{Indent: "  ", Right: map[int]bool{0: true, 1: true, 2: true, 3: true}}
		tb.Row("READS", "TOKENS", "RE-READ", "DEDUPE", "PATH")
		reread, restTokens := 0, 0
		for i, f := range t.FilesRead {
			reread += f.RereadTokens
			if i >= opts.Top {
				restTokens += f.Tokens
				continue
			}
			tb.Row(textfmt.Int(f.Reads), textfmt.Int(f.Tokens), textfmt.Int(f.RereadTokens), textfmt.Int(f.DedupeTokens), f.Path)
		}
		p.table(&tb)
		if rest := len(t.FilesRead) - opts.Top; rest > 0 {
			p.line("  ... and %s more files read, %s tokens", textfmt.Int(rest), textfmt.Int(restTokens))
		}
		if reread > 0 || t.DedupeTokens > 0 {
			p.line("  %s tokens re-read lines already read; ctx-dedupe saves %s of them.", textfmt.Int(reread), textfmt.Int(t.DedupeTokens))
		}
	}
	return p.err
}

// callsLine counts the calls by how they ended: "105 tool calls (57
// polls), 4 failed, 2 denied".
func callsLine(r Report) string {
	s := textfmt.Plural(r.ToolCalls, "tool call", "tool calls")
	if r.Polls > 0 {
		s += " (" + textfmt.Plural(r.Polls, "poll", "polls") + ")"
	}
	s += ", " + textfmt.Int(r.Errors) + " failed"
	if r.Denied > 0 {
		s += ", " + textfmt.Int(r.Denied) + " denied"
	}
	if r.Cancelled > 0 {
		s += ", " + textfmt.Int(r.Cancelled) + " cancelled"
	}
	return s
}

func share(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

// clip shortens s to n characters on one line.
func clip(s string, n int) string {
	return textfmt.Clip(strings.Join(strings.Fields(s), " "), n)
}

// printer writes lines and keeps the first error.
type printer struct {
	w     io.Writer
	color bool
	err   error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) heading(s string) {
	p.line("")
	if p.color {
		s = "\x1b[1m" + s + "\x1b[0m"
	}
	p.line("%s", s)
}

func (p *printer) table(t *textfmt.Table) {
	if p.err == nil {
		p.err = t.Write(p.w)
	}
}

// LineReport is ctx-count --each-line's record for one line of its input:
// the transcript's report, with the line it was on.
type LineReport struct {
	Version  int    `json:"version"`
	Encoding string `json:"encoding"`
	Line     int    `json:"line"`
	Report
}
