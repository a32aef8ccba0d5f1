// Command ctx-truncate cuts long tool output in a transcript to its head and
// tail, keeping the lines that say what failed.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/truncatecmd"
)

func main() {
	os.Exit(cli.Main(truncatecmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
