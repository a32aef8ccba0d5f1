package transcript

import (
	"iter"

	"github.com/ctxkit/ctxkit/internal/outcome"
)

// A command is a call and the calls that poll it (Codex's write_stdin to
// the session that exec_command started): one action of the agent, whose
// output comes in several results. Every report counts commands, not
// polls: a poll's output, exit code and failure are its command's.

// Command is the call that started the command c is part of: the call it
// continues, or c itself.
func (c *Call) Command() *Call {
	if c.Continues != nil {
		return c.Continues
	}
	return c
}

// IsPoll reports whether c continues a command that another call started.
func (c *Call) IsPoll() bool { return c.Continues != nil }

// Results are the results of c's command, in order: its first call's and
// its polls'.
func (c *Call) Results() iter.Seq[*Result] {
	c = c.Command()
	return func(yield func(*Result) bool) {
		if c.Result != nil && !yield(c.Result) {
			return
		}
		for _, p := range c.Polls {
			if p.Result != nil && !yield(p.Result) {
				return
			}
		}
	}
}

// Last is the latest result of c's command: its latest news, which says
// how it ended; nil when it has none.
func (c *Call) Last() *Result {
	c = c.Command()
	for i := len(c.Polls) - 1; i >= 0; i-- {
		if r := c.Polls[i].Result; r != nil {
			return r
		}
	}
	return c.Result
}

// Outcome is how c's command ended: its latest result's outcome, or, when
// that output was taken while the command still ran, the exit code the
// format gives apart (Codex's exec_command_end). End is NoResult when the
// command has no result.
func (c *Call) Outcome() outcome.Outcome {
	c = c.Command()
	r := c.Last()
	switch {
	case r == nil:
		return outcome.Outcome{End: outcome.NoResult}
	case r.outcome.Session != 0 && c.Result != nil && c.Result.commandExit.Known():
		return outcome.Read("", outcome.Hint{ExitCode: c.Result.commandExit})
	}
	return r.outcome
}

// End is how c's command ended: ok, failed, denied, cancelled, or no
// result.
func (c *Call) End() outcome.End { return c.Outcome().End }

// Commands are the transcript's commands, in order: every call that is not
// a poll.
func (t *Transcript) Commands() iter.Seq[*Call] {
	return func(yield func(*Call) bool) {
		for _, c := range t.Calls {
			if !c.IsPoll() && !yield(c) {
				return
			}
		}
	}
}

// Tally is the transcript's calls counted by how they ended, as every
// report gives them: a command with its polls is one call.
type Tally struct {
	Calls                     int // commands: calls that are not polls
	Polls                     int // calls that poll a command
	Failed, Denied, Cancelled int
	NoResult                  int
}

// Tally counts the transcript's commands by how they ended.
func (t *Transcript) Tally() Tally {
	var n Tally
	for _, c := range t.Calls {
		if c.IsPoll() {
			n.Polls++
			continue
		}
		n.Calls++
		switch c.End() {
		case outcome.Failed:
			n.Failed++
		case outcome.Denied:
			n.Denied++
		case outcome.Cancelled:
			n.Cancelled++
		case outcome.NoResult:
			n.NoResult++
		}
	}
	return n
}
