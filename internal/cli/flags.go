package cli

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

// Flags shared by the binaries, each with its CTX_ environment twin.
var (
	FormatFlag = &ucli.StringFlag{Name: "format", Value: "auto", EnvVars: []string{"CTX_FORMAT"},
		Usage: "transcript format: auto, openai, anthropic, claude-code, codex or swe-agent"}
	ToolKindFlag = &ucli.StringSliceFlag{Name: "tool-kind", EnvVars: []string{"CTX_TOOL_KINDS"},
		Usage: "treat tool `NAME=KIND` as that kind (read, edit, write, shell, list, search, git, web, other); repeatable, or comma-separated"}
	EncodingFlag = &ucli.StringFlag{Name: "encoding", Value: tokens.Default, EnvVars: []string{"CTX_ENCODING"},
		Usage: "token encoding: o200k_base, cl100k_base, or approx (bytes/4, fastest)"}
	StatsFlag   = StatsFlagOf("print one line to stderr: results changed of results seen, the transcript's tokens and its tool output's before → after (they add up along a pipe)")
	InPlaceFlag = &ucli.BoolFlag{Name: "in-place", Aliases: []string{"i"}, EnvVars: []string{"CTX_IN_PLACE"},
		Usage: "rewrite each FILE in place, atomically (a temporary file beside it, then rename); a link's target is rewritten, the link kept"}
	OutDirFlag = &ucli.StringFlag{Name: "output-dir", Aliases: []string{"o"}, EnvVars: []string{"CTX_OUTPUT_DIR"},
		Usage: "write each FILE's result to `DIR`/<its name>, and a file found in a directory to DIR/<its path under that directory>; DIR is created if missing"}
)

// The flags of runs over many inputs.
var (
	JobsFlag = &ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, EnvVars: []string{"CTX_JOBS"},
		Usage: "work on `N` transcripts at once: the files of ctx-count, ctx-changelog, ctx-compact --replay and ctx-playbook learn, the lines of --each-line (the filters take files one at a time, so memory follows the largest); 0: one per CPU", DefaultText: "0, one per CPU"}
	QuietFlag = &ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, EnvVars: []string{"CTX_QUIET"},
		Usage: "no progress bar (it shows on stderr, only when stderr is a terminal and there are several inputs)"}
)

// EachLineFlag makes every line of the input a whole transcript.
var EachLineFlag = &ucli.BoolFlag{Name: "each-line", EnvVars: []string{"CTX_EACH_LINE"},
	Usage: "read JSONL where each line is a whole transcript (an object with \"messages\", a trajectory, an array of messages) and write one line for each, in order; a bad line gets an error record in its place (docs/scale.md)"}

// HookFlag turns a command into an agent's hook: it reads the hook payload
// on stdin and answers in that agent's shape.
var HookFlag = &ucli.StringFlag{Name: "hook", EnvVars: []string{"CTX_HOOK"},
	Usage: "run as `AGENT`'s hook (claude-code or codex): read its hook payload on stdin, answer on stdout (docs/hooks.md)"}

// TimesHelp is what the --help of a command with --since and --until says
// of their values, which every command reads alike (internal/timespan).
const TimesHelp = `
TIMES (--since, --until; the same in ctx-count and ctx-recall):
   2026-01-31            a date, in local time; as --until, the end of that day (all of it counts)
   2026-01-31T14:00      a local time (seconds too: 2026-01-31T14:00:05)
   2026-01-31T14:00:00Z  an RFC 3339 time, with its zone (Z, +02:00)
   --since is the first instant of the span, --until the first instant after it.`

// StatsFlagOf is --stats, a line on stderr of what a run did; usage says
// what the line holds. The filters share StatsFlag.
func StatsFlagOf(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "stats", EnvVars: []string{"CTX_STATS"}, Usage: usage}
}

// WriteJSON writes a report as every --json writes it: indented, one
// document, ending with a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONFlag is --json, for a command whose report has a JSON form; usage
// says what it prints.
func JSONFlag(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "json", EnvVars: []string{"CTX_JSON"}, Usage: usage}
}

