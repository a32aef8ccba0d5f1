// Command ctx-archive stores every tool execution of a transcript in the
// archive, passing the transcript through.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/archivecmd"
)

func main() {
	os.Exit(cli.Main(archivecmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
