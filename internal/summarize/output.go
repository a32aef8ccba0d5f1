package summarize

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// output is a tool result as the summarizers see it.
type output struct {
	call *transcript.Call
	cwd  string
	// body is what the tool itself printed (outcome.Body): the output
	// without a format's wrapper.
	body string
	// must gathers, as a kind's summary is made, what any summary of the
	// output must keep (model.go).
	must *musts
	// handle is the archive's handle of the output, which the marker line
	// cites; "" for none.
	handle string
}

// musts are what a summary of an output must keep, because the rules keep
// them: the facts of the marker line (test counts, matches, files changed),
// the lines that say what failed, and the paths the summary names. A
// model's summary shows the facts and gets the lines and paths it left out
// appended.
type musts struct {
	facts, errors, paths []string
	// lines are the output's error lines (outcome.ErrorLines), found once
	// for every part of a summary that asks (errorLines).
	lines     []outcome.Line
	linesRead bool
	morePaths int  // the paths named beyond paths, counted only
	generic   bool // paths are those the output names (outcome.Paths), not the kind's own
	// names are the definitions a read's outline names, each once, and
	// outline its lines, which a model is shown.
	names   []string
	outline string
}

func newOutput(c *transcript.Call, text, cwd, handle string) output {
	return output{call: c, cwd: cwd, body: outcome.Body(text), must: &musts{}, handle: handle}
}

// handleOf is a call's result's handle by h, or "" without one.
func handleOf(h func(*transcript.Result) string, c *transcript.Call) string {
	if h == nil || c.Result == nil {
		return ""
	}
	return h(c.Result)
}

// status says how the call ended, as far as the transcript tells: "exit 0",
// "failed, exit 1", "failed", "still running" for a command whose output
// was taken before it ended (its session's last poll tells how it did: a
// poll names the session in its target, the first output here), "ok" for a
// command that reported no error, and "" for a tool that has no such thing.
func (o output) status() string {
	r := o.call.Result
	switch {
	case r == nil:
		return ""
	case r.Failed() || r.ExitCode.Known():
		return outcome.Status(r.Failed(), r.ExitCode)
	case r.Outcome().Session != 0 && o.call.Args.Session == 0:
		return outcome.Running(r.Outcome().Session)
	case r.Outcome().Session != 0:
		return "still running"
	case o.call.Args.Command != "":
		return "ok"
	}
	return ""
}

// target is what the call was about, for the marker line: the command in
// backquotes, the pattern in double quotes as written (and where it
// searched), the path with its range, the URL, or the query in quotes.
func (o output) target() string {
	a := o.call.Args
	switch {
	case a.Command != "" && a.Session != 0:
		return "`" + oneLine(a.Command, 160) + "` (session " + strconv.Itoa(a.Session) + ")"
	case a.Command != "":
		return "`" + oneLine(a.Command, 160) + "`"
	case a.Pattern != "" && a.Path != "":
		return `"` + oneLine(a.Pattern, 60) + `" in ` + a.File(o.cwd)
	case a.Pattern != "":
		return `"` + oneLine(a.Pattern, 60) + `"`
	case a.Path != "":
		return a.Target(o.cwd)
	case strings.Contains(a.URL, "://"):
		return textfmt.Clip(a.URL, 120)
	case a.URL != "":
		return `"` + oneLine(a.URL, 100) + `"`
	case a.Session != 0:
		return "session " + strconv.Itoa(a.Session)
	}
	return ""
}

// line makes a summary: the marker line "[ctx-summarize] TOOL TARGET:
// FACTS." citing the output's handle, and the detail after it. A marker
// line must not read as a pointer ("call ID", docs/markers.md); a command
// or path that would is moved to the next line, with the facts.
func (o output) line(facts []string, detail string) string {
	var kept []string
	for _, f := range facts {
		if f != "" {
			kept = append(kept, f)
		}
	}
	what := o.call.Name
	if t := o.target(); t != "" {
		what += " " + t
	}
	text := marker.Cite(what+": "+strings.Join(kept, "; ")+".", o.handle)
	if strings.Contains(text, "call ") && len(marker.Refs(marker.Line("summarize", text))) > 0 {
		text = o.call.Name + ":\n" + text
	}
	return marker.Line("summarize", text) + detail
}

// errorLines are the lines of the output that say what went wrong.
func (o output) errorLines() []outcome.Line {
	if !o.must.linesRead {
		o.must.lines, o.must.linesRead = outcome.ErrorLines(o.body), true
	}
	return o.must.lines
}

// keepErrors makes every line of the output that says what went wrong a
// line any summary of it must keep.
func (o output) keepErrors() {
	for _, l := range o.errorLines() {
		o.must.errors = append(o.must.errors, l.Text)
	}
}

// kept appends to a summary what the output's summary must keep that it
// does not show: each error line on a line of its own, and, with paths (a
// model's summary), the names a read's outline names on a line "Defines:
// A, B", and the paths on a line "Paths: A, B, … (N more)".
func (o output) kept(summary string, paths bool) string {
	var b strings.Builder
	b.WriteString(summary)
	for _, e := range o.must.errors {
		if e = clipLine(e); !strings.Contains(summary, strings.TrimSpace(e)) {
			b.WriteString("\n" + e)
		}
	}
	var missing []string
	for _, p := range o.must.paths {
		if !paths {
			break
		}
		if !strings.Contains(summary, p) {
			missing = append(missing, p)
		}
	}
	var undefined []string
	for _, n := range o.must.names {
		if paths && !strings.Contains(summary, n) {
			undefined = append(undefined, n)
		}
	}
	if len(undefined) > 0 {
		b.WriteString("\nDefines: " + strings.Join(undefined, ", "))
	}
	switch {
	case len(missing) > 0 && o.must.morePaths > 0:
		b.WriteString("\nPaths: " + strings.Join(missing, ", ") + ", … (" + textfmt.Int(o.must.morePaths) + " more)")
	case len(missing) > 0:
		b.WriteString("\nPaths: " + strings.Join(missing, ", "))
	}
	return b.String()
}
