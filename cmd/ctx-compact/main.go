// Command ctx-compact compacts a live agent loop's history so that the
// prompt cache holds, and with --replay prices a session request by
// request, as it was and compacted.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/compactcmd"
)

func main() {
	os.Exit(cli.Main(compactcmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
