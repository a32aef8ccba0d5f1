// Command ctx-playbook learns strategies from agent transcripts into a
// playbook, and renders them for the next session's system prompt.
package main

import (
	"os"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/playbookcmd"
)

func main() {
	os.Exit(cli.Main(playbookcmd.Command, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
