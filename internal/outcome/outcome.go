// Package outcome reads what a tool's output says: whether the call failed
// and why, its exit code, a running command's session, the lines that
// matter (errors, failing tests, assertions, crashes, a traceback's last
// frame, test summaries, exit statuses), the counts of a test run, and what
// the tool printed inside a format's wrapper. It is the one place that knows
// how shells, test runners, compilers, read tools and agents word these;
// the filters ask it and keep only their policy.
//
//	o := outcome.Read(text, outcome.Hint{IsError: isError})
//	o.End, o.Reason           // outcome.Failed, "exit code 2"
//	o.ExitCode.Get()          // 2, true
//	o.Message(text)           // "failed, exit 2: sed: can't read x.go: No such file or directory"
//
//	for l := range outcome.Lines(text) { … l.N, l.Text, l.Kind, l.Kind.IsError() … }
//	outcome.Classify("npm ERR! missing script: test") // Error, true
//	outcome.Tests(text).String()                      // "47 tests, 45 passed, 2 failed"
//	outcome.Body(text)                                // what the tool printed, without the format's wrapper
//	outcome.ReadContent(text)                         // a read's file content, without line numbers
//
// Read looks only at the ends of a text (HeadBytes, TailBytes; ReadEnds
// takes just those), so that the model can judge every result of a large
// transcript without decoding it; Lines and Tests read the whole text, in
// one pass each (LinesFrom skips the work on a start it only needs for
// context), fast enough for ctx-truncate over 100 MB. The table of lines is
// data (rules.go) with a test line per row. It depends on the standard
// library and internal/textfmt only.
package outcome

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// Hint is what the format says about an output beside its text.
type Hint struct {
	// IsError: the format marks the call as failed (the is_error flag of
	// Anthropic's tool_result, which Claude Code sets).
	IsError bool
	// ExitCode is an exit code the format gives apart from the text (Codex's
	// metadata.exit_code and exec_command_end events, mini-swe-agent's
	// extra.returncode). An output taken while its command still ran
	// (Session) has none of its own: it is left out.
	ExitCode Code
}

// Outcome is how a call ended, as its output and the format tell.
type Outcome struct {
	// End is how the call ended: ok, failed, denied or cancelled.
	End End
	// Reason says why it did not end ok: "exit code 2", "is_error",
	// "starts with Error:", "not applied", "the user refused it", "a
	// parallel call failed"…; "" when it did.
	Reason string
	// ExitCode is the command's exit status: from the Hint, else from the
	// output's wording (Claude Code's "Exit code 2" first line,
	// mini-swe-agent's <returncode>2</returncode>, Codex's "Process exited
	// with code 2" or "Exit code: 2" header line).
	ExitCode Code
	// Session is the id of a command still running when the output was
	// taken, whose later output another call fetches (Codex's unified exec:
	// "Process running with session ID 48230"); 0 when there is none.
	Session int
}

// HeadBytes and TailBytes are how much of a text's start and end Read looks
// at: the lines that end in its first HeadBytes bytes, and those that start
// in its last TailBytes.
const (
	HeadBytes = 512
	TailBytes = 512
)

// Read says how a call ended: denied or cancelled when its output is the
// agent's word that it was not run (the user refused it, a hook blocked
// it, a call in parallel failed: see notRun); failed when its tool says it
// refused the call's input (an edit not applied), when the format marks it
// so, when its exit code is not 0, or, when no exit code is known, when its
// first line starts with "Error:" (any case), as tools that report errors
// in their text do. An exit code of 0 means the call did not fail,
// whatever its text says, unless the format marks it as failed.
func Read(text string, h Hint) Outcome { return ReadEnds(text, text, h) }

