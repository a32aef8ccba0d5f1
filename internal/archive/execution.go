package archive

import (
	"path"
	"time"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Execution is one tool call and its output, as the archive stores it.
type Execution struct {
	Session string // marker.SessionKey of its transcript
	Handle  string // marker.Handle of its result
	CallID  string
	Seq     int    // the result's position among its transcript's results
	Tool    string // the tool's name as the transcript has it; "" for a result without its call
	Kind    tools.Kind
	// Input is the call's arguments as the model wrote them; InputIsText
	// says they are a custom tool's free text, not JSON. The archive
	// stores them in one spelling (tools.Canonical), made only for the
	// executions it does not have yet.
	Input       string
	InputIsText bool
	Path        string   // the file or directory the call is about, as tools.Args.File gives it
	Paths       []string // every path --path finds it by: each file it names, relative to the session's directory and absolute
	Range       tools.Range
	Command     string
	Target      string // what the call was about: path and range, command, pattern or URL
	Intent      string
	Time        time.Time // when the call was made (else when its result came), zero when the transcript does not say
	Failed      bool
	ExitCode    outcome.Code
	Output      string // the result's text, byte for byte
	Format      transcript.Format
	Cwd         string
}

// A copy of an output that a format keeps beside the result
// (transcript.Mirror) whose text is not the result's is an Execution of
// its own when a filter replaced it: its call's, with the copy's text,
// under the handle its marker cites (marker.Handles.Mirror), and no call
// id, so that the call id gives the result. Only its handle gives it:
// queries list the results alone.

// Executions returns the executions of the given results of t, in order.
// Results that are not an original output are left out: the marker of a
// ctx-* filter, or a result ctx-truncate cut (their originals are what the
// archive is for).
func Executions(t *transcript.Transcript, results []*transcript.Result) []Execution {
	session := marker.SessionKey(t)
	out := make([]Execution, 0, len(results))
	for _, r := range results {
		if e, ok := execution(t, session, r, r.Text()); ok {
			out = append(out, e)
		}
	}
	return out
}

// Originals returns the executions of the results a filter replaced, each
// with the text it had before (stats.Report's Replaced), and with the
// arguments it had where the filter replaced those, in order; and of the
// copies of outputs it replaced with a marker, each under the handle its
// marker cites. A result whose text was not an original output either (a
// cut that was then summarized) is left out, and so is a copy whose marker
// cites nothing (a copy emptied).
func Originals(t *transcript.Transcript, replaced []stats.Replaced) []Execution {
	if len(replaced) == 0 {
		return nil
	}
	session := marker.SessionKey(t)
	out := make([]Execution, 0, len(replaced))
	for _, rp := range replaced {
		if rp.Mirror != "" && rp.Handle == "" {
			continue
		}
		e, ok := execution(t, session, rp.Result, rp.Before)
		if !ok {
			continue
		}
		if rp.Input != "" {
			e.Input = rp.Input // the arguments a filter left the text of an edit out of
		}
		if rp.Mirror != "" && rp.Handle != e.Handle {
			e.Handle, e.CallID = rp.Handle, ""
		}
		out = append(out, e)
	}
	return out
}

// execution is the execution of result r of t whose text is text, and
// false when that is not an original output.
func execution(t *transcript.Transcript, session string, r *transcript.Result, text string) (Execution, bool) {
	if !marker.Original(text) {
		return Execution{}, false
	}
	e := Execution{
		Session: session, Handle: marker.HandleOf(session, r, text), CallID: r.CallID, Seq: r.Index,
		Failed: r.Failed(), ExitCode: r.ExitCode,
		Output: text, Format: t.Format, Cwd: t.Cwd,
		Time: r.Message.Time.UTC(),
	}
	if c := r.Call; c != nil {
		e.Tool, e.Kind = c.Name, c.Kind
		e.Input, e.InputIsText = c.Input, c.InputIsText
		e.Path, e.Range, e.Command, e.Intent = c.Args.File(t.Cwd), c.Args.Range, c.Args.Command, c.Args.Intent
		e.Target = c.Args.Target(t.Cwd)
		e.Paths = pathsOf(c.Args, t.Cwd)
		if ct := c.Message.Time; !ct.IsZero() {
			e.Time = ct.UTC()
		}
	}
	return e, true
}

// pathsOf is every path a call names, each as tools.NormPath gives it and,
// when that is relative to an absolute session directory, absolute too, so
// that --path finds the call by either.
func pathsOf(a tools.Args, cwd string) []string {
	names := a.Paths
	if len(names) == 0 && a.Path != "" {
		names = []string{a.Path}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range names {
		n := tools.NormPath(p, a.Dir, cwd)
		add(n)
		if !path.IsAbs(n) && path.IsAbs(cwd) {
			add(path.Join(cwd, n))
		}
	}
	return out
}
