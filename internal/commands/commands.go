// Package commands is the table of ctxkit's commands: every ctx-* binary,
// each a package of its own that holds everything about it (its flags,
// options, help, run function and hook handler). A newcomer reads this
// table first; a new command is one package under this directory, one main
// under cmd/, and one line here (docs/architecture.md).
package commands

import (
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/archivecmd"
	"github.com/ctxkit/ctxkit/internal/commands/changelogcmd"
	"github.com/ctxkit/ctxkit/internal/commands/compactcmd"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
	"github.com/ctxkit/ctxkit/internal/commands/dedupecmd"
	"github.com/ctxkit/ctxkit/internal/commands/loopscmd"
	"github.com/ctxkit/ctxkit/internal/commands/playbookcmd"
	"github.com/ctxkit/ctxkit/internal/commands/proxycmd"
	"github.com/ctxkit/ctxkit/internal/commands/recallcmd"
	"github.com/ctxkit/ctxkit/internal/commands/setupcmd"
	"github.com/ctxkit/ctxkit/internal/commands/summarizecmd"
	"github.com/ctxkit/ctxkit/internal/commands/truncatecmd"
)

// All is every command, by its binary's name. Each binary's main imports
// its command's package alone, so that it links only what it needs (the
// MCP SDK is ctx-recall's alone).
var All = []cli.Command{
	// Filters: a transcript in, the same transcript smaller out.
	dedupecmd.Command,    // ctx-dedupe: repeated reads become pointers or diffs
	truncatecmd.Command,  // ctx-truncate: long output cut to head, tail and what matters
	summarizecmd.Command, // ctx-summarize: old results become summaries; --budget; --llm
	compactcmd.Command,   // ctx-compact: the live loop's filter, which keeps the prompt cache; --replay prices it
	// Reports.
	countcmd.Command,     // ctx-count: tokens by role, tool, file; many sessions by group
	changelogcmd.Command, // ctx-changelog: what the agent changed, file by file
	loopscmd.Command,     // ctx-loops: error loops; --banner; a PreToolUse hook that denies them
	// Memory.
	archivecmd.Command,  // ctx-archive: every tool execution stored
	recallcmd.Command,   // ctx-recall: an output back by its id; search; the MCP server
	playbookcmd.Command, // ctx-playbook: strategies learned from sessions, for the next one
	// Between an agent and its model.
	proxycmd.Command, // ctx-proxy: every request compacted on its way; the ledger of what it saved
	// Set-up.
	setupcmd.Command, // ctx-setup: the hooks and the MCP server written into an agent's settings
}
