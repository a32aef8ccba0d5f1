// Package truncatecmd is ctx-truncate: long tool output cut to its head and
// tail and the lines that matter, as a filter and as Claude Code's
// PostToolUse hook.
package truncatecmd

import (
	"flag"
	"regexp"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook/shellwrap"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// Command is ctx-truncate.
var Command = cli.Command{
	Name:      "ctx-truncate",
	Usage:     "cut long tool output to its head and tail, keeping the lines that say what failed",
	ArgsUsage: "[FILE ...]",
	Description: `Reads a transcript (Claude Code JSONL, Codex rollout, OpenAI or Anthropic messages; the
format is detected) from FILE or stdin and writes it back in the same format with every long
shell result cut: a result over --max-chars keeps its first --head and last --tail chars,
on line boundaries, and between them one line that says what was cut,

   [ctx-truncate] 45,231 chars, 342 lines; 38,102 chars (301 lines) cut here; kept the first 40 and last 40 lines and 6 lines that matter (numbered).

followed by the lines of the cut middle that carry failures and results (errors, FAIL and
--- FAIL, panic:, a Traceback with its last frame and exception, assertion messages, test
summaries, exit codes; docs/outcome.md), each with its line number, up to --keep-matches. The
output of a failed call (a non-zero exit code, marked as an error, or an Error: first line)
keeps every error line. A cut that would not make a result shorter, or would give it more
tokens, is not made.

A listing or a search (ls, find, rg --files, git ls-files, grep, rg; Glob and Grep with
--tools) keeps its head and, after a marker line that says so ("… grouped here: 347 paths,
every one named below by directory; …"), every path of the rest grouped by directory
(net/http/fcgi/{fcgi.go, child.go, fcgi_test.go}) and every file with the line numbers of
its matches (store.go: 3, 12-14), within --max-chars, or the directories counted.

Which results: those of shell tools (any call with a command line: Bash, exec_command, shell,
run_shell, local_shell_call..., and Codex's write_stdin polls of a running command) by default;
--tools NAME,... names the tools instead, --all takes every tool. Never cut: results of edits
and writes, results that a ctx-* filter already replaced (they start with a [ctx-...] marker)
or that a marker points at, and results already cut (a second run changes nothing). Copies of
the output that a format keeps beside the result (Claude Code's toolUseResult, Codex's
exec_command_end events, mini-swe-agent's raw_output) are cut the same way, unless
--keep-mirrors.

Token mode (like ttok): --max-tokens, --head-tokens and --tail-tokens count tokens with
--encoding instead of chars; giving any of them turns it on (the others default to 2,500, 500
and 500). See docs/truncate.md.

--hook claude-code makes it Claude Code's hook on Bash (docs/hooks.md, examples/hooks;
ctx-setup writes it). On PreToolUse it rewrites a command whose output can be cut without
anything else changing (one command, after cd, export or source; several in braces when
permissions are bypassed; no pipe, redirection, here-document, $(...), background job or
interactive program) to

   set -o pipefail; COMMAND 2>&1 | ctx-truncate --output-of CALL_ID [its flags]

so that the output reaches the model already cut, a failing one too, with the same exit
status, and never answers with a permission decision (Claude Code checks the rewritten line
against the user's rules; the settings allow its two added parts). On PostToolUse it cuts a
long output of a call it did not rewrite, in Bash's own shape. Either way it stores the full
output in the default archive first (or --archive's; --archive '' for none) and the cut
cites it; an archive that cannot be written lets the output go on whole.

EXAMPLES:
   ctx-truncate session.jsonl > short.jsonl
   ctx-truncate --stats -i ~/.claude/projects/*/*.jsonl
   ctx-truncate --max-chars 4000 --head 1000 --tail 1000 --keep-pattern 'WARN' s.jsonl
   ctx-truncate --max-tokens 1000 --tools Bash,Grep < s.jsonl | ctx-count --before s.jsonl`,
	Flags: cli.FilterFlags(maxChars, head, tail, maxTokens, headTokens, tailTokens, keepMatches, keepPattern,
		toolsFlag, all, keepMirrors, cli.EncodingFlag, cli.HookFlag, outputOf),
	Run: runTruncate,
}

var (
	maxChars = &ucli.IntFlag{Name: "max-chars", Value: truncate.DefaultMaxChars, EnvVars: []string{"CTX_MAX_CHARS"},
		Usage: "cut results longer than `N` chars"}
	head = &ucli.IntFlag{Name: "head", Value: truncate.DefaultHeadChars, EnvVars: []string{"CTX_HEAD"},
		Usage: "keep the first `N` chars of a cut result"}
	tail = &ucli.IntFlag{Name: "tail", Value: truncate.DefaultTailChars, EnvVars: []string{"CTX_TAIL"},
		Usage: "keep the last `N` chars of a cut result"}
	maxTokens = &ucli.IntFlag{Name: "max-tokens", EnvVars: []string{"CTX_MAX_TOKENS"}, DefaultText: "2500 in token mode",
		Usage: "token mode: cut results longer than `N` tokens"}
	headTokens = &ucli.IntFlag{Name: "head-tokens", EnvVars: []string{"CTX_HEAD_TOKENS"}, DefaultText: "500 in token mode",
		Usage: "token mode: keep the first `N` tokens of a cut result"}
	tailTokens = &ucli.IntFlag{Name: "tail-tokens", EnvVars: []string{"CTX_TAIL_TOKENS"}, DefaultText: "500 in token mode",
		Usage: "token mode: keep the last `N` tokens of a cut result"}
	keepMatches = &ucli.IntFlag{Name: "keep-matches", Value: truncate.DefaultKeepMatches, EnvVars: []string{"CTX_KEEP_MATCHES"},
		Usage: "keep up to `N` lines that matter from the cut middle; 0 keeps none (a failed call's error lines are always kept)"}
	keepPattern = patternFlag{&ucli.GenericFlag{Name: "keep-pattern", Value: &patternList{}, EnvVars: []string{"CTX_KEEP_PATTERN"},
		Usage: "also keep lines matching `REGEX` (Go syntax; repeatable; in the environment, one a line)"}}
	toolsFlag = &ucli.StringSliceFlag{Name: "tools", EnvVars: []string{"CTX_TOOLS"},
		Usage: "cut the results of the tools `NAME,...` (any case) instead of the shell tools"}
	all = &ucli.BoolFlag{Name: "all", EnvVars: []string{"CTX_ALL"},
		Usage: "cut the results of every tool, and results without a call"}
	outputOf = &ucli.StringFlag{Name: strings.TrimPrefix(shellwrap.OutputOf, "--"), EnvVars: []string{"CTX_OUTPUT_OF"},
		Usage: "read on stdin the output of the call `ID`, whose command line the hook rewrote, and print what the model gets"}
	keepMirrors = cli.KeepMirrorsFlag("leave the copies of an output kept beside its result (Claude Code's toolUseResult...) whole")
)

// patternFlag is --keep-pattern: a GenericFlag whose list starts empty on
// every run (the flag is shared by every run of the command in a process).
type patternFlag struct{ *ucli.GenericFlag }

func (f patternFlag) Apply(set *flag.FlagSet) error {
	p := f.Value.(*patternList)
	*p = patternList{}
	err := f.GenericFlag.Apply(set)
	p.fromEnv = len(p.res) > 0
	return err
}

// patternList is the value of --keep-pattern: each use adds a pattern, and
// no comma splits one (a regex may hold commas). The environment's value
// holds one a line; patterns on the command line replace it.
type patternList struct {
	res     []*regexp.Regexp
	src     []string
	fromEnv bool
}

func (p *patternList) Set(v string) error {
	if p.fromEnv {
		*p = patternList{}
	}
	for _, s := range strings.Split(v, "\n") {
		if s = strings.TrimRight(s, "\r"); s == "" {
			continue
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return err
		}
		p.res, p.src = append(p.res, re), append(p.src, s)
	}
	return nil
}

func (p *patternList) String() string {
	if p == nil {
		return ""
	}
	return strings.Join(p.src, "\n")
}

func runTruncate(e *cli.Env) error {
	opts, err := options(e)
	if err != nil {
		return err
	}
	f, err := truncate.New(opts)
	if err != nil {
		return cli.Usagef("--%v", err)
	}
	switch {
	case e.IsSet(outputOf.Name):
		return e.Piped(pipedOutput(e, opts, e.String(outputOf.Name)), opts.Rules.Sure)
	case e.IsSet(cli.HookFlag.Name):
		return e.Hook(hookHandler(e, f, opts))
	}
	return cli.Filter(e, f, nil)
}

// options reads the flags; truncate.New checks their values.
func options(e *cli.Env) (truncate.Options, error) {
	var o truncate.Options
	ctr, err := e.Counter()
	if err != nil {
		return o, err
	}
	r := truncate.Rules{
		Max: e.Int(maxChars.Name), Head: e.Int(head.Name), Tail: e.Int(tail.Name),
		Counter: ctr, KeepMatches: e.Int(keepMatches.Name),
	}
	tokenMode := e.IsSet(maxTokens.Name) || e.IsSet(headTokens.Name) || e.IsSet(tailTokens.Name)
	if tokenMode {
		for _, f := range []*ucli.IntFlag{maxChars, head, tail} {
			if e.IsSet(f.Name) {
				return o, cli.Usagef("--%s counts chars, --max-tokens, --head-tokens and --tail-tokens tokens: use one kind", f.Name)
			}
		}
		r.TokenMode = true
		r.Max, r.Head, r.Tail = truncate.DefaultMaxTokens, truncate.DefaultHeadTokens, truncate.DefaultTailTokens
		if e.IsSet(maxTokens.Name) {
			r.Max = e.Int(maxTokens.Name)
		}
		if e.IsSet(headTokens.Name) {
			r.Head = e.Int(headTokens.Name)
		}
		if e.IsSet(tailTokens.Name) {
			r.Tail = e.Int(tailTokens.Name)
		}
	}
	if p, ok := e.Generic(keepPattern.Name).(*patternList); ok && p != nil {
		r.Keep = p.res
	}
	o.Rules = r
	o.All = e.Bool(all.Name)
	o.KeepMirrors = e.Bool(keepMirrors.Name)
	o.Measure = e.Bool(cli.StatsFlag.Name)
	o.Handle = e.Handles()
	if e.IsSet(toolsFlag.Name) {
		o.Tools = e.StringSlice(toolsFlag.Name)
		if o.Tools == nil {
			o.Tools = []string{}
		}
	}
	return o, nil
}
