// Command ctx-proxy is a local proxy between an agent and its model API
// that compacts every request, and reports what it saved.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/proxycmd"
)

func main() {
	os.Exit(cli.Main(proxycmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
