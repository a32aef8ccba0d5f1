// Package recallcmd is ctx-recall: an archived tool output given back by its
// id, the archive searched, and both served to an agent as the MCP tool
// memory_query.
package recallcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/mcpserver"
	"github.com/ctxkit/ctxkit/internal/recall"
	"github.com/ctxkit/ctxkit/internal/timespan"
)

// Command is ctx-recall, with its MCP server.
var Command = cli.Command{
	Name:      "ctx-recall",
	Usage:     "give back an archived tool output by its id, or search the archive",
	ArgsUsage: "[ID]",
	Description: `With an ID (the id a filter's marker names: "full output: ctx-recall toolu_01AB"), prints
that execution's output exactly as the tool printed it, byte for byte; --range A,B prints
lines A to B only; --json prints its record instead (metadata, the first lines, and the
output with --include-output).

Without an ID, lists the archived executions that match the queries, newest first, or best
match first with --query: a table, and how many matched; --json gives JSON lines, a record
a line, then {"total": N}. The queries combine: --session, --tool (a name or a kind),
--path (calls that read, edited, wrote or listed it), --since and --until (TIMES below),
--failed, --query (words in the output or the command; "a phrase", word*, OR).

--mcp serves the same as the MCP tool memory_query on stdin and stdout, for an agent to
call (docs/recall.md shows how to add it to Claude Code and Codex); of the flags, only --db
applies to it.

The archive is the one ctx-archive writes: --db, else CTX_ARCHIVE, else ctxkit/archive.db in
the user's data directory. It is only read. An unknown id, a missing or corrupt archive, or
one of a newer schema: one line on stderr, exit 1.
` + cli.TimesHelp + `

EXAMPLES:
   ctx-recall toolu_01AB
   ctx-recall --range 200,260 toolu_01AB
   ctx-recall --query "connection refused" --since 2025-06-01
   ctx-recall --path internal/store/store.go --tool edit
   ctx-recall --failed --json --limit 100 | jq -c 'select(.id) | [.id, .command]'
   claude mcp add ctx-recall -- ctx-recall --mcp`,
	Flags: []ucli.Flag{cli.DBFlag, rangeFlag, offset, jsonFlag, sessionFlag, tool, path, since, until, failed, query, limit, includeOutput, mcp},
	Run:   runRecall,
}

var (
	rangeFlag     = &ucli.StringFlag{Name: "range", EnvVars: []string{"CTX_RANGE"}, Usage: "with an ID: print lines `A,B` of the output only (1-based, inclusive)"}
	offset        = &ucli.IntFlag{Name: "offset", EnvVars: []string{"CTX_OFFSET"}, Usage: "with an ID: print from byte `N` of the output (or of its --range) on, as memory_query pages a long line"}
	jsonFlag      = cli.JSONFlag("print records as JSON lines (schema in docs/recall.md)")
	sessionFlag   = &ucli.StringFlag{Name: "session", EnvVars: []string{"CTX_SESSION"}, Usage: "only the executions of session `ID`"}
	tool          = &ucli.StringFlag{Name: "tool", EnvVars: []string{"CTX_TOOL"}, Usage: "only calls of tool `NAME` or of that kind (read, edit, shell, ...)"}
	path          = &ucli.StringFlag{Name: "path", EnvVars: []string{"CTX_PATH"}, Usage: "only calls that read, edited, wrote or listed `PATH` (its last parts are enough)"}
	since         = cli.SinceFlag("only executions at or after `TIME`: " + timespan.Forms)
	until         = cli.UntilFlag("only executions before `TIME` (as --since); a date takes all of that day")
	failed        = &ucli.BoolFlag{Name: "failed", EnvVars: []string{"CTX_FAILED"}, Usage: "only executions that failed"}
	query         = &ucli.StringFlag{Name: "query", Aliases: []string{"q"}, EnvVars: []string{"CTX_QUERY"}, Usage: "only executions whose output or command holds these `WORDS`, best match first"}
	limit         = &ucli.IntFlag{Name: "limit", EnvVars: []string{"CTX_LIMIT"}, Usage: "list at most `N` executions (default 10, at most 100)"}
	includeOutput = &ucli.BoolFlag{Name: "include-output", EnvVars: []string{"CTX_INCLUDE_OUTPUT"}, Usage: "with --json: put each execution's whole output in its record"}
	mcp           = &ucli.BoolFlag{Name: "mcp", EnvVars: []string{"CTX_MCP"}, Usage: "serve the MCP tool memory_query on stdin and stdout"}
)

func runRecall(e *cli.Env) error {
	db, err := e.ArchivePath()
	if err != nil {
		return err
	}
	if e.Bool(mcp.Name) {
		if e.NArg() > 0 {
			return cli.Usagef("--mcp takes its queries from the agent, not an ID")
		}
		return mcpserver.Serve(context.Background(), db, cli.Version, e.Stdin, e.Stdout)
	}
	if e.NArg() > 1 {
		return cli.Usagef("one ID at a time; %d given", e.NArg())
	}
	id := e.Args().First()
	// With an id, a query's flag set only in the environment (CTX_SINCE,
	// which ctx-count reads too) does not apply; a command line that gives
	// both is a usage error.
	applies := func(f ucli.Flag) bool { return id == "" || e.Given(f) }
	str := func(f *ucli.StringFlag) string {
		if !applies(f) {
			return ""
		}
		return e.String(f.Name)
	}
	args := recall.Args{ID: id, IDGiven: e.NArg() > 0, Range: e.String(rangeFlag.Name), Offset: e.Int(offset.Name), Session: e.String(sessionFlag.Name),
		Tool: str(tool), Path: str(path), Since: str(since), Until: str(until),
		Failed: applies(failed) && e.Bool(failed.Name), Query: str(query), IncludeOutput: e.Bool(includeOutput.Name)}
	if applies(limit) {
		args.Limit, args.LimitGiven = e.Int(limit.Name), e.IsSet(limit.Name)
	}
	q, lines, err := args.Check()
	if err != nil {
		return cli.Usagef("%v", err)
	}
	a, err := archive.OpenReadOnly(db)
	if err != nil {
		return cli.Failf("%v", err)
	}
	defer a.Close()
	var out bytes.Buffer
	switch {
	case q.ID != "":
		rec, err := a.Get(q.ID, q.Session)
		if err != nil {
			return cli.Failf("%v", err)
		}
		text, err := lines.Select(*rec.Output, rec.Lines)
		if err != nil {
			return cli.Failf("%s: %v", q.ID, err)
		}
		if !e.Bool(jsonFlag.Name) {
			out.WriteString(text)
			break
		}
		rec.Output = nil
		if q.IncludeOutput {
			rec.Output = &text
		}
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rec); err != nil {
			return err
		}
	default:
		p, err := a.Find(q)
		if err != nil {
			if errors.Is(err, archive.ErrBadQuery) {
				return cli.Usagef("--query: %v", err)
			}
			return cli.Failf("%v", err)
		}
		write := recall.WriteTable
		if e.Bool(jsonFlag.Name) {
			write = recall.WriteJSONL
		}
		if err := write(&out, p); err != nil {
			return err
		}
	}
	_, err = e.Stdout.Write(out.Bytes())
	return err
}
