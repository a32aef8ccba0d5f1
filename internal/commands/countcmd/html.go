package countcmd

import (
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/compactcmd"
	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/sessionpage"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// The flags of --html.
var (
	htmlFlag = &ucli.BoolFlag{Name: "html", EnvVars: []string{"CTX_HTML"},
		Usage: "write a page of the session instead of the report: one HTML file that needs nothing else (no network, no script), with the context and the cost request by request, the tool calls, the largest results and what the filters did (docs/count.md)"}
	outDir = &ucli.StringFlag{Name: "output-dir", Aliases: []string{"o"}, EnvVars: []string{"CTX_OUTPUT_DIR"},
		Usage: "with --html, write each FILE's page to `DIR`/<its name>.html, and a file found in a directory to DIR/<its path under it>.html; DIR is created if missing"}
	// policy is ctx-compact's policy, which the page's replay puts in the
	// loop: its flags, as ctx-compact's.
	policy = compactcmd.NewPolicyFlags("with --html, as ctx-compact's: ")
)

// htmlHelp is what --help says of --html.
const htmlHelp = `
THE PAGE (--html): one self-contained HTML file per transcript, to open in a browser: the
tokens each request sent by what they are (messages, thinking, tool inputs, each kind of
tool's output), as the API reported them where the transcript keeps its usage, the cost
request by request as billed, replayed as sent and with ctx-compact in the loop (cache
breaks marked), the tool calls with their failures (and what each said), denials, error
loops and re-reads, the largest results (open one to read it, or the ctx-recall id of a long
one), and what the filters replaced; a table of the numbers under each chart. The replays
send, before the history, the prefix (system prompt, tool definitions) that the usage records
show, so that they compare with the bill; each cost says what it is compared with. The
replay with ctx-compact takes ctx-compact's flags (--recent, --horizon, --mode, --no-cut,
--no-dedupe, --keep-edits, --model, --cache-ttl). With --before, the transcript before the
filter beside it. Prices as --cost's (--price, --prices). One FILE's page goes to stdout;
several need -o DIR.
`

// runHTML is ctx-count --html: a page of each transcript, to stdout or
// to -o DIR.
func runHTML(e *cli.Env) error {
	if !e.Bool(htmlFlag.Name) {
		return cli.Usagef("-o DIR is where --html writes its pages: give --html")
	}
	for _, f := range []ucli.Flag{jsonFlag, tee, by, since, until, budget, costFlag, cli.EachLineFlag} {
		if e.Given(f) {
			return cli.Usagef("--%s does not go with --html", f.Names()[0])
		}
	}
	top, ctr, err := topAndCounter(e)
	if err != nil {
		return err
	}
	prices, err := e.Prices()
	if err != nil {
		return err
	}
	pol, err := policy.Policy(e, ctr, prices, nil)
	if err != nil {
		return err
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	dir := e.String(outDir.Name)
	if dir == "" && cli.Several(srcs) {
		return cli.Usagef("--html writes one page to stdout: give -o DIR for several transcripts")
	}
	pages, err := pageNames(dir, srcs)
	if err != nil {
		return err
	}
	var beforeT *transcript.Transcript
	beforeName := ""
	if name := e.String(before.Name); name != "" {
		if cli.Several(srcs) {
			return cli.Usagef("--before compares one transcript with the one it was made from: give one FILE")
		}
		in, err := e.ReadFile(name)
		if err != nil {
			return err
		}
		if beforeT, err = e.Load(in); err != nil {
			return err
		}
		beforeName = in.Display()
	}
	files := safefile.NewWriter()
	return e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		t, err := e.Load(in)
		if err != nil {
			return nil, err
		}
		opts, err := sessionpage.Defaults(in.Display(), in.Data, t, ctr)
		if err != nil {
			return nil, err
		}
		opts.Prices, opts.Top, opts.Before, opts.BeforeName = prices, top, beforeT, beforeName
		opts.Policy, opts.HourCache, opts.Model = sessionpage.PolicyOf(pol.For(in.Data, t.Format)), pol.HourCache(in.Data, t.Format), pol.Model
		page := sessionpage.Build(t, opts)
		return func() error {
			if dir == "" {
				_, err := page.WriteTo(e.Stdout)
				return err
			}
			return files.Write(pages[in.Name], page)
		}, nil
	})
}

// topAndCounter are --top, checked, and the counter of --encoding.
func topAndCounter(e *cli.Env) (int, tokens.Counter, error) {
	top := e.Int(top.Name)
	if top < 0 {
		return 0, nil, cli.Usagef("--top must be 0 or more")
	}
	ctr, err := e.Counter()
	return top, ctr, err
}

// pageNames is where -o DIR puts each source's page: its name with .html
// for its extension. Two sources whose pages would be one file are a
// usage error, before anything is written.
func pageNames(dir string, srcs []cli.Source) (map[string]string, error) {
	out := map[string]string{}
	if dir == "" {
		return out, nil
	}
	by := map[string]string{}
	for _, s := range srcs {
		name := s.Out()
		if name == "" {
			continue // not readable: its error comes when it is read
		}
		for _, ext := range []string{".jsonl", ".json", ".traj"} {
			if trimmed, ok := strings.CutSuffix(name, ext); ok && trimmed != "" {
				name = trimmed
				break
			}
		}
		path := filepath.Join(dir, name+".html")
		if other, ok := by[path]; ok && other != s.Name {
			return nil, cli.Usagef("-o %s: the pages of %s and %s would both be %s: give them apart (one -o DIR each)", dir, other, s.Display(), path)
		}
		by[path], out[s.Name] = s.Name, path
	}
	return out, nil
}
