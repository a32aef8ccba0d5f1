// Package loops finds the error loops of an agent, as ctx-loops does
// (docs/loops.md): the same call failing again and again with nothing
// changed in between, calls whose arguments vary while the error stays the
// same, and cycles of two to four calls that come round with the same
// failures. Check says whether a call about to be made would make or repeat
// such a loop, for a PreToolUse hook.
//
// The detector works on Steps, a small summary of every call with a result,
// so that a hook can keep the steps of a long session in a small state file
// instead of parsing the whole transcript on every call.
package loops

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Kind is a kind of loop.
type Kind string

// The kinds of loop.
const (
	// Repeat: the same tool with the same canonical arguments failing Min
	// times, with no successful edit or write (and no success of the call
	// itself) in between.
	Repeat Kind = "repeat"
	// SameError: Min calls of one tool with different arguments failing with
	// the same error text, with no successful edit or write in between.
	SameError Kind = "same-error"
	// Cycle: a period of 2 to 4 calls, not all the same, coming round at
	// least Cycles times in a row with the same calls failing each time.
	Cycle Kind = "cycle"
)

// Options are the thresholds.
type Options struct {
	// Min is how many failures make a Repeat or a SameError loop.
	Min int
	// Cycles is how many times a period must come round to be a Cycle.
	Cycles int
}

// The defaults: OpenCode asks after 3 identical calls; A,B,A,B is a cycle.
const (
	DefaultMin    = 3
	DefaultCycles = 2
)

// Periods of the cycles looked for.
const (
	minPeriod = 2
	maxPeriod = 4
)

// Detector is a validated set of options.
type Detector struct{ opts Options }

// New checks the options once.
func New(opts Options) (*Detector, error) {
	switch {
	case opts.Min < 2:
		return nil, errors.New("min must be 2 or more: one failure is not a loop")
	case opts.Cycles < 2:
		return nil, errors.New("cycles must be 2 or more: a cycle comes round at least twice")
	}
	return &Detector{opts: opts}, nil
}

// Step is one tool call with its result, as the detector sees it.
type Step struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"` // the tool's name as called
	// Key is what makes two calls the same call: a fingerprint of a shell
	// call's command line in canonical spelling whatever the tool (an
	// agent's hook and its transcript name the same call differently), else
	// of the tool's name and its canonical arguments (tools.Canonical).
	// Fingerprints keep a hook's state small whatever the calls write.
	Key    string `json:"key"`
	What   string `json:"what"` // what the call is about, for reports: the command, path or pattern
	Failed bool   `json:"failed,omitempty"`
	// Error is the first line of a failed call's output that says what went
	// wrong, clipped; ErrorHash fingerprints the whole output, for telling
	// equal errors apart from different ones.
	Error     string       `json:"error,omitempty"`
	ErrorHash string       `json:"error_hash,omitempty"`
	ExitCode  outcome.Code `json:"exit_code,omitzero"`
	// Progress marks a successful edit or write: the agent changed
	// something, so a call that failed before may not fail again.
	Progress bool           `json:"progress,omitempty"`
	Pos      transcript.Pos `json:"-"`
}

// family is the tool a SameError loop groups by: shell calls are one tool
// whatever the agent names it.
func (s Step) family() string {
	if strings.HasPrefix(s.Key, shellKey) {
		return shellKey
	}
	return strings.ToLower(s.Tool)
}

const shellKey = "shell:"

// HookStep is the step of a call that a hook sees: its tool name and
// arguments (JSON text), classified by table, without its outcome yet (see
// Done), and its kind.
func HookStep(table *tools.Table, id, name, input, cwd string) (Step, tools.Kind) {
	kind, args := table.Decode(name, input, false)
	return Step{CallID: id, Tool: name, Key: keyOf(name, input, args), What: What(name, input, args, cwd)}, kind
}

