// Command ctx-setup writes ctxkit's hooks and MCP server into Claude
// Code's or Codex's settings, and takes them out again.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/setupcmd"
)

func main() {
	os.Exit(cli.Main(setupcmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