// ReadEnds is Read for a caller that holds only the ends of a long text:
// head is its first HeadBytes+1 bytes or more, tail its last TailBytes+1
// bytes or more (either may be the whole text).
func ReadEnds(head, tail string, h Hint) Outcome {
	var o Outcome
	if end, reason, ok := readNotRun(head); ok {
		o.End, o.Reason = end, reason
		return o
	}
	code, hasCode := o.readHead(head)
	if o.Session == 0 {
		// An output taken while its command ran has no exit code: the
		// format's (Codex's exec_command_end) is the command's, which a
		// later call's output shows.
		o.ExitCode = h.ExitCode
		if !hasCode {
			code, hasCode = readTail(tail)
		}
	}
	if !o.ExitCode.Known() && hasCode {
		o.ExitCode = ExitCode(code)
	}
	switch {
	case o.ExitCode.Nonzero():
		o.End, o.Reason = Failed, "exit code "+o.ExitCode.String()
	case h.IsError:
		o.End, o.Reason = Failed, "is_error"
	case !o.ExitCode.Known() && startsWithError(head):
		o.End, o.Reason = Failed, "starts with Error:"
	}
	return o
}

// Failed reports whether the call ran and failed.
func (o Outcome) Failed() bool { return o.End == Failed }

// Running is how the marker of a ctx-* filter that replaced an output
// taken while its command ran says so: "still running, session 48230".
// Read finds the session in the marker's first line, as it does in the
// output's header, so that the calls that poll the session stay joined to
// the command once its first output is replaced: a filter's second run
// sees the calls its first saw.
func Running(session int) string { return runningNote + strconv.Itoa(session) }

const runningNote = "still running, session "

// markerSession is the session that a marker's first line names (Running,
// as the facts after the call's target: "TARGET: still running, session
// N; …"), or the line after it when the first ends with a colon (a target
// moved there), or 0.
func markerSession(head string) int {
	first, rest, _ := strings.Cut(head, "\n")
	if strings.HasSuffix(first, ":") {
		first, _, _ = strings.Cut(rest, "\n")
	}
	i := strings.LastIndex(first, ": "+runningNote)
	if i < 0 {
		return 0
	}
	n, tail, ok := leadingInt(first[i+len(": "+runningNote):])
	if !ok || n <= 0 || tail != "" && tail[0] != ';' && tail[0] != '.' {
		return 0
	}
	return n
}

// readHead finds the exit code and the session in the wrapper a format puts
// before a command's output, or the session in the marker that replaced it.
func (o *Outcome) readHead(text string) (code int, hasCode bool) {
	if strings.HasPrefix(text, "[ctx-") {
		o.Session = markerSession(text)
		return 0, false
	}
	head := text
	if len(head) > HeadBytes {
		// Whole lines only: a number cut short would read as another.
		head = head[:strings.LastIndexByte(head[:HeadBytes], '\n')+1]
	}
	if rest, ok := strings.CutPrefix(head, "<returncode>"); ok {
		if n, tail, ok := leadingInt(rest); ok && strings.HasPrefix(tail, "</returncode>") {
			return n, true
		}
	}
	first, _, _ := strings.Cut(head, "\n")
	if rest, ok := strings.CutPrefix(strings.TrimRight(first, " \r"), "Exit code "); ok {
		if n, tail, ok := leadingInt(rest); ok && tail == "" {
			return n, true // Claude Code's Bash: the first line only
		}
	}
	// Codex: header lines, up to "Output:".
	for rest := head; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimRight(line, " \r")
		h, ok := codexHeader(line)
		if !ok || h == "Output:" {
			break
		}
		n, tail, isInt := leadingInt(line[len(h):])
		switch {
		case !isInt || tail != "":
		case h == "Exit code: " || h == "Process exited with code ":
			code, hasCode = n, true
		case h == "Process running with session ID " && n > 0:
			o.Session = n
		}
	}
	return code, hasCode
}

