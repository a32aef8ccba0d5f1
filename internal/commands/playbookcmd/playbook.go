// Package playbookcmd is ctx-playbook: strategies learned from
// transcripts, kept in a playbook file, rendered for the next session.
package playbookcmd

import (
	"math"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/playbook"
)

// Command is ctx-playbook.
var Command = cli.Command{
	Name:      "ctx-playbook",
	Usage:     "learn strategies from transcripts and hand them to the next session",
	ArgsUsage: "COMMAND [flags] [ARGS ...]",
	Description: `A playbook is a JSON file of strategies that an agent's own sessions taught, after ACE (Agentic
Context Engine): each strategy has an id (fil-00042), a category, its text, counts of how often
following it was followed by success (helpful) or by a failure (harmful), and the evidence: the
transcript and the calls that show it. Yesterday's sessions go in with learn; today's session
starts with render's text in its system prompt (or a SessionStart hook). See docs/playbook.md.

COMMANDS:
   learn [FILE ...]         read the patterns of transcripts' tool calls into the playbook
   render                   the strategies for a system prompt, best first, within limits
   stats                    the playbook's counts, by category
   add TEXT ...             add a strategy by hand
   tag ID helpful|harmful|neutral   count one use of a strategy
   prune                    remove the strategies that did more harm than good, or unused ones
   merge [PLAYBOOK ...]     merge near-duplicate strategies, and other playbooks in

EXAMPLES:
   ctx-playbook learn ~/.claude/projects ~/.codex/sessions
   ctx-playbook render --max-tokens 1500 > playbook.md
   ctx-playbook stats
   ctx-playbook <command> --help`,
	Run: func(e *cli.Env) error {
		if e.Args().Len() > 0 {
			return cli.Usagef("unknown command %q (want learn, render, stats, add, tag, prune or merge)", e.Args().First())
		}
		return cli.Usagef("no command given (want learn, render, stats, add, tag, prune or merge)")
	},
	Flags:       []ucli.Flag{topPlaybookFlag},
	Subcommands: []cli.Command{learnCommand, renderCommand, statsCommand, addCommand, tagCommand, pruneCommand, mergeCommand},
}

var (
	similarityFlag = &ucli.Float64Flag{Name: "similarity", Value: playbook.DefaultSimilarity, EnvVars: []string{"CTX_SIMILARITY"},
		Usage: "two strategies of a category are one when their words (less small words like a, the, to) overlap this much, `0-1` (Jaccard); above 1: only the same words"}
	statsFlag = cli.StatsFlagOf("print one line to stderr saying what changed")
)

// similarity is --similarity, checked.
func similarity(e *cli.Env) (float64, error) {
	s := e.Float64(similarityFlag.Name)
	if s < 0 || math.IsNaN(s) {
		return 0, cli.Usagef("--similarity must be 0 or more")
	}
	return s, nil
}
