package playbookcmd

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/userdir"
)

// topPlaybookFlag is --playbook before the subcommand: ctx-playbook
// --playbook P stats. Its twin is the subcommands' (PlaybookFlag).
var topPlaybookFlag = &ucli.StringFlag{Name: "playbook", Usage: "the playbook file `PATH`, for every command (as each command's --playbook)"}

// PlaybookFlag names the playbook file of every ctx-playbook subcommand.
var PlaybookFlag = &ucli.StringFlag{Name: "playbook", EnvVars: []string{"CTX_PLAYBOOK"},
	Usage: "the playbook file `PATH` (default: ctxkit/playbook.json in the user's data directory, $XDG_DATA_HOME or ~/.local/share)"}

// playbookPath is --playbook, given to the subcommand (stats --playbook P)
// or to ctx-playbook itself (ctx-playbook --playbook P stats), the command
// line before CTX_PLAYBOOK; else the default file in the user's data
// directory.
func playbookPath(e *cli.Env) (string, error) {
	p := e.String(PlaybookFlag.Name)             // the subcommand's: its command line, else CTX_PLAYBOOK
	if p == os.Getenv(PlaybookFlag.EnvVars[0]) { // not given to the subcommand
		for _, c := range e.Lineage()[1:] {
			if c.IsSet(topPlaybookFlag.Name) {
				p = c.String(topPlaybookFlag.Name)
				break
			}
		}
	}
	if p != "" {
		return p, nil
	}
	path, err := userdir.DataFile("playbook.json")
	if err != nil {
		return "", cli.Failf("no data directory for the playbook (%v): name one with --playbook or CTX_PLAYBOOK", err)
	}
	return path, nil
}

// loadPlaybook reads the playbook of --playbook, for a command that only
// reads it.
func loadPlaybook(e *cli.Env) (string, *playbook.Playbook, error) {
	path, err := playbookPath(e)
	if err != nil {
		return "", nil, err
	}
	p, err := readPlaybook(path)
	return path, p, err
}

// readSource reads a playbook to merge in: one that is not there is a
// failure naming it, not an empty playbook.
func readSource(path string) (*playbook.Playbook, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, safefile.PathError(path, err)
	}
	return readPlaybook(path)
}

// readPlaybook reads a playbook file; one that is not there is an empty
// playbook. A bad file is a failure naming the file, and the line and
// column where it went wrong.
func readPlaybook(path string) (*playbook.Playbook, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return playbook.New(), nil
	}
	if err != nil {
		return nil, safefile.PathError(path, err)
	}
	p, err := playbook.Parse(data)
	var se *playbook.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, cli.Failf("%s:%v", path, err)
	case err != nil:
		return nil, cli.Failf("%s: %v", path, err)
	}
	return p, nil
}

// updatePlaybook reads the playbook at path, lets change change it, and
// writes it back when change says it changed: atomically (a temporary file
// renamed over it), under a lock (PATH.lock) held from the read to the
// rename, so that runs at the same time wait for each other and none loses
// another's update. A bad file is left as it is.
func updatePlaybook(path string, change func(p *playbook.Playbook) (changed bool, err error)) error {
	unlock, err := safefile.Lock(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	p, err := readPlaybook(path)
	if err != nil {
		return err
	}
	changed, err := change(p)
	if err != nil || !changed {
		return err
	}
	return safefile.WritePrivate(path, bytes.NewReader(p.Marshal()))
}

// viewPlaybook is updatePlaybook for a change that has nothing to change:
// the playbook is read (and checked), not locked nor written.
func viewPlaybook(path string, change func(p *playbook.Playbook) (changed bool, err error)) error {
	p, err := readPlaybook(path)
	if err != nil {
		return err
	}
	_, err = change(p)
	return err
}

// now is the time a change is stamped with, to the second: the file stays
// readable.
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }
