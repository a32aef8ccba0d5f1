package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/count"
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
		&ucli.BoolFlag{Name: "tee", EnvVars: []string{"CTX_TEE"}, Usage: "pass the transcript through to stdout unchanged and print the report to stderr"},
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
	inputs, err := e.Inputs()
	if err != nil {
		return err
	}
	tee := e.Bool("tee")
	if tee && len(inputs) > 1 {
		return Usagef("--tee passes one transcript through; %d given", len(inputs))
	}
	s := count.Summary{Version: count.SchemaVersion, Encoding: ctr.Name()}
	for _, in := range inputs {
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		r := count.Count(t, ctr, top)
		r.File = in.Display()
		s.Files = append(s.Files, r)
	}
	s.Total = s.Files[0]
	if len(s.Files) > 1 {
		s.Total = count.Merge(s.Files, top)
		s.Total.File = ""
	}
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
		if _, err := e.Stdout.Write(inputs[0].Data); err != nil {
			return err
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
