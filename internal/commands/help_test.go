package commands

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// TestHelpLines: every command's --help, and every subcommand's, reads in
// a terminal of cli.HelpWidth columns: no line is longer, and no sentence
// is broken early, its line ending well short of the width while the same
// paragraph goes on below it.
func TestHelpLines(t *testing.T) {
	for _, cmd := range All {
		runs := [][]string{{cmd.Name, "--help"}}
		for _, sub := range cmd.Subcommands {
			runs = append(runs, []string{cmd.Name, sub.Name, "--help"})
		}
		for _, args := range runs {
			t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				if code := cli.Run(cmd, args, strings.NewReader(""), &stdout, &stderr); code != cli.ExitOK {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				lines := strings.Split(stdout.String(), "\n")
				for i, line := range lines {
					if n := textfmt.RuneCount(line); n > cli.HelpWidth {
						t.Errorf("line %d has %d columns: %s", i+1, n, line)
					}
					if i+1 < len(lines) && brokenEarly(line, lines[i+1]) {
						t.Errorf("line %d ends a sentence's line early: %q, then %q", i+1, line, lines[i+1])
					}
				}
			})
		}
	}
}

// brokenEarly reports whether line, a line of prose, ends far short of the
// width while next, at the same indent, goes on with its sentence (it
// starts with a small letter). A table's rows (runs of spaces between
// columns), examples (a command line) and a list's items are not prose.
func brokenEarly(line, next string) bool {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	body, nextBody := line[indent:], strings.TrimLeft(next, " ")
	switch {
	case body == "" || len(next)-len(nextBody) != indent || nextBody == "":
		return false
	case strings.Contains(body, "  ") || strings.Contains(nextBody, "  "):
		return false // a table
	case strings.HasPrefix(body, "ctx-") || strings.HasPrefix(nextBody, "ctx-") || strings.HasPrefix(body, "$ "):
		return false // examples
	case strings.HasSuffix(body, ":"):
		return false // what follows is a list or an example
	}
	r := []rune(nextBody)[0]
	return unicode.IsLower(r) && textfmt.RuneCount(line) < cli.HelpWidth*3/4
}