// What names a call for people and models: a shell call's command, else
// what the call is about (a path, a pattern), else its arguments.
func What(name, input string, args tools.Args, cwd string) string {
	switch {
	case args.Command != "":
		return textfmt.Clip(args.Command, 200)
	case args.Target(cwd) != "":
		return textfmt.Clip(args.Target(cwd), 200)
	}
	return textfmt.Clip(tools.Canonical(input, false), 120)
}

func keyOf(name, input string, args tools.Args) string {
	if args.Command != "" {
		return shellKey + fingerprint(tools.CanonicalCommand(args.Command))
	}
	return "call:" + fingerprint(strings.ToLower(name)+"\x00"+tools.Canonical(input, false))
}

// fingerprint is a short hash of s, for telling equal texts from different
// ones.
func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// Steps returns the steps of t: every command or other call that has a
// result, in order (AddStep). Calls still waiting for their result are
// left out.
func Steps(t *transcript.Transcript, cwd string) []Step {
	var out []Step
	for _, c := range t.Calls {
		out = AddStep(out, c, cwd)
	}
	return out
}

// AddStep adds a call to the steps before it. A call that polls or writes
// to a running command (Codex's write_stdin, transcript.Call.Continues) is
// part of that command, not a call of its own: the command's step takes
// the command's outcome, its last news, and keeps its place; only a poll
// whose command is not among the steps is a step. A call without its
// result yet adds nothing, and nor does a call that was not run (denied or
// cancelled: outcome.End.Ran): it neither failed again nor broke the run
// of failures.
func AddStep(steps []Step, c *transcript.Call, cwd string) []Step {
	if c.Result == nil || !c.Result.End().Ran() {
		return steps
	}
	s := NewStep(c, cwd)
	if start := c.Continues; start != nil {
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i].CallID == start.ID {
				s.CallID, s.Tool, s.Pos = steps[i].CallID, steps[i].Tool, steps[i].Pos
				steps[i] = s
				return steps
			}
		}
	}
	return append(steps, s)
}

// NewStep is the step of a call that has a result: how its command ended
// (transcript.Call.Outcome), with the output of its latest result.
func NewStep(c *transcript.Call, cwd string) Step {
	s := Step{CallID: c.ID, Tool: c.Name, Key: keyOf(c.Name, c.Input, c.Args), What: What(c.Name, c.Input, c.Args, cwd), Pos: c.Message.Pos}
	o := c.Outcome()
	s.Done(c.Kind, o.Failed(), c.Last().Text(), o.ExitCode)
	return s
}

// Done sets the step's outcome: failed, with the output and the exit code
// where known, or succeeded, which is progress for an edit or a write.
func (s *Step) Done(kind tools.Kind, failed bool, output string, exitCode outcome.Code) {
	s.Failed, s.Progress = failed, !failed && (kind == tools.Edit || kind == tools.Write)
	s.Error, s.ErrorHash, s.ExitCode = "", "", outcome.Code{}
	if !failed {
		return
	}
	s.ExitCode = exitCode
	if first, ok := outcome.Refusal(output); ok {
		// An edit its tool refused: the error is the refusal, whatever
		// input it shows.
		s.Error, s.ErrorHash = textfmt.Clip(first, 200), fingerprint(first)
		return
	}
	body := strings.TrimSpace(outcome.Body(output))
	if onlyExitStatus(body) {
		return // a grep that found nothing: no error text to compare
	}
	s.Error = outcome.ErrorLine(output)
	s.ErrorHash = fingerprint(body)
}

// onlyExitStatus reports whether an output says nothing but how the
// command exited (Claude Code's "Exit code 1" of a grep that found nothing).
func onlyExitStatus(body string) bool {
	for line := range strings.Lines(body) {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if k, ok := outcome.Classify(line); !ok || k != outcome.Exit {
			return false
		}
	}
	return true
}