// readTail finds an exit code in the lines a tool puts after a command's
// output: OpenHands' "[The command completed with exit code 1.]" trailer,
// or a last line "Exit code: 1", "Exit code 1" or "Process exited with code
// 1".
func readTail(text string) (int, bool) {
	if len(text) > TailBytes {
		// Whole lines only: a number cut short would read as another.
		cut := len(text) - TailBytes
		text = text[cut+strings.IndexByte(text[cut:], '\n')+1:]
	}
	for rest := text; rest != ""; {
		var line string
		if i := strings.LastIndexByte(strings.TrimRight(rest, "\n"), '\n'); i >= 0 {
			line, rest = rest[i+1:], rest[:i]
		} else {
			line, rest = rest, ""
		}
		line = strings.TrimSpace(line)
		if inner, ok := strings.CutPrefix(line, "["); ok && strings.HasSuffix(inner, "]") {
			// OpenHands: "[The command completed with exit code 1.]",
			// "[Command finished with exit code 1]", "[Current working directory: …]"
			inner = strings.TrimSuffix(strings.TrimSuffix(inner, "]"), ".")
			for _, p := range []string{"The command completed with exit code ", "Command finished with exit code "} {
				if n, tail, ok := leadingInt(strings.TrimPrefix(inner, p)); ok && tail == "" && strings.HasPrefix(inner, p) {
					return n, true
				}
			}
			continue
		}
		if line == "" {
			continue
		}
		for _, p := range []string{"Exit code: ", "Exit code ", "Process exited with code "} {
			if n, tail, ok := leadingInt(strings.TrimPrefix(line, p)); ok && tail == "" && strings.HasPrefix(line, p) {
				return n, true
			}
		}
		return 0, false
	}
	return 0, false
}

// codexHeaders start the lines Codex puts before a command's output, up
// to a line "Output:".
var codexHeaders = []string{"Chunk ID: ", "Wall time: ", "Process exited with code ", "Process running with session ID ",
	"Exit code: ", "Original token count: ", "Total output lines: "}

// codexHeader returns the header that starts line: one of codexHeaders, or
// "Output:" for that line.
func codexHeader(line string) (string, bool) {
	if line == "Output:" {
		return line, true
	}
	for _, h := range codexHeaders {
		if strings.HasPrefix(line, h) {
			return h, true
		}
	}
	return "", false
}

// startsWithError reports whether the first line starts with "Error:" in
// any case, or Claude Code's <tool_use_error>.
func startsWithError(text string) bool {
	return len(text) >= 6 && strings.EqualFold(text[:6], "error:") || strings.HasPrefix(text, "<tool_use_error>")
}

// leadingInt reads an integer at the start of s, and what follows it.
func leadingInt(s string) (int, string, bool) {
	end := 0
	if strings.HasPrefix(s, "-") {
		end = 1
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	return n, s[end:], err == nil
}

// Message is one line that says how a call that did not end ok ended, for
// a report: "failed, exit 2: sed: can't read x.go: No such file or
// directory", the first error line of what the tool printed, or its first
// line; for a call not run, "denied: " or "cancelled: " and the agent's
// words. "" when the call ended ok.
func (o Outcome) Message(text string) string {
	switch o.End {
	case OK:
		return ""
	case Denied, Cancelled:
		return o.End.String() + ": " + textfmt.Clip(strings.TrimSpace(firstLine(strings.TrimSpace(Body(text)))), 200)
	}
	line := ErrorLine(text)
	if o.Reason == notApplied {
		return notApplied + ": " + strings.TrimPrefix(line, "- ")
	}
	if o.ExitCode.Nonzero() {
		if line == "" {
			return Status(true, o.ExitCode)
		}
		return Status(true, o.ExitCode) + ": " + line
	}
	if line == "" {
		return "failed"
	}
	return line
}

// ErrorLine is the line of a failed output that says what went wrong: the
// first line of its Body that matters as an error (a traceback's lines only
// when no other does: "Traceback (most recent call last):" says nothing of
// what went wrong), else its first line that is not empty, clipped to 200
// chars; "" for an empty output.
func ErrorLine(text string) string {
	body := Body(text)
	trace := ""
	for l := range Lines(body) {
		switch {
		case l.Kind.IsError() && l.Kind != Trace:
			return textfmt.Clip(strings.TrimSpace(l.Text), 200)
		case l.Kind == Trace && trace == "":
			trace = textfmt.Clip(strings.TrimSpace(l.Text), 200)
		}
	}
	if trace != "" {
		return trace
	}
	for l := range strings.SplitSeq(body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return textfmt.Clip(l, 200)
		}
	}
	return ""
}
