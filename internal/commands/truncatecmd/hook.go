package truncatecmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/hook/hookstate"
	"github.com/ctxkit/ctxkit/internal/hook/shellwrap"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// hookHandler answers Claude Code's hooks on Bash. On PreToolUse it
// rewrites a command whose output can go through ctx-truncate without
// anything else changing (hook/shellwrap), so that a long output, a
// failing one too, reaches the model already cut (pipedOutput). On
// PostToolUse, when the output is long, the model gets it cut by the
// rules, in Bash's own shape ({stdout, stderr, interrupted, isImage}), and
// the transcript records the cut output too. An output over about 30,000
// chars, which Claude Code keeps in a file and would show the model as a
// 2 KB preview, is read from that file whole and cut the same way. The full
// output is stored in the archive first (the default one, or --archive's;
// --archive ” for none), and the cut cites its handle; an archive that
// cannot be written lets the output go on as Claude Code would show it,
// and so does an image (isImage). A failed Bash call fires
// PostToolUseFailure instead, which cannot replace its output: only the
// rewrite reaches those (docs/hooks.md).
func hookHandler(e *cli.Env, f *truncate.Filter, opts truncate.Options) cli.Handler {
	return func(agent hook.Agent, p hook.Payload) (hook.Answer, error) {
		if agent != hook.ClaudeCode {
			return nil, errors.New("only Claude Code's hooks can replace a tool's output (Codex cuts long output itself)")
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
		switch p.Event {
		case hook.PreToolUse:
			return rewrite(e, p)
		case hook.PostToolUse:
			return postToolUse(e, opts, table, p)
		}
		return nil, nil
	}
}

// rewrite answers PreToolUse: the command rewritten to pipe its output
// into ctx-truncate --output-of, with this hook's options, when
// hook/shellwrap takes it and Claude Code will run the two parts it adds
// without asking (hook.Payload.ClaudeAllows); else nothing. The payload is kept for the
// filter, which archives the output under the call.
func rewrite(e *cli.Env, p hook.Payload) (hook.Answer, error) {
	cmd := gjson.Get(p.ToolInput, "command")
	if cmd.Type != gjson.String || gjson.Get(p.ToolInput, "run_in_background").Bool() {
		return nil, nil
	}
	// Without the rules that let its two parts through, the rewritten
	// line would make Claude Code ask where the original would not have.
	name := self(e)
	if !p.ClaudeAllows(shellwrap.Rules(name)) {
		return nil, nil
	}
	filter, ok := shellwrap.Filter(name, p.ToolUseID, e.HookArgs()...)
	if !ok {
		return nil, nil
	}
	line, why := shellwrap.Wrap(cmd.Str, filter, p.Bypassed())
	if why != "" {
		return nil, nil
	}
	if err := hookstate.SaveCall(p.ToolUseID, p.JSON()); err != nil {
		return nil, err
	}
	input, err := sjson.Set(p.ToolInput, "command", line)
	if err != nil {
		return nil, err
	}
	return hook.UpdatedInput(input), nil
}

// self is the command as the agent ran the hook (a path, when its
// settings name one), for the rewritten line to run the same binary.
func self(e *cli.Env) string {
	if filepath.Base(os.Args[0]) == e.App.Name {
		return os.Args[0]
	}
	return e.App.Name
}

// pipedOutput is ctx-truncate --output-of ID: the filter of a command line
// its hook rewrote. It gets the command's whole output (stdout and stderr
// as Claude Code would have merged them) and returns what the model reads:
// the output cut by the rules, the whole of it archived under the call
// first, as the PostToolUse hook would have; the output as it came when it
// is short, an image, or the call's payload is gone.
func pipedOutput(e *cli.Env, opts truncate.Options, id string) func(string) (string, error) {
	return func(output string) (string, error) {
		if len(output) <= opts.Rules.Max || hook.IsImageOutput(output) {
			return output, nil
		}
		data, err := hookstate.TakeCall(id)
		if err != nil {
			return "", err
		}
		p, err := hook.Parse(data)
		if err != nil {
			return "", err
		}
		table, err := e.Tools()
		if err != nil {
			return "", err
		}
		cuts, err := cutOutput(e, opts.Rules, table, p, output, map[string]string{"stdout": output})
		if err != nil || cuts["stdout"] == "" {
			return output, err
		}
		return cuts["stdout"], nil
	}
}

// postToolUse answers PostToolUse: Bash's output cut, in its own shape.
func postToolUse(e *cli.Env, opts truncate.Options, table *tools.Table, p hook.Payload) (hook.Answer, error) {
	texts := map[string]string{}
	output := p.Output()
	path, size, persisted := p.Persisted()
	if !persisted && gjson.Get(p.ToolResponse, "persistedOutputPath").Exists() {
		return nil, errors.New("the payload's persisted output is not in the session's directory: left as Claude Code shows it")
	}
	var err error
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
	cuts, err := cutOutput(e, opts.Rules, table, p, output, texts)
	switch {
	case err != nil:
		return nil, err
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

// cutOutput cuts the texts of a call's output (by field) by the rules,
// and returns those it cut. When one is long, the whole output is stored
// in the archive (if any) under the call first, and the cuts cite it.
func cutOutput(e *cli.Env, rules truncate.Rules, table *tools.Table, p hook.Payload, output string, texts map[string]string) (map[string]string, error) {
	// A listing's or a search's paths are kept grouped, by the call's kind.
	rules.Kind, _ = table.Decode(p.ToolName, p.ToolInput, false)
	long := false
	for _, text := range texts {
		long = long || len(text) > rules.Max // else Cut leaves it: nothing to archive
	}
	var kept []archive.Execution
	if long && e.Archiving() {
		var err error
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
	if len(cuts) > 0 && len(kept) > 0 {
		if err := e.Keep(kept); err != nil {
			return nil, err
		}
	}
	return cuts, nil
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