// Loop is one loop found.
type Loop struct {
	Kind  Kind
	Tool  string // the tool; for a cycle, the tools of the period joined by ", "
	What  string // what the calls are about (a Repeat's command or path)
	Steps []int  // indexes into the steps, in order
	// Period is a cycle's length in calls, and Rounds how many times it
	// came round.
	Period, Rounds int
	Error          string // the error text that repeats (the first failure's)
}

// Verdict is the loop in one line.
func (l Loop) Verdict() string {
	n := textfmt.Int(len(l.Steps))
	switch l.Kind {
	case Repeat:
		return "the same " + l.Tool + " call failed " + n + " times with the same arguments and no successful edit or write in between: retrying it unchanged will not help"
	case SameError:
		return n + " " + l.Tool + " calls with different arguments failed with the same error and no successful edit or write in between: the cause is not in the arguments that changed"
	}
	return "a cycle of " + textfmt.Int(l.Period) + " calls (" + l.Tool + ") came round " + textfmt.Int(l.Rounds) + " times with the same failures: the agent is going in circles"
}

// Find returns the loops of steps: Repeat, then SameError, then Cycle loops,
// each in the order of their first step.
func (d *Detector) Find(steps []Step) []Loop {
	out := d.repeats(steps)
	out = append(out, d.sameErrors(steps)...)
	return append(out, d.cycles(steps)...)
}

// repeats finds the Repeat loops: runs of failures of one key, ended by a
// success of that key or by any progress.
func (d *Detector) repeats(steps []Step) []Loop {
	var out []Loop
	runs := map[string][]int{}
	var order []string // keys in the order their run started
	flush := func(key string) {
		if run := runs[key]; len(run) >= d.opts.Min {
			s := steps[run[0]]
			out = append(out, Loop{Kind: Repeat, Tool: s.Tool, What: s.What, Steps: run, Error: s.Error})
		}
		delete(runs, key)
	}
	for i, s := range steps {
		switch {
		case s.Failed:
			if runs[s.Key] == nil {
				order = append(order, s.Key)
			}
			runs[s.Key] = append(runs[s.Key], i)
		case s.Progress:
			for _, k := range order {
				flush(k)
			}
			order = order[:0]
		default:
			flush(s.Key)
		}
	}
	for _, k := range order {
		flush(k)
	}
	sortLoops(out)
	return out
}

// sameErrors finds the SameError loops: failures of one tool family with
// the same error, between two progress steps, from at least two different
// calls.
func (d *Detector) sameErrors(steps []Step) []Loop {
	type group struct {
		family, hash string
	}
	var out []Loop
	groups := map[group][]int{}
	var order []group
	flush := func() {
		for _, g := range order {
			idx := groups[g]
			if len(idx) < d.opts.Min {
				continue
			}
			keys := map[string]bool{}
			for _, i := range idx {
				keys[steps[i].Key] = true
			}
			if len(keys) < 2 {
				continue // the same call every time: a Repeat
			}
			s := steps[idx[0]]
			out = append(out, Loop{Kind: SameError, Tool: s.Tool, Steps: idx, Error: s.Error})
		}
		clear(groups)
		order = order[:0]
	}
	for i, s := range steps {
		switch {
		case s.Failed && s.Error != "":
			// Empty output (grep finding nothing) is not an error text.
			g := group{s.family(), s.ErrorHash}
			if groups[g] == nil {
				order = append(order, g)
			}
			groups[g] = append(groups[g], i)
		case s.Progress:
			flush()
		}
	}
	flush()
	sortLoops(out)
	return out
}

