package playbookcmd

import (
	"encoding/json"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

var renderCommand = cli.Command{
	Name:  "render",
	Usage: "the strategies for a system prompt, best first, within limits",
	Description: `Writes the playbook's strategies best first (the most helpful less harmful, then the most
effective, then the most used) as many as fit --max-strategies and --max-tokens: a strategy that
would take the text over --max-tokens is left out and the next ones tried. An empty playbook
writes nothing.

   markdown (default)   # Playbook, then a section a category:
                        - [fil-00042] Read a file before editing it, … (helpful 5, harmful 0)
   ace                  ACE's lines under ## SECTION:
                        [fil-00042] helpful=5 harmful=0 :: Read a file before editing it, …
   json (--json)        {"version":1,"strategies":[{"id","category","content","helpful_count",
                        "harmful_count","neutral_count","effectiveness"}],"shown","omitted",
                        "tokens"}; --max-tokens bounds the strategies' JSON

--stats prints on stderr how many strategies fit and their tokens.

With --hook claude-code or --hook codex, it answers the agent's SessionStart hook (the payload
on stdin) with the rendering as additionalContext, so that a new session starts with the
playbook; other events, and an empty playbook, get no answer. A hook never breaks the session:
a bad playbook is one line on stderr, exit 0 (docs/hooks.md).

EXAMPLES:
   ctx-playbook render > playbook.md
   ctx-playbook render --format ace --max-strategies 20
   ctx-playbook render --json | jq -r '.strategies[].content'
   claude --append-system-prompt "$(ctx-playbook render --max-tokens 1000)"
   ctx-playbook render --hook claude-code < session-start.json   # as a SessionStart hook`,
	Flags: []ucli.Flag{PlaybookFlag, formatFlag, renderJSON, maxStrategies, maxTokens, cli.EncodingFlag, statsFlag, cli.HookFlag},
	Run:   runRender,
}

var (
	formatFlag = &ucli.StringFlag{Name: "format", Value: string(playbook.Markdown), EnvVars: []string{"CTX_PLAYBOOK_FORMAT"},
		Usage: "`FORMAT` markdown, ace (ACE's [id] helpful=N harmful=N :: text lines) or json"}
	renderJSON    = cli.JSONFlag("write JSON (the same as --format json)")
	maxStrategies = &ucli.IntFlag{Name: "max-strategies", Value: 50, EnvVars: []string{"CTX_MAX_STRATEGIES"},
		Usage: "write at most `N` strategies; 0: no limit"}
	maxTokens = &ucli.IntFlag{Name: "max-tokens", Value: 2000, EnvVars: []string{"CTX_PLAYBOOK_MAX_TOKENS"},
		Usage: "write at most `N` tokens; 0: no limit"}
)

func runRender(e *cli.Env) error {
	if e.Args().Len() > 0 {
		return cli.Usagef("render takes no arguments")
	}
	format, err := playbook.ParseFormat(e.String(formatFlag.Name))
	if err != nil {
		return cli.Usagef("--format: %v", err)
	}
	if e.Bool(renderJSON.Name) {
		format = playbook.JSON
	}
	ctr, err := e.Counter()
	if err != nil {
		return err
	}
	opts := playbook.RenderOptions{Format: format, MaxStrategies: e.Int(maxStrategies.Name), MaxTokens: e.Int(maxTokens.Name), Counter: ctr}
	if e.IsSet(cli.HookFlag.Name) {
		return e.Hook(func(_ hook.Agent, p hook.Payload) (hook.Answer, error) {
			if p.Event != hook.SessionStart {
				return nil, nil
			}
			_, pb, err := loadPlaybook(e)
			if err != nil {
				return nil, err
			}
			out, err := playbook.Render(pb, opts)
			if err != nil || out.Shown == 0 {
				return nil, err
			}
			return hook.AdditionalContext(string(out.Text)), nil
		})
	}
	_, p, err := loadPlaybook(e)
	if err != nil {
		return err
	}
	out, err := playbook.Render(p, opts)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	text := out.Text
	if format == playbook.JSON {
		text, err = json.Marshal(struct {
			Version    int             `json:"version"`
			Strategies json.RawMessage `json:"strategies"`
			Shown      int             `json:"shown"`
			Omitted    int             `json:"omitted"`
			Tokens     int             `json:"tokens"`
		}{playbook.Version, out.Text, out.Shown, out.Omitted, out.Tokens})
		if err != nil {
			return err
		}
		text = append(text, '\n')
	}
	if e.Bool(statsFlag.Name) {
		e.Note(fmt.Sprintf("%s of %s, %s (%s)", textfmt.Int(out.Shown), textfmt.Plural(out.Shown+out.Omitted, "strategy", "strategies"),
			textfmt.Plural(out.Tokens, "token", "tokens"), ctr.Name()))
	}
	_, err = e.Stdout.Write(text)
	return err
}
