// Package cli is what every ctx-* binary shares: the runner (Command, Env,
// Run), flags and their CTX_ environment twins, reading inputs, writing
// outputs once, errors and exit codes. Each command lives in a package of
// its own (internal/commands); the filters themselves are pure and live in
// theirs; only this package and the commands touch stdin, stdout, files and
// exit codes.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// Version is the toolkit's version when a build sets it, as a packager
// building without the module's history may:
// -ldflags "-X github.com/ctxkit/ctxkit/internal/cli.Version=v1.2.3".
// Else --version reads the module's version from the build info.
var Version string

// version is what --version prints: Version, else the main module's version
// as the go command stamped it (v1.2.3 from go install ...@v1.2.3, a
// pseudo-version from go build in a checkout), else the pseudo-version of
// the commit it was built from, where the build info has it (a go older
// than 1.24 stamps the commit, not the version), else "(devel)", as go
// version -m says of a build that states neither.
func version(set string, buildInfo func() (*debug.BuildInfo, bool)) string {
	if set != "" {
		return set
	}
	info, ok := buildInfo()
	if !ok {
		return devel
	}
	if v := info.Main.Version; v != "" && v != devel {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	when, err := time.Parse(time.RFC3339, at)
	if len(rev) < 12 || err != nil {
		return devel
	}
	v := "v0.0.0-" + when.UTC().Format("20060102150405") + "-" + rev[:12]
	if dirty {
		v += "+dirty"
	}
	return v
}

// devel is the version of a build that states none.
const devel = "(devel)"

// Command describes one binary.
type Command struct {
	Name        string // ctx-count
	Usage       string // one line: what it does
	ArgsUsage   string // [FILE ...]
	Description string // what --help teaches: examples, what is counted...
	Flags       []ucli.Flag
	Run         func(e *Env) error
	// MoreExitCodes are the command's own exit codes, after the ones every
	// command shares, as lines of --help.
	MoreExitCodes string
	// Subcommands, for a binary that has them (ctx-playbook learn, render…):
	// each is a Command of its own, with the same conventions; Run then
	// runs when none is named.
	Subcommands []Command
}

// Env is what a command runs with.
type Env struct {
	*ucli.Context
	Name           string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	args           []string     // the command line, after the command's name
	failed         bool         // an input failed (Fail): the run exits 1
	status         atomic.Int32 // the run's status when nothing failed (SetStatus)
}

// Given reports whether a flag was given on the command line, not only
// through its environment twin. Some twins serve several commands
// (CTX_BUDGET, CTX_SINCE, CTX_UNTIL): one exported for a command where the
// flag applies must not make a usage error of another command line, where
// it does not.
func (e *Env) Given(f ucli.Flag) bool {
	return slices.ContainsFunc(f.Names(), func(n string) bool { return onCommandLine(e.args, n) })
}

// onCommandLine reports whether args give the flag name (-name, --name,
// --name=V), before any "--".
func onCommandLine(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// Fail reports a failure that does not stop the run, such as a bad file
// among several: one line on stderr, and exit status 1 at the end.
func (e *Env) Fail(err error) {
	e.failed = true
	printError(e.Stderr, e.Name, err.Error())
}

// SetStatus sets the exit status of a run that otherwise succeeds, to a
// command's own status (ctx-summarize's ExitOverBudget); a failure (Fail)
// still exits 1. It is safe for concurrent use (--each-line).
func (e *Env) SetStatus(code int) { e.status.Store(int32(code)) }

// Failed reports whether an input failed (Fail).
func (e *Env) Failed() bool { return e.failed }

// Note prints a line of a report to stderr (a --stats line) after the
// command's name, escaped: it names files and may quote a transcript.
func (e *Env) Note(line string) {
	fmt.Fprintf(e.Stderr, "%s: %s\n", e.Name, textfmt.Escape(line))
}

// Warn prints a warning to stderr: something went wrong that the run
// could do without (a model that did not answer, a cache not kept).
func (e *Env) Warn(format string, args ...any) {
	e.Note("warning: " + fmt.Sprintf(format, args...))
}

// printError prints an error as every binary does: one line, the command's
// name first, control characters escaped.
func printError(w io.Writer, name, msg string) {
	fmt.Fprintf(w, "%s: %s\n", name, textfmt.Escape(strings.TrimSpace(msg)))
}

// Main runs a command as a process: a broken pipe on stdout ends it quietly
// instead of killing it with SIGPIPE.
func Main(cmd Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	signal.Ignore(syscall.SIGPIPE)
	return Run(cmd, args, stdin, stdout, stderr)
}

// Run runs a command in-process and returns its exit code. Errors are
// printed once, as one line on stderr prefixed with the command's name.
func Run(cmd Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var actionErr error
	env := &Env{Name: cmd.Name, Stdin: stdin, Stdout: stdout, Stderr: stderr, args: args[min(1, len(args)):]}
	files := ""
	if strings.Contains(cmd.ArgsUsage, "FILE") {
		files = filesHelp(cmd.Flags) // not for ctx-recall's ID
	}
	if slices.Contains(cmd.Flags, ucli.Flag(ArchiveFlag)) {
		files += archiveHelp
	}
	page := cmd
	page.Description = cmd.Description + files + eachLineHelpOf(cmd.Flags) + exitCodesOf(cmd) + cmd.MoreExitCodes
	v := version(Version, debug.ReadBuildInfo)
	app := &ucli.App{
		Name:                  cmd.Name,
		Usage:                 cmd.Usage,
		ArgsUsage:             cmd.ArgsUsage,
		UsageText:             cmd.Name + " [flags] " + cmd.ArgsUsage,
		Description:           page.Description,
		CustomAppHelpTemplate: helpTemplate(helpPage(page, cmd.Name, v, append(slices.Clip(cmd.Flags), ucli.HelpFlag, ucli.VersionFlag))),
		Version:               v,
		Flags:                 cmd.Flags,
		HideHelpCommand:       true,
		Reader:                stdin,
		Writer:                stdout,
		ErrWriter:             stderr,
		// urfave/cli prints usage errors to stdout and exits inside Run
		// unless told otherwise: route both through here.
		OnUsageError: func(_ *ucli.Context, err error, _ bool) error {
			return usageError{err}
		},
		ExitErrHandler: func(*ucli.Context, error) {},
		Action: func(c *ucli.Context) error {
			env.Context = c
			actionErr = cmd.Run(env)
			return actionErr
		},
	}
	for _, sub := range cmd.Subcommands {
		app.Commands = append(app.Commands, subcommand(cmd.Name, sub, env, &actionErr))
	}
	err := app.Run(reorderAll(append([]string{cmd.Name}, args[min(1, len(args)):]...), cmd))
	if err == nil || IsBrokenPipe(err) {
		if env.failed {
			return ExitFailure
		}
		return int(env.status.Load())
	}
	code := ExitUsage // anything urfave/cli rejects before the action runs
	var ec exitCoder
	switch {
	case errors.As(err, &ec):
		code = ec.ExitCode()
	case actionErr != nil:
		code = ExitFailure
	}
	if code == ExitUsage && inHook(args) {
		code = ExitFailure // an agent reads 2 as "block the call"
	}
	msg := err.Error()
	if code == ExitUsage {
		msg += " (see " + cmd.Name + " --help)"
	}
	printError(stderr, cmd.Name, msg)
	return code
}

// exitCodesOf is the EXIT CODES of a command's --help: status 1 names the
// transcripts' errors where it reads transcripts, and a hook's statuses (an
// agent reads 2 as "block the call") where it has --hook.
func exitCodesOf(cmd Command) string {
	bad := `bad input (not a transcript, invalid JSON: the file, line and column are named) or a failure,
      of any one file among several (the others are still done)`
	if !strings.Contains(cmd.ArgsUsage, "FILE") {
		bad = "a failure or bad input: one line on stderr says what"
	}
	help := `

EXIT CODES:
   0  success
   1  ` + bad + `
   2  bad usage (an unknown flag, a bad value)`
	if slices.Contains(cmd.Flags, ucli.Flag(HookFlag)) {
		help += `
   With --hook: 0 whatever goes wrong (one line on stderr), 1 for a bad command line;
   never 2, which the agent reads as "block the call".`
	}
	return help
}

// subcommand makes a Command one of a binary's subcommands, with the
// binary's handling of usage errors and its help on files and exit codes.
func subcommand(name string, sub Command, env *Env, actionErr *error) *ucli.Command {
	files := ""
	if strings.Contains(sub.ArgsUsage, "FILE") {
		files = filesHelp(sub.Flags)
	}
	page := sub
	page.Description = sub.Description + files + eachLineHelpOf(sub.Flags) + exitCodesOf(sub) + sub.MoreExitCodes
	return &ucli.Command{
		Name:               sub.Name,
		Usage:              sub.Usage,
		ArgsUsage:          sub.ArgsUsage,
		UsageText:          name + " " + sub.Name + " [flags] " + sub.ArgsUsage,
		Description:        page.Description,
		CustomHelpTemplate: helpTemplate(helpPage(page, name+" "+sub.Name, "", append(slices.Clip(sub.Flags), ucli.HelpFlag))),
		Flags:              sub.Flags,
		OnUsageError: func(_ *ucli.Context, err error, _ bool) error {
			return usageError{err}
		},
		Action: func(c *ucli.Context) error {
			env.Context = c
			*actionErr = sub.Run(env)
			return *actionErr
		},
	}
}

// reorderAll is reorder for a binary's arguments, or for those of the
// subcommand they name.
func reorderAll(args []string, cmd Command) []string {
	values := valueFlags(cmd.Flags)
	for i := 1; i < len(args); i++ {
		if a := args[i]; strings.HasPrefix(a, "-") {
			// A flag of the binary's own (ctx-playbook --playbook P stats),
			// --help, --version; the value of one is no subcommand.
			if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && values[name] {
				i++
			}
			continue
		}
		for _, sub := range cmd.Subcommands {
			if sub.Name == args[i] {
				return append(args[:i:i], reorder(args[i:], sub.Flags)...)
			}
		}
		break
	}
	return reorder(args, cmd.Flags)
}

// valueFlags are the names of the flags that take a value (all but the
// booleans), which follows them on the command line.
func valueFlags(flags []ucli.Flag) map[string]bool {
	values := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			values[n] = !isBool
		}
	}
	return values
}

// IsBrokenPipe reports whether err is a write to a closed stdout (| head),
// which ends a run quietly.
func IsBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// reorder moves flags ahead of the file arguments, so that
// "ctx-count s.jsonl --json" works as well as "ctx-count --json s.jsonl"
// (the standard flag package stops at the first argument). Everything after
// "--" stays an argument.
func reorder(args []string, flags []ucli.Flag) []string {
	takesValue := valueFlags(flags)
	out := []string{args[0]}
	var rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			out = append(out, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) > 0 && rest[0] != "--" {
		out = append(out, "--")
	}
	return append(out, rest...)
}