// cycles finds the Cycle loops, shortest period first; a stretch that a
// shorter period explains is not reported again with a longer one.
func (d *Detector) cycles(steps []Step) []Loop {
	var out []Loop
	taken := make([]bool, len(steps))
	for p := minPeriod; p <= maxPeriod; p++ {
		// matches counts the steps in a row that repeat the step p before.
		matches := 0
		end := func(i int) { // the stretch of matches ends before step i
			start := i - matches - p
			if rounds := (matches + p) / p; rounds >= d.opts.Cycles && d.isCycle(steps[start:start+p]) {
				l := Loop{Kind: Cycle, Period: p, Rounds: rounds}
				free := true
				for j := start; j < start+rounds*p; j++ {
					free = free && !taken[j]
					l.Steps = append(l.Steps, j)
				}
				if free {
					var names []string
					for _, j := range l.Steps[:p] {
						names = append(names, steps[j].Tool)
						if steps[j].Failed && l.Error == "" {
							l.Error = steps[j].Error
						}
					}
					l.Tool = strings.Join(names, ", ")
					for _, j := range l.Steps {
						taken[j] = true
					}
					out = append(out, l)
				}
			}
			matches = 0
		}
		for i := p; i < len(steps); i++ {
			if steps[i].Key == steps[i-p].Key && steps[i].Failed == steps[i-p].Failed {
				matches++
			} else if matches > 0 {
				end(i)
			}
		}
		if matches > 0 {
			end(len(steps))
		}
	}
	sortLoops(out)
	return out
}

// isCycle reports whether a period is one worth reporting: at least two
// different calls (else it is a Repeat), at least one failure, and no
// shorter period inside it (A,B,A,B is a period of 2, not of 4).
func (d *Detector) isCycle(period []Step) bool {
	keys := map[string]bool{}
	failed := false
	for _, s := range period {
		keys[s.Key] = true
		failed = failed || s.Failed
	}
	if len(keys) < 2 || !failed {
		return false
	}
	for q := 1; q < len(period); q++ {
		if len(period)%q != 0 {
			continue
		}
		same := true
		for i := q; i < len(period) && same; i++ {
			same = period[i].Key == period[i-q].Key
		}
		if same {
			return false
		}
	}
	return true
}

func sortLoops(ls []Loop) {
	slices.SortStableFunc(ls, func(a, b Loop) int { return a.Steps[0] - b.Steps[0] })
}

// Check says whether the call about to be made (next, a step without its
// result) would make or repeat a loop, and which. Its result is taken to be
// the one its last identical call had: a call that never ran before, or
// that last succeeded, is not held back.
func (d *Detector) Check(steps []Step, next Step) (Loop, bool) {
	last := -1
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Key == next.Key {
			last = i
			break
		}
	}
	if last < 0 || !steps[last].Failed {
		return Loop{}, false
	}
	predicted := steps[last]
	predicted.CallID, predicted.Pos = next.CallID, transcript.Pos{}
	all := append(steps[:len(steps):len(steps)], predicted)
	at := len(steps)
	for _, l := range d.Find(all) {
		if l.Steps[len(l.Steps)-1] == at {
			return l, true
		}
	}
	return Loop{}, false
}

// Recent returns what Check needs of steps, so that a hook keeps only that
// between calls: the steps from the last progress on (failures before it
// cannot join a Repeat or SameError loop with a new call), at least the
// last steps a cycle can span, and before them the last step of each other
// call when it failed (what Check predicts a repeated call's result from;
// a call whose last run succeeded is let through, as one never made is);
// at most maxRecent steps.
func (d *Detector) Recent(steps []Step) []Step {
	from := len(steps) - 1
	for from > 0 && !steps[from].Progress {
		from--
	}
	from = max(0, min(from, len(steps)-d.opts.Cycles*maxPeriod))
	seen := map[string]bool{}
	for _, s := range steps[from:] {
		seen[s.Key] = true
	}
	var out []Step
	for i := from - 1; i >= 0; i-- {
		if !seen[steps[i].Key] {
			seen[steps[i].Key] = true
			if steps[i].Failed {
				out = append(out, steps[i])
			}
		}
	}
	slices.Reverse(out)
	out = append(out, steps[from:]...)
	return out[max(0, len(out)-maxRecent):]
}

// maxRecent bounds what a hook keeps of a session that never makes progress.
const maxRecent = 1000
