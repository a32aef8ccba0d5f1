// Command ctx-summarize replaces a transcript's old tool results with short
// summaries made for their kind.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/summarizecmd"
)

func main() {
	os.Exit(cli.Main(summarizecmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
