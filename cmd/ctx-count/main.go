// Command ctx-count counts a transcript's tokens by role, tool and file.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
)

func main() {
	os.Exit(cli.Main(countcmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
