package playbookcmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

var pruneCommand = cli.Command{
	Name:  "prune",
	Usage: "remove the strategies that did more harm than good, or unused ones",
	Description: `Removes the strategies whose effectiveness, (helpful − harmful) / (helpful + harmful + neutral),
is below --below (the design's −0.3: 1 helpful and 2 harmful is −0.33, gone; 2 helpful and 3
harmful is −0.2, kept); a strategy never tagged is not judged. With --older-than, also those not
learned from or tagged for that long. --dry-run prints what would go, one per line, and changes
nothing; --stats prints one line saying what went.

EXAMPLES:
   ctx-playbook prune
   ctx-playbook prune --older-than 90d --dry-run`,
	Flags: []ucli.Flag{PlaybookFlag, below, olderThan, dryRun, statsFlag},
	Run:   runPrune,
}

var (
	below = &ucli.Float64Flag{Name: "below", Value: playbook.DefaultPruneBelow, EnvVars: []string{"CTX_BELOW"},
		Usage: "remove strategies whose effectiveness is below `E` (-1 to 1)"}
	olderThan = &ucli.StringFlag{Name: "older-than", EnvVars: []string{"CTX_OLDER_THAN"},
		Usage: "also remove strategies unused for `AGE`: 90d, 12h, 2h30m"}
	dryRun = &ucli.BoolFlag{Name: "dry-run", EnvVars: []string{"CTX_DRY_RUN"}, Usage: "print what would be removed; change nothing"}
)

func runPrune(e *cli.Env) error {
	if e.Args().Len() > 0 {
		return cli.Usagef("prune takes no arguments")
	}
	age, err := parseAge(e.String(olderThan.Name))
	if err != nil {
		return cli.Usagef("--older-than: %v", err)
	}
	threshold := e.Float64(below.Name)
	if math.IsNaN(threshold) {
		return cli.Usagef("--below must be a number")
	}
	path, err := playbookPath(e)
	if err != nil {
		return err
	}
	dry := e.Bool(dryRun.Name)
	var removed []*playbook.Strategy
	var left int
	err = updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
		removed = p.Prune(playbook.PruneOptions{Below: threshold, OlderThan: age, Now: now()})
		left = len(p.Strategies)
		return len(removed) > 0 && !dry, nil
	})
	if err != nil {
		return err
	}
	if dry {
		var b strings.Builder
		for _, s := range removed {
			fmt.Fprintf(&b, "%s\t%s\n", s.ID, textfmt.Escape(s.Content))
		}
		if _, err := e.Stdout.Write([]byte(b.String())); err != nil {
			return err
		}
	}
	if e.Bool(statsFlag.Name) {
		ids := make([]string, len(removed))
		for i, s := range removed {
			ids[i] = s.ID
		}
		verb := "removed"
		if dry {
			verb = "would remove"
		}
		line := fmt.Sprintf("%s: %s %s", path, verb, textfmt.Plural(len(removed), "strategy", "strategies"))
		if len(ids) > 0 {
			line += " (" + strings.Join(ids, ", ") + ")"
		}
		e.Note(line + "; " + textfmt.Plural(left, "strategy", "strategies") + " left")
	}
	return nil
}

// parseAge reads a duration that may count days: 90d, 1d12h, 2h30m.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 100_000 { // 270 years: no Duration overflows
			return 0, fmt.Errorf("%q: want an age such as 90d, 12h or 1d12h", s)
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
	}
	var rest time.Duration
	if s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > 100_000*24*time.Hour {
			return 0, fmt.Errorf("%q: want an age such as 90d, 12h or 1d12h", s)
		}
		rest = d
	}
	if days+rest <= 0 {
		return 0, fmt.Errorf("the age must be more than 0")
	}
	return days + rest, nil
}
