package cli

import (
	"errors"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// truncateHook answers Claude Code's PostToolUse for Bash: when the output
// is long, the model gets it cut by the rules, in Bash's own shape
// ({stdout, stderr, interrupted, isImage}), and the transcript records the
// cut output too. A failed Bash call fires PostToolUseFailure instead, which
// cannot replace its output: failures reach the model whole.
func truncateHook(e *Env, opts truncate.Options) Handler {
	return func(agent hook.Agent, p hook.Payload) (hook.Answer, error) {
		if agent != hook.ClaudeCode {
			return nil, errors.New("only Claude Code's hooks can replace a tool's output (Codex cuts long output itself)")
		}
		if p.Event != hook.PostToolUse {
			return nil, nil
		}
		if e.String(ArchiveFlag.Name) != "" {
			// The seam for the archive: store the full output here first,
			// under the session and the call's id (p.SessionID,
			// p.ToolUseID), and cite that handle in the cut (Rules.Handle).
			// Until then an output that was to be kept goes on whole.
			return nil, errors.New("--archive is not supported in a hook yet: the output goes on whole, not cut")
		}
		table, err := e.Tools()
		if err != nil {
			return nil, err
		}
		if !hookInScope(opts, table, p.ToolName) {
			return nil, nil
		}
		cuts := map[string]string{}
		for _, field := range []string{"stdout", "stderr"} {
			text, ok := p.Response(field)
			if !ok {
				continue
			}
			if cut, ok := truncate.Cut(text, opts.Rules); ok {
				cuts[field] = cut
			}
		}
		if len(cuts) == 0 {
			return nil, nil
		}
		out, err := p.EditResponse(cuts)
		if err != nil {
			return nil, err
		}
		return hook.UpdatedToolOutput(out), nil
	}
}

// hookInScope says whether the hook cuts a tool's output: the shell tools by
// default, the tools of --tools, or every tool with --all.
func hookInScope(opts truncate.Options, table *tools.Table, name string) bool {
	switch {
	case opts.All:
		return true
	case opts.Tools != nil:
		for _, n := range opts.Tools {
			if strings.EqualFold(strings.TrimSpace(n), name) {
				return true
			}
		}
		return false
	}
	kind, _ := table.Classify(name, gjson.Result{})
	return kind == tools.Shell
}
