// Package loopscmd is ctx-loops: an agent's error loops found in its
// transcripts, marked in them (--banner), or denied live as a PreToolUse
// hook.
package loopscmd

import (
	"errors"
	"io/fs"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/hook/hookstate"
	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Command is ctx-loops.
var Command = cli.Command{
	Name:      "ctx-loops",
	Usage:     "find an agent's error loops; as a hook, deny the call that would repeat one",
	ArgsUsage: "[FILE ...]",
	Description: `Reads transcripts (Claude Code JSONL, Codex rollouts, OpenAI or Anthropic messages; the
format is detected) from the FILEs or stdin and reports the loops an agent got stuck in:

   repeat      the same tool with the same arguments (keys sorted, a command's spaces
               normalized) failing --min times, with no successful edit or write, and no
               success of that call, in between;
   same-error  --min calls of one tool with different arguments failing with the same error
               text, with no successful edit or write in between;
   cycle       a period of 2 to 4 calls, not all the same, coming round --cycles times in a
               row with the same calls failing each time (A,B,A,B).

Each loop: its calls, where the first and the last are, the error and a one-line verdict;
--json prints the report in a documented schema (docs/loops.md).

--banner makes ctx-loops a filter: every failed result gets a short header that makes the
failure stand out in the history, and the output as it was below it:
   [ctx-loops] Bash failed (exit code 1).
   Error: cat: missing.txt: No such file or directory
   Do not repeat this call unchanged: change the command, its input or the code first, or try another way.
   --- the output as it was ---

--hook claude-code|codex makes it a PreToolUse hook: it reads the hook's JSON on stdin, reads
the session's transcript (transcript_path), and when the call about to be made would make or
repeat a loop (its last identical call failed, and counting it as failing again gives a loop)
it denies the call with a reason the model can act on. Otherwise it prints nothing. On Claude
Code's PostToolUse and PostToolUseFailure it notes the call's outcome, for a transcript that
lags behind. A hook never breaks the agent: whatever goes wrong lets the call go on, with one
line on stderr and exit status 0. It keeps what it read of each session in a small file under
$CTX_STATE_DIR (default: ctxkit/hooks in the user's cache directory), so a long session is
not read again on every call. See docs/hooks.md and examples/hooks.

EXAMPLES:
   ctx-loops session.jsonl
   ctx-loops --json ~/.claude/projects/*/*.jsonl
   ctx-dedupe < s.jsonl | ctx-truncate | ctx-loops --banner > for-the-model.jsonl
   ctx-loops --hook claude-code      (in .claude/settings.json, see examples/hooks)`,
	Flags: cli.FilterFlags(minFlag, cycles, jsonFlag, banner, cli.HookFlag, cli.EncodingFlag),
	Run:   runLoops,
}

var (
	minFlag = &ucli.IntFlag{Name: "min", Value: loops.DefaultMin, EnvVars: []string{"CTX_MIN"},
		Usage: "`N` failures of one call, or with one error, make a loop"}
	cycles = &ucli.IntFlag{Name: "cycles", Value: loops.DefaultCycles, EnvVars: []string{"CTX_CYCLES"},
		Usage: "a period of calls coming round `N` times makes a cycle"}
	jsonFlag = cli.JSONFlag("print the report as JSON (schema in docs/loops.md)")
	banner   = &ucli.BoolFlag{Name: "banner", EnvVars: []string{"CTX_BANNER"},
		Usage: "write the transcript back with a header above every failed result, instead of the report"}
)

func runLoops(e *cli.Env) error {
	d, err := loops.New(loops.Options{Min: e.Int(minFlag.Name), Cycles: e.Int(cycles.Name)})
	if err != nil {
		return cli.Usagef("--%v", err)
	}
	switch {
	case e.IsSet(cli.HookFlag.Name):
		return e.Hook(hookHandler(e, d))
	case e.Bool(banner.Name):
		opts := loops.BannerOptions{Measure: e.Bool(cli.StatsFlag.Name), Handle: e.Handles()}
		if opts.Measure {
			if opts.Counter, err = e.Counter(); err != nil {
				return err
			}
		}
		b, err := loops.NewBanner(opts)
		if err != nil {
			return cli.Usagef("--%v", err)
		}
		return cli.Filter(e, b, nil)
	}
	for _, f := range []ucli.Flag{cli.StatsFlag, cli.InPlaceFlag, cli.OutDirFlag} {
		if e.IsSet(f.Names()[0]) {
			return cli.Usagef("--%s goes with --banner, which writes the transcript back", f.Names()[0])
		}
	}
	if e.Bool(cli.EachLineFlag.Name) {
		return e.EachLine(func(t *transcript.Transcript, in cli.LineInput) ([]byte, string, error) {
			r := d.Analyze(t)
			r.File = in.Name
			out, err := cli.MarshalLine(loops.LineReport{Version: loops.SchemaVersion, Min: e.Int(minFlag.Name), Cycles: e.Int(cycles.Name), Line: in.Line, Report: r})
			return out, "", err
		})
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	s := loops.Summary{Version: loops.SchemaVersion, Min: e.Int(minFlag.Name), Cycles: e.Int(cycles.Name)}
	err = e.Each(srcs, func(in cli.Input) error {
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		r := d.Analyze(t)
		r.File = in.Display()
		s.Files = append(s.Files, r)
		return nil
	})
	if err != nil || len(s.Files) == 0 {
		return err
	}
	return e.Report(e.Bool(jsonFlag.Name), s, s.WriteText)
}

// hookHandler answers PreToolUse: deny the call that would make or repeat a
// loop; every other call goes on. On Claude Code's PostToolUse and
// PostToolUseFailure it notes the call's outcome, since the transcript can
// lag behind: the next PreToolUse may come before the result is written.
func hookHandler(e *cli.Env, d *loops.Detector) cli.Handler {
	return func(agent hook.Agent, p hook.Payload) (hook.Answer, error) {
		pre := p.Event == hook.PreToolUse
		post := p.Event == hook.PostToolUse || p.Event == hook.PostToolUseFailure
		if !pre && !(post && agent == hook.ClaudeCode) {
			return nil, nil
		}
		switch {
		case p.TranscriptPath == "":
			return nil, errors.New("the payload has no transcript_path")
		case p.ToolName == "":
			return nil, errors.New("the payload has no tool_name")
		}
		table, err := e.Tools()
		if err != nil {
			return nil, err
		}
		next, kind := loops.HookStep(table, p.ToolUseID, p.ToolName, p.ToolInput, p.Cwd)
		format := agentFormat(agent)
		if post {
			failed := p.Event == hook.PostToolUseFailure
			var code outcome.Code
			if failed {
				o := outcome.Read(p.Error, outcome.Hint{IsError: true})
				if !o.End.Ran() {
					return nil, nil // denied or cancelled: not run, not a failure
				}
				code = o.ExitCode
			}
			next.Done(kind, failed, p.Error, code)
			return nil, hookstate.Update("loops", p.TranscriptPath, format, func(data loopsData) loopsData {
				data.Hooked = append(data.Hooked, next)
				data.Hooked = data.Hooked[max(0, len(data.Hooked)-maxHooked):]
				return data
			})
		}
		steps, err := sessionSteps(p.TranscriptPath, format, table, d)
		if err != nil {
			return nil, err
		}
		l, found := d.Check(steps, next)
		if !found {
			return nil, nil
		}
		return hook.Deny(loops.DenyReason(l, next)), nil
	}
}

// loopsData is what ctx-loops --hook keeps of a session.
type loopsData struct {
	// Steps are the transcript's, as Detector.Recent keeps them.
	Steps []loops.Step `json:"steps"`
	// Hooked are the calls whose outcome the PostToolUse hooks saw and the
	// transcript did not hold yet when they were read, in order.
	Hooked []loops.Step `json:"hooked,omitempty"`
}

// maxHooked bounds the calls kept from the hooks: the transcript lags by a
// call or two, not by hundreds.
const maxHooked = 64

// sessionSteps returns what the loop detector needs of the session whose
// transcript is at path: its steps, then those the hooks saw and the
// transcript does not hold yet. A transcript not written yet has none.
func sessionSteps(path string, format transcript.Format, table *tools.Table, d *loops.Detector) ([]loops.Step, error) {
	data, err := hookstate.Read("loops", path, format, table, func(data loopsData, t *transcript.Transcript, calls []*transcript.Call) loopsData {
		written := map[string]bool{}
		for _, c := range calls {
			data.Steps = loops.AddStep(data.Steps, c, t.Cwd)
			written[c.ID] = true
		}
		data.Steps = d.Recent(data.Steps)
		data.Hooked = slices.DeleteFunc(data.Hooked, func(s loops.Step) bool { return written[s.CallID] })
		return data
	})
	if errors.Is(err, fs.ErrNotExist) {
		data = hookstate.Peek[loopsData]("loops", path, format)
	} else if err != nil {
		return nil, err
	}
	return append(data.Steps[:len(data.Steps):len(data.Steps)], data.Hooked...), nil
}

// agentFormat is the transcript format an agent writes.
func agentFormat(a hook.Agent) transcript.Format {
	if a == hook.Codex {
		return transcript.Codex
	}
	return transcript.ClaudeCode
}
