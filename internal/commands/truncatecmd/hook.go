package truncatecmd

import (
	"errors"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// hookHandler answers Claude Code's PostToolUse for Bash: when the output
// is long, the model gets it cut by the rules, in Bash's own shape
// ({stdout, stderr, interrupted, isImage}), and the transcript records the
// cut output too. With an archive (--archive, CTX_ARCHIVE) the full output
// is stored first, as the filters store what they replace, and the cut
// cites its handle; an archive that cannot be written lets the output go on
// whole, and so does an image (isImage). A failed Bash call fires
// PostToolUseFailure instead, which cannot replace its output: failures
// reach the model whole.
func hookHandler(e *cli.Env, f *truncate.Filter, opts truncate.Options) cli.Handler {
	return func(agent hook.Agent, p hook.Payload) (hook.Answer, error) {
		if agent != hook.ClaudeCode {
			return nil, errors.New("only Claude Code's hooks can replace a tool's output (Codex cuts long output itself)")
		}
		if p.Event != hook.PostToolUse {
			return nil, nil
		}
		table, err := e.Tools()
		if err != nil {
			return nil, err
		}
		if kind, args := table.Decode(p.ToolName, p.ToolInput, false); !f.Cuts(p.ToolName, kind, args) || p.IsImage() {
			// A cut image is no image: the API would refuse the request.
			return nil, nil
		}
		texts := map[string]string{}
		long := false
		for _, field := range []string{"stdout", "stderr"} {
			if text, ok := p.Response(field); ok {
				texts[field] = text
				long = long || len(text) > opts.Rules.Max // else Cut leaves it: nothing to archive
			}
		}
		rules := opts.Rules
		var kept []archive.Execution
		if long && e.Archiving() {
			if kept, err = hookExecution(p, table); err != nil {
				return nil, err
			}
			if len(kept) > 0 {
				rules.Handle = kept[0].Handle
			}
		}
		cuts := map[string]string{}
		for field, text := range texts {
			if cut, ok := truncate.Cut(text, rules); ok {
				cuts[field] = cut
			}
		}
		if len(cuts) == 0 {
			return nil, nil
		}
		if len(kept) > 0 {
			if err := e.Keep(kept); err != nil {
				return nil, err
			}
		}
		out, err := p.EditResponse(cuts)
		if err != nil {
			return nil, err
		}
		return hook.UpdatedToolOutput(out), nil
	}
}

// hookExecution is the execution of the call a hook payload reports, its
// full output as the model would read it, as the archive stores it from the
// session file: none when the output is not the tool's own (a marker).
func hookExecution(p hook.Payload, table *tools.Table) ([]archive.Execution, error) {
	t, err := transcript.Parse(p.Session(p.Output(), time.Now()), transcript.Options{Format: transcript.ClaudeCode, Tools: table})
	if err != nil {
		return nil, err
	}
	return archive.Executions(t, t.Results), nil
}
