package loops

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// SchemaVersion is the version of the --json report's schema
// (docs/loops.md); it changes when a field changes meaning or goes away.
// 2: calls counts every call, denied and cancelled ones too, as every
// report does.
const SchemaVersion = 2

// Summary is ctx-loops' report over its inputs, as --json prints it.
type Summary struct {
	Version int      `json:"version"`
	Min     int      `json:"min"`
	Cycles  int      `json:"cycles"`
	Files   []Report `json:"files"`
}

// LineReport is one line of ctx-loops --each-line: the report of the
// transcript on line Line of its input, with the schema's version and the
// thresholds.
type LineReport struct {
	Version int `json:"version"`
	Min     int `json:"min"`
	Cycles  int `json:"cycles"`
	Line    int `json:"line"`
	Report
}

// Report is the loops of one transcript.
type Report struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Calls, Failed, Denied and Cancelled count the transcript's calls by
	// how they ended, as every report does (transcript.Tally): a command
	// and its polls are one call; a denied or cancelled call was not run,
	// and no loop holds it.
	Calls     int          `json:"calls"`
	Failed    int          `json:"failed"`
	Denied    int          `json:"denied"`
	Cancelled int          `json:"cancelled"`
	Loops     []LoopReport `json:"loops"`
}

// LoopReport is one loop, as the report gives it.
type LoopReport struct {
	Kind    Kind      `json:"kind"`
	Tool    string    `json:"tool"`
	What    string    `json:"what,omitempty"` // a repeat's command, path or arguments
	Count   int       `json:"count"`          // calls in the loop
	Period  int       `json:"period,omitempty"`
	Rounds  int       `json:"rounds,omitempty"`
	First   CallRef   `json:"first"`
	Last    CallRef   `json:"last"`
	Calls   []CallRef `json:"calls"`
	Error   string    `json:"error,omitempty"`
	Verdict string    `json:"verdict"`
}

// CallRef is one call of a loop: its id and where it is.
type CallRef struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Failed bool   `json:"failed"`
	Line   int    `json:"line"`              // where the call's message starts
	Elem   *int   `json:"element,omitempty"` // its index in a JSON array of messages
}

func ref(s Step) CallRef {
	r := CallRef{CallID: s.CallID, Tool: s.Tool, Failed: s.Failed, Line: s.Pos.Line}
	if s.Pos.Element >= 0 {
		e := s.Pos.Element
		r.Elem = &e
	}
	return r
}

// Analyze finds the loops of t and reports them.
func (d *Detector) Analyze(t *transcript.Transcript) Report {
	steps := Steps(t, t.Cwd)
	n := t.Tally()
	rep := Report{Format: string(t.Format), Calls: n.Calls, Failed: n.Failed, Denied: n.Denied, Cancelled: n.Cancelled, Loops: []LoopReport{}}
	for _, l := range d.Find(steps) {
		lr := LoopReport{Kind: l.Kind, Tool: l.Tool, What: l.What, Count: len(l.Steps), Period: l.Period, Rounds: l.Rounds,
			Error: l.Error, Verdict: l.Verdict()}
		for _, i := range l.Steps {
			lr.Calls = append(lr.Calls, ref(steps[i]))
		}
		lr.First, lr.Last = lr.Calls[0], lr.Calls[len(lr.Calls)-1]
		rep.Loops = append(rep.Loops, lr)
	}
	return rep
}

// WriteText writes the report for people:
//
//	s.jsonl: claude-code, 186 calls, 12 failed; 1 loop
//
//	  repeat  Bash  go test ./...
//	    3 calls from line 120 to line 188: toolu_01A, toolu_01B, toolu_01C
//	    error: --- FAIL: TestAdd (0.00s)
//	    the same Bash call failed 3 times with the same arguments and nothing changed in between: ...
func (s Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, r := range s.Files {
		if i > 0 {
			b.WriteByte('\n')
		}
		notRun := ""
		if r.Denied > 0 {
			notRun += ", " + textfmt.Int(r.Denied) + " denied"
		}
		if r.Cancelled > 0 {
			notRun += ", " + textfmt.Int(r.Cancelled) + " cancelled"
		}
		fmt.Fprintf(&b, "%s: %s, %s, %s failed%s; %s\n", textfmt.Escape(r.File), r.Format, textfmt.Plural(r.Calls, "call", "calls"), textfmt.Int(r.Failed), notRun, loopCount(len(r.Loops)))
		for _, l := range r.Loops {
			head := "  " + string(l.Kind) + "  " + textfmt.Escape(l.Tool)
			if l.What != "" {
				head += "  " + textfmt.Escape(textfmt.Clip(l.What, 100))
			}
			b.WriteString(head + "\n")
			ids := make([]string, len(l.Calls))
			for j, c := range l.Calls {
				ids[j] = textfmt.Escape(c.CallID)
			}
			fmt.Fprintf(&b, "    %s from %s to %s: %s\n", textfmt.Plural(l.Count, "call", "calls"), where(l.First), where(l.Last), strings.Join(ids, ", "))
			if l.Error != "" {
				fmt.Fprintf(&b, "    error: %s\n", textfmt.Escape(l.Error))
			}
			fmt.Fprintf(&b, "    %s\n", textfmt.Escape(l.Verdict))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func where(c CallRef) string {
	if c.Elem != nil {
		return fmt.Sprintf("element %d", *c.Elem)
	}
	return fmt.Sprintf("line %d", c.Line)
}

func loopCount(n int) string {
	if n == 0 {
		return "no loops"
	}
	return textfmt.Plural(n, "loop", "loops")
}
