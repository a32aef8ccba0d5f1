// Command ctx-loops finds an agent's error loops, and as a hook denies the
// call that would repeat one.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/loopscmd"
)

func main() {
	os.Exit(cli.Main(loopscmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
