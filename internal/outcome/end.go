package outcome

import (
	"fmt"
	"strings"
)

// End is how a call ended: the one classification that every report, the
// page and every --json give, so that they count the same calls the same
// way.
type End uint8

// The ends of a call.
const (
	// OK: it ran, and did not fail.
	OK End = iota
	// Failed: it ran and failed (a non-zero exit, an error), or its tool
	// refused its input (an edit that SWE-agent's linter rejected was not
	// applied).
	Failed
	// Denied: it was not run because someone refused it: the user, an
	// approval the agent asked for, or a hook.
	Denied
	// Cancelled: it was not run, or not to its end, because the agent
	// called it off: a call made in parallel failed, the user interrupted
	// the turn.
	Cancelled
	// NoResult: the transcript holds no result for it (a session cut
	// short, or a call still running). Read never says so: only a
	// transcript can.
	NoResult
)

var endNames = [...]string{OK: "ok", Failed: "failed", Denied: "denied", Cancelled: "cancelled", NoResult: "no result"}

// String is the end in the words of every report: "ok", "failed",
// "denied", "cancelled" or "no result".
func (e End) String() string {
	if int(e) < len(endNames) {
		return endNames[e]
	}
	return "unknown"
}

// MarshalText writes the end's name, for --json.
func (e End) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads an end's name, for a program that reads --json.
func (e *End) UnmarshalText(text []byte) error {
	for i, name := range endNames {
		if string(text) == name {
			*e = End(i)
			return nil
		}
	}
	return fmt.Errorf("unknown end %q (want ok, failed, denied, cancelled or no result)", text)
}

// Ran reports whether the call ran: it did not fail to run because it was
// denied or cancelled. A call without a result may have run.
func (e End) Ran() bool { return e == OK || e == Failed }

// notRun is how agents word a call that was not run, as the first line of
// its result (after an "Error: " that some formats put before it), and
// what that says.
var notRun = []struct {
	line   string
	end    End
	reason string
}{
	// Claude Code's answer to a refused permission; Codex's to a declined
	// approval of its exec and patch tools.
	{"The user doesn't want to proceed with this tool use.", Denied, "the user refused it"},
	{"exec command rejected by user", Denied, "the user refused it"},
	{"patch rejected by user", Denied, "the user refused it"},
	// Claude Code in -p mode, for a tool the settings do not allow.
	{"Claude requested permissions to ", Denied, "not allowed"},
	// ctx-loops' hook: Claude Code gives the model the hook's reason as
	// the call's result, marked as an error. (Codex's hooks: blockedPrefix.)
	{LoopsDenial, Denied, "a hook denied it"},
	// Claude Code: a call made in parallel with one that failed, and a
	// call the user interrupted.
	{"<tool_use_error>Sibling tool call errored</tool_use_error>", Cancelled, "a parallel call failed"},
	{"The user doesn't want to take this action right now.", Cancelled, "the user interrupted it"},
	{"[Request interrupted by user for tool use]", Cancelled, "the user interrupted it"},
	// SWE-agent's editor: the edit was not applied.
	{"Your proposed edit has introduced new syntax error(s).", Failed, notApplied},
	{"Your edit was not applied", Failed, notApplied},
	{"No replacement was performed", Failed, notApplied},
	{"No file open", Failed, notApplied},
}

// notApplied is the Reason of an edit its tool refused.
const notApplied = "not applied"

// Refusal is the first line of an output in which a tool refused its
// call's input (SWE-agent's "Your proposed edit has introduced new syntax
// error(s). …"), and whether text is one. Two refusals with the same first
// line are the same error: the rest shows the input refused, which
// changes from one try to the next.
func Refusal(text string) (string, bool) {
	head := text
	if len(head) > HeadBytes {
		head = head[:HeadBytes]
	}
	if end, reason, ok := readNotRun(head); !ok || end != Failed || reason != notApplied {
		return "", false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(first), true
}

// LoopsDenial is the first line of what ctx-loops' hook gives as the
// result of a call it denied: its marker's line. A call whose result starts
// with it was not run.
const LoopsDenial = "[ctx-loops] Call not run: it would repeat an error loop."

// blockedPrefix starts the output Codex gives a call that a PreToolUse hook
// denied: "Command blocked by PreToolUse hook: REASON. Command: …". It has
// no exit code.
const blockedPrefix = "Command blocked by PreToolUse hook: "

// abortedText is the whole output Codex gives a call whose turn was
// aborted before the call's own output came.
const abortedText = "aborted"

// readNotRun says whether a text's start says that its call was not run,
// or that its tool refused it, and how the call ended.
func readNotRun(head string) (End, string, bool) {
	if strings.HasPrefix(head, blockedPrefix) {
		return Denied, "a hook denied it", true
	}
	first, _, _ := strings.Cut(head, "\n")
	first = strings.TrimSpace(first)
	if first == abortedText && strings.TrimSpace(head) == abortedText {
		return Cancelled, "the turn was aborted", true
	}
	first = strings.TrimPrefix(first, "Error: ")
	for _, n := range notRun {
		if strings.HasPrefix(first, n.line) {
			return n.end, n.reason, true
		}
	}
	return OK, "", false
}
