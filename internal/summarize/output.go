package summarize

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// output is a tool result as the summarizers see it.
type output struct {
	call *transcript.Call
	cwd  string
	// body is the output without the wrapper some formats put around a
	// command's output (mini-swe-agent's <returncode>/<output>, Codex's
	// "Chunk ID: … Output:" header) and without a trailing
	// <system-reminder> block: what the tool itself printed.
	body string
	// must gathers, as a kind's summary is made, what any summary of the
	// output must keep (model.go).
	must *musts
}

// musts are what a summary of an output must keep, because the rules keep
// them: the facts of the marker line (test counts, matches, files changed),
// the lines that say what failed, and the paths the summary names. A
// model's summary shows the facts and gets the lines and paths it left out
// appended.
type musts struct {
	facts, errors, paths []string
}

func newOutput(c *transcript.Call, text, cwd string) output {
	return output{call: c, cwd: cwd, body: unwrap(text), must: &musts{}}
}

// status says how the call ended, as far as the transcript tells: "exit 0",
// "failed, exit 1", "failed", "ok" for a command that reported no error,
// and "" for a tool that has no such thing.
func (o output) status() string {
	r := o.call.Result
	switch {
	case r == nil:
		return ""
	case r.Failed() && r.HasExitCode:
		return "failed, exit " + strconv.Itoa(r.ExitCode)
	case r.Failed():
		return "failed"
	case r.HasExitCode:
		return "exit " + strconv.Itoa(r.ExitCode)
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
	}
	return ""
}

// line makes a summary: the marker line "[ctx-summarize] TOOL TARGET:
// FACTS." and the detail after it. A marker line must not read as a
// pointer ("call ID", docs/markers.md); a command or path that would is
// moved to the next line.
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
	text := what + ": " + strings.Join(kept, "; ") + "."
	if strings.Contains(text, "call ") && len(marker.Refs(marker.Line("summarize", text))) > 0 {
		text = o.call.Name + ":\n" + text
	}
	return marker.Line("summarize", text) + detail
}

// unwrap returns what the tool printed, without the formats' wrappers.
func unwrap(text string) string {
	switch {
	case strings.HasPrefix(text, "<returncode>"):
		// mini-swe-agent: <returncode>N</returncode>\n<output>\n…</output>
		_, rest := nextLine(text)
		rest = strings.TrimLeft(rest, "\n")
		if strings.HasPrefix(rest, "<warning>") {
			// Advice to the model about a long output, not the output.
			if _, after, ok := strings.Cut(rest, "</warning>"); ok {
				rest = strings.TrimLeft(after, "\n")
			}
		}
		if inner, ok := strings.CutPrefix(rest, "<output>\n"); ok {
			if body, ok := strings.CutSuffix(strings.TrimRight(inner, "\n"), "</output>"); ok {
				return body
			}
		}
		return rest
	case isCodexHeader(text):
		// Codex: "Chunk ID: …\nWall time: …\nProcess exited with code 0\n…Output:\n…"
		for rest := text; rest != ""; {
			var line string
			line, rest = nextLine(rest)
			if line == "Output:" {
				// A long output starts with its own count of lines.
				if first, after := nextLine(rest); strings.HasPrefix(first, "Total output lines: ") {
					rest = strings.TrimLeft(after, "\n")
				}
				return rest
			}
			if !isCodexHeader(line) {
				break
			}
		}
		return text
	}
	if body, ok := strings.CutSuffix(strings.TrimRight(text, "\n"), "</system-reminder>"); ok {
		// Claude Code appends a reminder to reads; it is not the file.
		if i := strings.LastIndex(body, "<system-reminder>"); i >= 0 {
			return strings.TrimRight(body[:i], "\n")
		}
	}
	return text
}

var codexHeaders = []string{"Chunk ID: ", "Wall time: ", "Process exited with code ", "Exit code: ", "Original token count: ", "Total output lines: "}

func isCodexHeader(line string) bool {
	for _, h := range codexHeaders {
		if strings.HasPrefix(line, h) {
			return true
		}
	}
	return false
}
