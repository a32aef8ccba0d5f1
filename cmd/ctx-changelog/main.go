// Command ctx-changelog lists what an agent changed, file by file, from its
// edits and their intents.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/changelogcmd"
)

func main() {
	os.Exit(cli.Main(changelogcmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
