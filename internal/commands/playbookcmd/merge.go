package playbookcmd

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

var mergeCommand = cli.Command{
	Name:      "merge",
	Usage:     "merge near-duplicate strategies, and other playbooks in",
	ArgsUsage: "[PLAYBOOK ...]",
	Description: `Adds the strategies of each PLAYBOOK file to --playbook (a strategy that says nearly the same as
one of its category joins it: counts added, evidence counted once; the others get new ids), then
merges the strategies of each category that say nearly the same into the oldest of them.
Nearly the same: equal once lower-cased and stripped of punctuation, or words (less small words
like a, the, to) that overlap by --similarity (Jaccard: shared words over all words; 0.8 by
default, so "Read a file before editing it" and "Always read the file before editing it" are one).

EXAMPLES:
   ctx-playbook merge
   ctx-playbook merge --playbook team.json alice.json bob.json`,
	Flags: []ucli.Flag{PlaybookFlag, similarityFlag, statsFlag},
	Run:   runMerge,
}

func runMerge(e *cli.Env) error {
	path, err := playbookPath(e)
	if err != nil {
		return err
	}
	threshold, err := similarity(e)
	if err != nil {
		return err
	}
	var others []*playbook.Playbook
	for _, name := range e.Args().Slice() {
		o, err := readSource(name)
		if err != nil {
			return err
		}
		others = append(others, o)
	}
	var added, merged, left int
	var gone []string
	err = updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
		at := now()
		for _, o := range others {
			a, m := p.Absorb(o, threshold, at)
			added, merged = added+a, merged+m
		}
		gone = p.Merge(threshold, at)
		left = len(p.Strategies)
		return added+merged+len(gone) > 0, nil
	})
	if err != nil {
		return err
	}
	if e.Bool(statsFlag.Name) {
		line := fmt.Sprintf("%s: %s added, %s merged in", path, textfmt.Int(added), textfmt.Int(merged))
		if len(gone) > 0 {
			line += ", " + textfmt.Int(len(gone)) + " near-duplicates merged (" + strings.Join(gone, ", ") + ")"
		}
		e.Note(line + "; " + textfmt.Plural(left, "strategy", "strategies"))
	}
	return nil
}
