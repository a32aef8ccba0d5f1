// Command ctx-count counts a transcript's tokens by role, tool and file.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.Count, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
