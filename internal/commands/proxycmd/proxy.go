// Package proxycmd is ctx-proxy: a local HTTP proxy between an agent and
// its model API that compacts each request with ctx-compact's policy, and
// the report of what that saved.
package proxycmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/proxy"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/userdir"
)

// Command is ctx-proxy.
var Command = cli.Command{
	Name:  "ctx-proxy",
	Usage: "a local proxy between an agent and its model API that compacts every request, and the report of what it saved",
	Description: `Listens on --listen (127.0.0.1) and passes every request on to the model API: Anthropic's
(--anthropic-url) for the Messages API, OpenAI's (--openai-url) for Chat Completions, Responses
and the rest. On its way, the history of each request (POST .../messages, .../chat/completions,
.../responses) goes through ctx-compact's policy: long command outputs cut on arrival, re-reads
pointed up at the read they repeat, results summarized once the model has answered them, and
only where the prompt cache keeps the saving. Only the content of the results it replaces
changes; every other byte of the body goes as the agent sent it (thinking and its signatures,
cache_control, system, tools, images). Responses stream back as they arrive, untouched.

Point the agent at it and work as before:
   Claude Code     ANTHROPIC_BASE_URL=http://127.0.0.1:4747 claude
   Codex           a [model_providers.NAME] entry in ~/.codex/config.toml with
                   base_url = "http://127.0.0.1:4747/v1" (docs/proxy.md)
   an OpenAI SDK   OPENAI_BASE_URL=http://127.0.0.1:4747/v1

Every output a request is sent without is stored in the archive (--archive: the default
archive, the one ctx-recall and its MCP server read) once the upstream accepts the request,
before the agent reads the answer, and its marker cites its id. What the proxy fails at
itself (a body it cannot read, an archive it cannot read) sends the agent's own bytes upstream
and logs one line on stderr; what the upstream answers, errors included, reaches the agent
unchanged. It refuses what a web page can send: a request with an Origin header, a Host that
is not its address (or localhost, or the name --listen gives), a body that is not JSON.

Each request's cost goes in the ledger (--ledger): the upstream's own usage from its answer,
and what the same request would have cost as the agent sent it, with the prompt cache
counted. --report prints it by session (--json too). See docs/proxy.md.

With --listen on port 0 it picks a free port. The first line on stderr is always
"listening on ADDR". It runs until interrupted (SIGINT, SIGTERM), then lets the answers in
progress finish for up to 10 seconds.

EXAMPLES:
   ctx-proxy
   ctx-proxy --listen 127.0.0.1:0 --archive '' --ledger ''
   CTX_ANTHROPIC_URL=https://gateway.example.com/anthropic ctx-proxy
   ctx-proxy --report
   ctx-proxy --report --json | jq '.total.saved_usd'`,
	Flags: []ucli.Flag{listen, anthropicURL, openaiURL, archiveFlag, ledger, report, jsonFlag, maxBody,
		cli.EncodingFlag, cli.ToolKindFlag},
	Run: runProxy,
}

// DefaultListen is where ctx-proxy listens unless told otherwise.
const DefaultListen = "127.0.0.1:4747"

var (
	listen = &ucli.StringFlag{Name: "listen", Value: DefaultListen, EnvVars: []string{"CTX_LISTEN"},
		Usage: "listen on `ADDR` (host:port; port 0 picks a free one)"}
	anthropicURL = &ucli.StringFlag{Name: "anthropic-url", Value: "https://api.anthropic.com", EnvVars: []string{"CTX_ANTHROPIC_URL"},
		Usage: "the Anthropic API's base `URL`: Messages requests (and count_tokens, and anything with Anthropic's headers) go there"}
	openaiURL = &ucli.StringFlag{Name: "openai-url", Value: "https://api.openai.com", EnvVars: []string{"CTX_OPENAI_URL"},
		Usage: "the OpenAI-compatible API's base `URL`: Chat Completions, Responses and the rest go there (a base ending in /v1 takes a path's /v1/ once)"}
	archiveFlag = cli.ArchiveFlagOf("keep every output a request is sent without in the archive at `PATH`, once the upstream accepts the request, and cite its id in the marker (default: ctxkit/archive.db in the user's data directory, the one ctx-recall reads); --archive '' keeps none")
	ledger      = &ucli.StringFlag{Name: "ledger", EnvVars: []string{"CTX_LEDGER"},
		Usage: "write what each request cost to the JSONL ledger at `PATH`, and read it with --report (default: ctxkit/proxy-ledger.jsonl in the user's data directory); --ledger '' keeps none"}
	report   = &ucli.BoolFlag{Name: "report", EnvVars: []string{"CTX_REPORT"}, Usage: "print the ledger by session and exit: requests, prompt tokens and the bill as the agent sent them → as the proxy sent them"}
	jsonFlag = cli.JSONFlag("with --report, print it as JSON (schema in docs/proxy.md)")
	maxBody  = &ucli.StringFlag{Name: "max-body", Value: "32MiB", EnvVars: []string{"CTX_MAX_BODY"},
		Usage: "compact request bodies up to `SIZE` (bytes, or with KiB, MiB, GiB); a larger one goes upstream as it comes"}
)

