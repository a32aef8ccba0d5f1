package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// Count is ctx-count.
var Count = Command{
	Name:      "ctx-count",
	Usage:     "count a transcript's tokens by role, tool and file",
	ArgsUsage: "[FILE ...]",
	Description: `Reads transcripts (Claude Code JSONL, Codex rollouts, OpenAI or Anthropic messages; the
format is detected) from the FILEs or stdin and reports their tokens: the total, by role,
by tool (calls, failures, input and result tokens), the largest tool results, and the files
read with the tokens spent re-reading them. Several FILEs get a row each and a total.

What is counted: the text the model sees (message text, thinking, tool arguments and tool
results) with the chosen encoding; images are estimated from their size. JSON syntax,
metadata (ids, timestamps, usage), and lines the model never sees (progress, snapshots) are
not counted. A provider bills a little more: per-message overhead, the system prompt and tool
definitions that a transcript file does not hold. See docs/count.md.

EXAMPLES:
   ctx-count session.jsonl
   ctx-count --json ~/.claude/projects/*/*.jsonl
   ctx-dedupe < s.jsonl | ctx-count --before s.jsonl
   cat s.jsonl | ctx-count --tee --budget 200000 | ctx-truncate > out.jsonl`,
	Flags: []ucli.Flag{
		EncodingFlag,
		&ucli.BoolFlag{Name: "json", EnvVars: []string{"CTX_JSON"}, Usage: "print the report as JSON (schema in docs/count.md)"},
		&ucli.IntFlag{Name: "top", Value: 10, EnvVars: []string{"CTX_TOP"}, Usage: "list the `N` largest tool results"},
		&ucli.IntFlag{Name: "budget", EnvVars: []string{"CTX_BUDGET"}, Usage: "show the total as a share of a context window of `N` tokens, e.g. 200000"},
		&ucli.BoolFlag{Name: "tee", EnvVars: []string{"CTX_TEE"}, Usage: "pass the transcript through to stdout unchanged and print the report to stderr; if stdout closes early, the report still goes out and the exit status is 1"},
		&ucli.StringFlag{Name: "before", EnvVars: []string{"CTX_BEFORE"}, Usage: "compare with `FILE`, the transcript before filtering: tokens before, after, and saved"},
		FormatFlag,
		ToolKindFlag,
	},
	Run: runCount,
}

func runCount(e *Env) error {
	top, budget := e.Int("top"), e.Int("budget")
	if top < 0 {
		return Usagef("--top must be 0 or more")
	}
	if budget < 0 {
		return Usagef("--budget must be a number of tokens")
	}
	ctr, err := e.Counter()
	if err != nil {
		return err
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	tee := e.Bool("tee")
	if tee && (len(srcs) > 1 || srcs[0].dir) {
		return Usagef("--tee passes one transcript through; a directory or %d files given", len(srcs))
	}
	s := count.Summary{Version: count.SchemaVersion, Encoding: ctr.Name()}
	var teed []byte
	err = e.Each(srcs, func(in Input) error {
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		r := count.Count(t, ctr, top)
		r.File = in.Display()
		s.Files = append(s.Files, r)
		if tee {
			teed = in.Data
		}
		return nil
	})
	if err != nil || len(s.Files) == 0 {
		return err
	}
	s.Total = s.Files[0]
	if len(s.Files) > 1 {
		s.Total = count.Merge(s.Files, top)
	}
	s.Total.File = "" // the total is of every file, even of one
	if budget > 0 {
		s.Budget = count.NewBudget(budget, s.Total.Tokens)
	}
	if before := e.String("before"); before != "" {
		ins, err := e.readFile(before)
		if err != nil {
			return err
		}
		t, err := e.Load(ins)
		if err != nil {
			return err
		}
		s.Before = count.NewBefore(ins.Display(), count.Count(t, ctr, 0).Tokens, s.Total.Tokens)
	}

	reportTo := e.Stdout
	if tee {
		reportTo = e.Stderr
	}
	var report bytes.Buffer
	if e.Bool("json") {
		enc := json.NewEncoder(&report)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return err
		}
	} else if err := s.WriteText(&report, count.TextOptions{Top: top, Color: colorOK(reportTo)}); err != nil {
		return err
	}
	if tee {
		if n, err := e.Stdout.Write(teed); err != nil {
			// The report still goes out, and the status says that the
			// transcript passed on was cut.
			if _, err := reportTo.Write(report.Bytes()); err != nil {
				return err
			}
			if isBrokenPipe(err) {
				err = errors.New("stdout was closed")
			}
			return Failf("--tee: %v after %s of %s bytes: the transcript passed on is cut", err, textfmt.Int(n), textfmt.Int(len(teed)))
		}
	}
	_, err = reportTo.Write(report.Bytes())
	return err
}

// colorOK reports whether w is a terminal that may get colour: not when
// NO_COLOR is set or TERM is dumb.
func colorOK(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