// SinceFlag is --since, the start of a span of time (TimesHelp).
func SinceFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: "since", EnvVars: []string{"CTX_SINCE"}, Usage: usage}
}

// UntilFlag is --until, the end of a span of time (see SinceFlag).
func UntilFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: "until", EnvVars: []string{"CTX_UNTIL"}, Usage: usage}
}

// KeepMirrorsFlag is a filter's --keep-mirrors: the copies of an output that
// a format keeps beside its result stay as they are.
func KeepMirrorsFlag(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "keep-mirrors", EnvVars: []string{"CTX_KEEP_MIRRORS"}, Usage: usage}
}

// KeepRecentFlag is a filter's --keep-recent: the last N tool results stay
// whole.
func KeepRecentFlag(usage string) *ucli.IntFlag {
	return &ucli.IntFlag{Name: "keep-recent", EnvVars: []string{"CTX_KEEP_RECENT"}, Usage: usage}
}

// ModeFlag is --mode, what replaces an old result: a summary made for its
// kind, or a one-line clear; ctx-summarize and ctx-compact read it alike.
func ModeFlag(value, usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: "mode", Value: value, EnvVars: []string{"CTX_MODE"}, Usage: usage}
}

// BudgetFlag is --budget, a number of tokens or a share of --window, which
// ctx-count and ctx-summarize read alike (Budget).
func BudgetFlag(value, usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: budgetName, Value: value, EnvVars: []string{"CTX_BUDGET"}, Usage: usage + " " + budgetTwin}
}

// The names of the flags that Budget reads (BudgetFlag, WindowFlag).
const (
	budgetName = "budget"
	windowName = "window"
)

// defaultWindow is --window's default: Claude's context window.
const defaultWindow = 200000

// WindowFlag is --window, the model's context window, of which a --budget
// can be a share; ctx-count and ctx-summarize read it alike, so that
// CTX_WINDOW and CTX_BUDGET name the same number of tokens to both.
func WindowFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: windowName, Value: textfmt.Int(defaultWindow), EnvVars: []string{"CTX_WINDOW"}, Usage: usage}
}

// budgetTwin is what the --help of ctx-count and ctx-summarize says of
// CTX_BUDGET, which both read: one budget, the same number of tokens to
// both.
const budgetTwin = "CTX_BUDGET is the twin of both ctx-summarize --budget (fit the history to it) and ctx-count --budget (show how much of it the history uses): one budget, the same number to both"

// Budget reads --budget and --window: the budget in tokens (0: none) and
// the window it may be a share of. An empty CTX_WINDOW is the default.
func (e *Env) Budget() (budget, window int, err error) {
	window, err = TokenAmount(windowName, e.String(windowName), 0)
	if e.String(windowName) == "" {
		window = defaultWindow
	}
	if err != nil {
		return 0, 0, err
	}
	budget, err = TokenAmount(budgetName, e.String(budgetName), window)
	return budget, window, err
}

// TokenAmount reads a number of tokens as a flag gives it: 30000, 30,000,
// 140k, 1.5m, or with a window, a share of it: 70%. Empty is 0.
func TokenAmount(flag, s string, window int) (int, error) {
	v := strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	mult := 1.0
	switch {
	case v == "":
		return 0, nil
	case strings.HasSuffix(v, "%") && window > 0:
		v, mult = strings.TrimSuffix(v, "%"), float64(window)/100
	case strings.HasSuffix(v, "%"):
		return 0, Usagef("--%s %s: a share needs a --window", flag, s)
	case strings.HasSuffix(v, "k"), strings.HasSuffix(v, "K"):
		v, mult = v[:len(v)-1], 1e3
	case strings.HasSuffix(v, "m"), strings.HasSuffix(v, "M"):
		v, mult = v[:len(v)-1], 1e6
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) || n*mult > math.MaxInt32 {
		return 0, Usagef("--%s %s: want a number of tokens (30000, 140k) or a share of --window (70%%)", flag, s)
	}
	return int(math.Round(n * mult)), nil
}
