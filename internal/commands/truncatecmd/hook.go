package truncatecmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
	"github.com/tidwall/gjson"
)

// hookHandler answers Claude Code's PostToolUse for Bash: when the output
// is long, the model gets it cut by the rules, in Bash's own shape
// ({stdout, stderr, interrupted, isImage}), and the transcript records the
// cut output too. An output over about 30,000 chars, which Claude Code
// keeps in a file and would show the model as a 2 KB preview, is read from
// that file whole and cut the same way. The full output is stored in the
// archive first (the default one, or --archive's; --archive ” for none),
// and the cut cites its handle; an archive that cannot be written lets the
// output go on as Claude Code would show it, and so does an image
// (isImage). A failed Bash call fires PostToolUseFailure instead, which
// cannot replace its output (docs/hooks.md).
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
		kind, args := table.Decode(p.ToolName, p.ToolInput, false)
		if !f.Cuts(p.ToolName, kind, args) || p.IsImage() {
			// A cut image is no image: the API would refuse the request.
			return nil, nil
		}
		texts := map[string]string{}
		output := p.Output()
		path, size, persisted := p.Persisted()
		if !persisted && gjson.Get(p.ToolResponse, "persistedOutputPath").Exists() {
			return nil, errors.New("the payload's persisted output is not in the session's directory: left as Claude Code shows it")
		}
		if persisted {
			if output, err = readPersisted(path, size); err != nil {
				return nil, err
			}
			texts["stdout"] = output // stderr is within it: Claude Code joins them
		} else {
			for _, field := range []string{"stdout", "stderr"} {
				if text, ok := p.Response(field); ok {
					texts[field] = text
				}
			}
		}
		long := false
		for _, text := range texts {
			long = long || len(text) > opts.Rules.Max // else Cut leaves it: nothing to archive
		}
		rules := opts.Rules
		rules.Kind = kind
		var kept []archive.Execution
		if long && e.Archiving() {
			if kept, err = hookExecution(p, output, table); err != nil {
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
		switch {
		case len(cuts) > 0 && len(kept) > 0:
			if err := e.Keep(kept); err != nil {
				return nil, err
			}
		case len(cuts) == 0 && persisted:
			// Not long by these rules: the model gets it whole, not
			// Claude Code's preview.
			cuts["stdout"] = output
		case len(cuts) == 0:
			return nil, nil
		}
		out, err := p.EditResponse(cuts)
		if err == nil && persisted {
			out, err = hook.WithoutPersisted(out)
		}
		if err != nil {
			return nil, err
		}
		return hook.UpdatedToolOutput(out), nil
	}
}

// readPersisted reads the file where Claude Code kept a long output
// (hook.Payload.Persisted), which must be a regular file of the size it
// gave.
func readPersisted(path string, size int64) (string, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "", err
	case !st.Mode().IsRegular() || st.Size() != size:
		return "", fmt.Errorf("%s: not the output Claude Code kept (%d bytes, want a regular file of %d)", path, st.Size(), size)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// hookExecution is the execution of the call a hook payload reports, with
// its full output, as the archive stores it from the session file: none
// when the output is not the tool's own (a marker).
func hookExecution(p hook.Payload, output string, table *tools.Table) ([]archive.Execution, error) {
	t, err := transcript.Parse(p.Session(output, time.Now()), transcript.Options{Format: transcript.ClaudeCode, Tools: table})
	if err != nil {
		return nil, err
	}
	return archive.Executions(t, t.Results), nil
}