func runProxy(e *cli.Env) error {
	if e.NArg() > 0 {
		return cli.Usagef("ctx-proxy takes no arguments; %d given", e.NArg())
	}
	ledgerPath, err := defaulted(e, ledger.Name, func() (string, error) { return userdir.DataFile("proxy-ledger.jsonl") })
	if err != nil {
		return cli.Failf("no data directory for the ledger (%v): name one with --ledger", err)
	}
	if e.Bool(report.Name) {
		return printReport(e, ledgerPath)
	}
	if e.Bool(jsonFlag.Name) {
		return cli.Usagef("--json goes with --report")
	}
	cfg := proxy.Config{}
	if cfg.Anthropic, err = upstream(e, anthropicURL); err != nil {
		return err
	}
	if cfg.OpenAI, err = upstream(e, openaiURL); err != nil {
		return err
	}
	if cfg.MaxBody, err = size(e.String(maxBody.Name)); err != nil {
		return cli.Usagef("--max-body %s: %v", e.String(maxBody.Name), err)
	}
	if cfg.Counter, err = e.Counter(); err != nil {
		return err
	}
	if cfg.Tools, err = e.Tools(); err != nil {
		return err
	}
	cfg.Options = compact.Defaults(cfg.Counter)
	archivePath, err := defaulted(e, archiveFlag.Name, archive.DefaultPath)
	if err != nil {
		return cli.Failf("%v", err)
	}
	if archivePath != "" {
		if cfg.Archive, err = archive.Open(archivePath); err != nil {
			return cli.Failf("--archive: %v", err)
		}
		defer cfg.Archive.Close()
	}
	if ledgerPath != "" {
		if cfg.Ledger, err = proxy.OpenLedger(ledgerPath, pricing.Default()); err != nil {
			return cli.Failf("--ledger: %v", err)
		}
		defer cfg.Ledger.Close()
	}
	if host, _, err := net.SplitHostPort(e.String(listen.Name)); err == nil && net.ParseIP(host) == nil && host != "" {
		cfg.Names = []string{host} // a name it listens on is its own
	}
	cfg.Log = func(line string) { e.Note(line) }
	p, err := proxy.New(cfg)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The bodies held, and the compactions at work (a few times their
		// body each): past that the collector works harder rather than
		// let the heap double.
		debug.SetMemoryLimit(p.Memory() + 8*cfg.MaxBody)
	}
	ln, err := net.Listen("tcp", e.String(listen.Name))
	if err != nil {
		return cli.Failf("--listen: %v", err)
	}
	fmt.Fprintf(e.Stderr, "listening on %s\n", ln.Addr())
	return serve(p.Server(), ln)
}

// serve serves until SIGINT or SIGTERM, then lets the answers in progress
// finish for up to 10 seconds.
func serve(srv *http.Server, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return cli.Failf("%v", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return cli.Failf("%v", err)
	}
	return nil
}

// defaulted is a path flag's value: as given (on the command line or in
// its environment twin; "" for none), else the default.
func defaulted(e *cli.Env, name string, def func() (string, error)) (string, error) {
	if e.IsSet(name) {
		return e.String(name), nil
	}
	return def()
}

// upstream reads an upstream's base URL.
func upstream(e *cli.Env, f *ucli.StringFlag) (*url.URL, error) {
	s := e.String(f.Name)
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, cli.Usagef("--%s %s: want an http or https base URL (https://api.example.com, http://127.0.0.1:8080/v1)", f.Name, s)
	}
	return u, nil
}

// size reads a size in bytes: 1048576, 1024KiB, 32MiB, 1GiB (KB, MB and GB
// are taken as the same powers of two).
func size(s string) (int64, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"gb", 1 << 30}, {"g", 1 << 30}, {"mib", 1 << 20}, {"mb", 1 << 20}, {"m", 1 << 20},
		{"kib", 1 << 10}, {"kb", 1 << 10}, {"k", 1 << 10}, {"b", 1}} {
		if rest, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, errors.New("want a size in bytes, or with KiB, MiB or GiB (32MiB)")
	}
	return n * mult, nil
}

// printReport prints the ledger's report.
func printReport(e *cli.Env, path string) error {
	if path == "" {
		return cli.Usagef("--report reads the ledger: --ledger '' names none")
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return cli.Failf("%s: no ledger there yet (ctx-proxy writes it as it serves requests)", path)
	}
	if err != nil {
		return cli.Failf("%v", err)
	}
	defer f.Close()
	entries, skipped, err := proxy.ReadLedger(f)
	if err != nil {
		return cli.Failf("%s: %v", path, err)
	}
	if len(entries) == 0 && len(skipped) > 0 {
		return cli.Failf("%s: line %s: not a ledger entry (and no line is)", path, textfmt.Int(skipped[0]))
	}
	if len(skipped) > 0 {
		e.Warn("%s: %s skipped (%s), not whole entries: a write cut short; %s read", path,
			textfmt.Plural(len(skipped), "line", "lines"), lineList(skipped), textfmt.Plural(len(entries), "entry", "entries"))
	}
	rep := proxy.Summarize(entries)
	if e.Bool(jsonFlag.Name) {
		return rep.WriteJSON(e.Stdout)
	}
	if err := rep.WriteTable(e.Stdout); err != nil {
		return err
	}
	if n := len(rep.Sessions); n > 0 {
		_, err = fmt.Fprintf(e.Stdout, "%s from %s to %s; ledger %s\n", textfmt.Plural(rep.Total.Requests, "request", "requests"),
			rep.Total.First.Local().Format("2006-01-02 15:04"), rep.Total.Last.Local().Format("2006-01-02 15:04"), path)
	}
	return err
}

// lineList lists line numbers: the first ten, and how many more.
func lineList(lines []int) string {
	var b strings.Builder
	for i, n := range lines[:min(10, len(lines))] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(textfmt.Int(n))
	}
	if len(lines) > 10 {
		fmt.Fprintf(&b, " and %s more", textfmt.Int(len(lines)-10))
	}
	return b.String()
}
