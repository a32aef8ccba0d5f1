package playbookcmd

import (
	"bytes"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

var statsCommand = cli.Command{
	Name:  "stats",
	Usage: "the playbook's counts, by category",
	Description: `Prints the playbook's strategies, uses (helpful, harmful, neutral), the transcripts its evidence
cites, and a row a category; --json gives the same as JSON:
{"strategies","helpful","harmful","neutral","evidence","transcripts","prunable",
 "categories":[{"category","strategies","helpful","harmful","neutral"}]}

EXAMPLES:
   ctx-playbook stats
   ctx-playbook stats --json --playbook team.json`,
	Flags: []ucli.Flag{PlaybookFlag, statsJSON},
	Run:   runStats,
}

var statsJSON = cli.JSONFlag("print the counts as JSON")

func runStats(e *cli.Env) error {
	if e.Args().Len() > 0 {
		return cli.Usagef("stats takes no arguments")
	}
	path, p, err := loadPlaybook(e)
	if err != nil {
		return err
	}
	st := p.Count()
	var b bytes.Buffer
	if e.Bool(statsJSON.Name) {
		if err := cli.WriteJSON(&b, st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(&b, "%s: %s from %s; %s helpful, %s harmful, %s neutral\n", textfmt.Escape(path),
			textfmt.Plural(st.Strategies, "strategy", "strategies"), textfmt.Plural(st.Transcripts, "transcript", "transcripts"),
			textfmt.Int(st.Helpful), textfmt.Int(st.Harmful), textfmt.Int(st.Neutral))
		if len(st.Categories) > 0 {
			tb := textfmt.Table{Indent: "  ", Right: map[int]bool{1: true, 2: true, 3: true, 4: true}}
			tb.Row("CATEGORY", "STRATEGIES", "HELPFUL", "HARMFUL", "NEUTRAL")
			for _, c := range st.Categories {
				tb.Row(c.Category, textfmt.Int(c.Strategies), textfmt.Int(c.Helpful), textfmt.Int(c.Harmful), textfmt.Int(c.Neutral))
			}
			b.WriteByte('\n')
			if err := tb.Write(&b); err != nil {
				return err
			}
		}
		if st.Prunable > 0 {
			fmt.Fprintf(&b, "\n%s below −0.3 effectiveness: ctx-playbook prune removes %s.\n",
				textfmt.Plural(st.Prunable, "strategy is", "strategies are"), map[bool]string{true: "it", false: "them"}[st.Prunable == 1])
		}
	}
	_, err = e.Stdout.Write(b.Bytes())
	return err
}
