// Command ctx-dedupe replaces repeated reads of a file in a transcript with
// pointers to an earlier read, or with diffs when the file changed.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/dedupecmd"
)

func main() {
	os.Exit(cli.Main(dedupecmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
