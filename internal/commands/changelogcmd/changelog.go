// Package changelogcmd is ctx-changelog: what an agent changed, file by
// file; a file's timeline; a file as it stood after any call.
package changelogcmd

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/changelog"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Command is ctx-changelog.
var Command = cli.Command{
	Name:      "ctx-changelog",
	Usage:     "list what an agent changed, file by file, from its edits and their intents",
	ArgsUsage: "[FILE ...]",
	Description: `Reads transcripts (Claude Code JSONL, Codex rollouts, OpenAI or Anthropic messages; the
format is detected) from the FILEs or stdin, and prints as Markdown (or --json) every file
the agent changed, in the order it changed them, with a line per change: the call, the user
turn, lines added and removed, the function or heading it touched, and the call's intent.

What counts as a change: every successful edit and write call (Edit, MultiEdit, Write,
str_replace_editor, edit_file, apply_patch as a Codex custom tool or through the shell,
patch, sed -i, cat > FILE <<EOF, tee, rm). A call that did not end ok (failed, denied, cancelled)
changed nothing: it is left out and counted; --include-failed lists it apart. A file created
and removed in the session is shown apart from the files changed.

The intent is the call's own intent argument (or description, or explanation) when the tool
has one; docs/changelog.md shows how to add an intent argument to an agent's edit tool. The
rest is derived from the change itself; --context adds the assistant's words before the call.

Several FILEs: a changelog per session, headed by its id, and a total; --merge makes one.

--file PATH lists every read, edit and write of one file, failed ones too, with call ids and
turns. --at CALL_ID prints the file as it stood after that call, replayed from the last full
content before it (a write, a create, a whole read) through every later edit, and says which
call it could not replay when it cannot.

EXAMPLES:
   ctx-changelog session.jsonl
   ctx-changelog --diff --context session.jsonl
   ctx-changelog --json ~/.claude/projects/myapp/*.jsonl | jq '.totals'
   ctx-changelog --merge a.jsonl b.jsonl
   ctx-changelog --file internal/store/store.go session.jsonl
   ctx-changelog --file store.go --at toolu_01zrb8mmPxFDxceqzJs7UhDm session.jsonl > store.go.then`,
	Flags: []ucli.Flag{jsonFlag, diff, context, includeFailed, merge, fileFlag, atFlag,
		cli.EachLineFlag, cli.JobsFlag, cli.QuietFlag, cli.FormatFlag, cli.ToolKindFlag},
	Run: runChangelog,
}

var (
	jsonFlag      = cli.JSONFlag("print the report as JSON (schema in docs/changelog.md)")
	diff          = &ucli.BoolFlag{Name: "diff", EnvVars: []string{"CTX_DIFF"}, Usage: "include each change's unified diff"}
	context       = &ucli.BoolFlag{Name: "context", EnvVars: []string{"CTX_CONTEXT"}, Usage: "include the assistant's words just before each call"}
	includeFailed = &ucli.BoolFlag{Name: "include-failed", EnvVars: []string{"CTX_INCLUDE_FAILED"}, Usage: "list the edits and writes that changed nothing apart"}
	merge         = &ucli.BoolFlag{Name: "merge", EnvVars: []string{"CTX_MERGE"}, Usage: "one changelog for all the FILEs instead of one per session"}
	fileFlag      = &ucli.StringFlag{Name: "file", EnvVars: []string{"CTX_FILE"}, Usage: "list every read, edit and write of `PATH` (relative to the session's directory, or its last parts)"}
	atFlag        = &ucli.StringFlag{Name: "at", EnvVars: []string{"CTX_AT"}, Usage: "print the file as it stood after the call `CALL_ID` (with --file, or the one file the call changes)"}
)

func runChangelog(e *cli.Env) error {
	file, at := e.String(fileFlag.Name), e.String(atFlag.Name)
	if at != "" {
		for _, f := range []*ucli.BoolFlag{jsonFlag, diff, context, includeFailed, merge} {
			if e.Bool(f.Name) {
				return cli.Usagef("--at prints the file's content; --%s does not go with it", f.Name)
			}
		}
	}
	opts := changelog.Options{Diff: e.Bool(diff.Name), Context: e.Bool(context.Name)}
	ropts := changelog.ReportOptions{Merge: e.Bool(merge.Name), IncludeFailed: e.Bool(includeFailed.Name)}
	if e.Bool(cli.EachLineFlag.Name) {
		if at != "" || ropts.Merge {
			return cli.Usagef("--each-line gives every line its own changelog: --at and --merge do not go with it")
		}
		return e.EachLine(func(t *transcript.Transcript, in cli.LineInput) ([]byte, string, error) {
			rep, err := changelogOf([]*changelog.History{changelog.Analyze(t, in.Name+":"+strconv.Itoa(in.Line), opts)}, file, ropts)
			if err != nil {
				return nil, "", err
			}
			out, err := cli.MarshalLine(rep)
			return out, "", err
		})
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	if at != "" {
		if cli.Several(srcs) {
			return cli.Usagef("--at replays one transcript; %d given", len(srcs))
		}
		return e.Each(srcs, func(in cli.Input) error { return printAt(e, in, file, at) })
	}
	var hs []*changelog.History
	err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		t, err := e.Load(in)
		if err != nil {
			return nil, err
		}
		h := changelog.Analyze(t, in.Display(), opts)
		return func() error { hs = append(hs, h); return nil }, nil
	})
	if err != nil || len(hs) == 0 {
		return err
	}
	rep, err := changelogOf(hs, file, ropts)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if e.Bool(jsonFlag.Name) {
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := rep.WriteMarkdown(&out); err != nil {
		return err
	}
	_, err = e.Stdout.Write(out.Bytes())
	return err
}

// changelogOf is the report of histories: their changelog, or with --file
// the file's timeline.
func changelogOf(hs []*changelog.History, file string, ropts changelog.ReportOptions) (changelog.Report, error) {
	if file == "" {
		return changelog.NewChangelog(hs, ropts), nil
	}
	rep, err := changelog.NewTimeline(hs, file, ropts)
	if err != nil {
		return changelog.Report{}, cli.Failf("%v", err)
	}
	return rep, nil
}

// printAt prints the file as it stood after a call.
func printAt(e *cli.Env, in cli.Input, file, callID string) error {
	t, err := e.Load(in)
	if err != nil {
		return err
	}
	h := changelog.Analyze(t, in.Display(), changelog.Options{})
	if file == "" {
		paths := h.PathsOf(callID)
		switch len(paths) {
		case 0:
			return cli.Failf("%s: no call %s reads, edits or writes a file", in.Display(), callID)
		case 1:
			file = paths[0]
		default:
			return cli.Usagef("call %s changes %d files (%s): name one with --file", callID, len(paths), strings.Join(paths, ", "))
		}
	} else if file, err = h.Resolve(file); err != nil {
		return cli.Failf("%v", err)
	}
	content, err := changelog.At(t, file, callID)
	if err != nil {
		return cli.Failf("%s: %v", in.Display(), err)
	}
	_, err = e.Stdout.Write([]byte(content))
	return err
}
