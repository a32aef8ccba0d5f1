package playbookcmd

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/playbook"
)

var addCommand = cli.Command{
	Name:      "add",
	Usage:     "add a strategy by hand",
	ArgsUsage: "TEXT ...",
	Description: `Adds a strategy (its words are the arguments, joined by spaces) to --category, and prints its id.
A strategy of the category that says nearly the same (--similarity) is not added again: its id is
printed instead. A strategy added by hand has no evidence until learn or the model cites some.

EXAMPLES:
   ctx-playbook add --category testing "Run go vet before the tests: it is faster."
   id=$(ctx-playbook add Prefer small commits) && ctx-playbook tag "$id" helpful`,
	Flags: []ucli.Flag{PlaybookFlag, category, similarityFlag},
	Run: func(e *cli.Env) error {
		path, err := playbookPath(e)
		if err != nil {
			return err
		}
		threshold, err := similarity(e)
		if err != nil {
			return err
		}
		text := strings.Join(e.Args().Slice(), " ")
		if strings.TrimSpace(text) == "" {
			return cli.Usagef("add needs the strategy's text")
		}
		var id string
		err = updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
			s, added, err := p.Add(e.String(category.Name), text, threshold, now())
			if err != nil {
				return false, cli.Usagef("%v", err)
			}
			id = s.ID
			return added, nil
		})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(e.Stdout, id)
		return err
	},
}

var category = &ucli.StringFlag{Name: "category", Value: playbook.General, EnvVars: []string{"CTX_CATEGORY"},
	Usage: "the strategy's `CATEGORY`: file_operations, code_navigation, testing, shell, error_handling, general or another"}

var tagCommand = cli.Command{
	Name:      "tag",
	Usage:     "count one use of a strategy",
	ArgsUsage: "ID helpful|harmful|neutral",
	Description: `Counts one use of the strategy ID: helpful (following it went well), harmful (it was followed
by a failure) or neutral. An unknown ID is a failure (exit 1), and the playbook is left as it is.

EXAMPLES:
   ctx-playbook tag fil-00003 helpful`,
	Flags: []ucli.Flag{PlaybookFlag},
	Run: func(e *cli.Env) error {
		if e.Args().Len() != 2 {
			return cli.Usagef("tag takes an ID and a tag: helpful, harmful or neutral")
		}
		tag, err := playbook.ParseTag(e.Args().Get(1))
		if err != nil {
			return cli.Usagef("%v", err)
		}
		path, err := playbookPath(e)
		if err != nil {
			return err
		}
		return updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
			if err := p.TagID(e.Args().First(), tag, now()); err != nil {
				return false, cli.Failf("%s: %v", path, err)
			}
			return true, nil
		})
	},
}
