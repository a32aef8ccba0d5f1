// Command ctx-recall gives back an archived tool output by its id, searches
// the archive, and serves both as the MCP tool memory_query.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/recallcmd"
)

func main() {
	os.Exit(cli.Main(recallcmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
