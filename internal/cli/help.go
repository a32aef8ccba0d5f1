package cli

import (
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// HelpWidth is the most columns a line of --help takes: it reads in a
// terminal of a hundred columns, and in a pager.
const HelpWidth = 100

// helpPage is the whole --help of a command, laid out here rather than by
// urfave/cli, whose flag list runs each flag's text on one line as long
// as it is: the name, the usage (a binary's usage, with its version; a
// subcommand's with its binary's name), the description, the subcommands,
// and the flags, each flag's text filled into lines of HelpWidth under it.
func helpPage(cmd Command, usage, version string, flags []ucli.Flag) string {
	var b strings.Builder
	b.WriteString("NAME:\n" + fill(usage+" - "+cmd.Usage, "   ", "     ") + "\n\nUSAGE:\n   " + usage + " [flags] " + cmd.ArgsUsage + "\n")
	if version != "" {
		b.WriteString("\nVERSION:\n   " + version + "\n")
	}
	if cmd.Description != "" {
		b.WriteString("\nDESCRIPTION:\n")
		for _, line := range strings.Split(strings.TrimRight(cmd.Description, "\n"), "\n") {
			if line = strings.TrimRight(line, " "); line == "" {
				b.WriteString("\n")
				continue
			}
			if textfmt.RuneCount(line)+3 > HelpWidth {
				// A line longer than a line of --help goes on under its
				// own indent: a safety net, which TestHelpLines keeps
				// unused.
				indent := "   " + line[:len(line)-len(strings.TrimLeft(line, " "))]
				line = strings.TrimPrefix(fill(line, indent, indent), "   ")
			}
			b.WriteString("   " + line + "\n")
		}
	}
	if len(cmd.Subcommands) > 0 {
		b.WriteString("\nCOMMANDS:\n")
		tb := textfmt.Table{Indent: "   "}
		for _, s := range cmd.Subcommands {
			tb.Row(s.Name, s.Usage)
		}
		var t strings.Builder
		_ = tb.Write(&t) // a strings.Builder does not fail
		b.WriteString(t.String())
	}
	b.WriteString("\nOPTIONS:\n")
	for _, f := range flags {
		b.WriteString(flagHelp(f) + "\n")
	}
	return b.String()
}

// flagHelp is one flag's --help: a line of its names and value, its
// default and its environment twin, then its usage filled into lines of
// HelpWidth under it.
func flagHelp(f ucli.Flag) string {
	names, rest, _ := strings.Cut(ucli.FlagStringer(f), "\t")
	head := []string{names}
	var twin string
	if i := strings.LastIndex(rest, " [$"); i >= 0 {
		rest, twin = rest[:i], rest[i+1:]
	}
	if i := strings.LastIndex(rest, " (default: "); i >= 0 && strings.HasSuffix(rest, ")") {
		def := rest[i+1:]
		if rest = rest[:i]; def != "(default: false)" { // a switch is off unless given
			head = append(head, strings.Fields(def)...)
		}
	}
	if twin != "" {
		head = append(head, twin)
	}
	return fill(strings.Join(head, " "), "   ", "           ") + "\n" + fill(rest, "       ", "       ")
}

// fill fills text into lines of HelpWidth: the first after first, the
// others after indent.
func fill(text, first, indent string) string {
	return textfmt.WrapWords(strings.Fields(text), HelpWidth, first, indent)
}

// helpTemplate is a template that writes text as it is: urfave/cli writes
// help through a template.
func helpTemplate(text string) string { return "{{" + strconv.Quote(text) + "}}" }
