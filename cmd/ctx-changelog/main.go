// Command ctx-changelog lists what an agent changed, file by file, from its
// edits and their intents.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.Changelog, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
