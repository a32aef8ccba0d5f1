package cli

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/hook"
	ucli "github.com/urfave/cli/v2"
)

// Handler answers one hook payload; a nil Answer lets the call go on
// unchanged.
type Handler func(agent hook.Agent, p hook.Payload) (hook.Answer, error)

// Hook runs a command as a hook. A hook runs on every tool call and must
// never break the agent: whatever goes wrong (a payload it cannot read, a
// transcript it cannot parse, a panic) lets the call go on, with one line on
// stderr and exit status 0. Exit status 2, which blocks the call, is never
// used.
func (e *Env) Hook(handle Handler) (err error) {
	// One goroutine does all the work (parallel.For then runs inline), so
	// that recover catches every panic: one in another goroutine would end
	// the process with status 2. A hook reads little after its first call.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	agent, err := hook.ParseAgent(e.String(HookFlag.Name))
	if err != nil {
		return Failf("--hook: %v", err)
	}
	// A hook reads its payload on stdin and answers on stdout: files, -i
	// and -o would be ignored, which a command line must not do silently.
	if e.NArg() > 0 {
		return Usagef("--hook reads the agent's payload on stdin, not %s", e.Args().First())
	}
	for _, f := range []ucli.Flag{InPlaceFlag, OutDirFlag, EachLineFlag} {
		if slices.Contains(e.App.Flags, f) && e.Given(f) {
			return Usagef("--%s does not go with --hook, which answers on stdout", f.Names()[0])
		}
	}
	defer func() {
		if r := recover(); r != nil {
			e.hookError(fmt.Errorf("internal error: %v", r))
			err = nil
		}
	}()
	data, err := readSmall(e.Stdin, "payload")
	if err != nil {
		e.hookError(err)
		return nil
	}
	p, err := hook.Parse(data)
	if err != nil {
		e.hookError(err)
		return nil
	}
	e.archiveByDefault()
	answer, err := handle(agent, p)
	if err != nil {
		e.hookError(err)
		return nil
	}
	if answer != nil {
		_, err = e.Stdout.Write(append(answer, '\n'))
	}
	return err
}

// hookError is the one line a failing hook leaves on stderr.
func (e *Env) hookError(err error) {
	printError(e.Stderr, e.Name+" --hook", err.Error()+"; the agent goes on as if the hook were not there")
}

// inHook reports whether a command line runs a hook, so that even a usage
// error ends with status 1 and not 2, which an agent reads as "block".
func inHook(args []string) bool {
	return onCommandLine(args, HookFlag.Name) || os.Getenv(HookFlag.EnvVars[0]) != ""
}

// archiveByDefault makes a hook keep what it replaces in the default
// archive, the one ctx-recall and its MCP server read, unless --archive or
// CTX_ARCHIVE names another (or none, given empty): inside an agent, recall
// works with no setup. The filters on files archive only when told to.
func (e *Env) archiveByDefault() {
	if !slices.Contains(e.App.Flags, ucli.Flag(ArchiveFlag)) || e.IsSet(ArchiveFlag.Name) {
		return
	}
	if path, err := archive.DefaultPath(); err == nil {
		_ = e.Set(ArchiveFlag.Name, path)
	}
}

// HookArgs are the command line's arguments but --hook and its value: the
// options a hook passes on to the filter of a line it rewrote.
func (e *Env) HookArgs() []string {
	var out []string
	for i := 0; i < len(e.args); i++ {
		a := e.args[i]
		name := strings.TrimLeft(a, "-")
		switch {
		case a == "--":
			return append(out, e.args[i:]...)
		case name == HookFlag.Name && strings.HasPrefix(a, "-"):
			i++ // its value
		case strings.HasPrefix(name, HookFlag.Name+"=") && strings.HasPrefix(a, "-"):
		default:
			out = append(out, a)
		}
	}
	return out
}
