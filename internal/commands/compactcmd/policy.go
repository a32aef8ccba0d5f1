package compactcmd

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// PolicyFlags are the flags of ctx-compact's policy: what it puts in a
// live loop, and what the replay of ctx-count --html puts there. Each
// command makes its own (NewPolicyFlags), with the same names, twins and
// meaning.
type PolicyFlags struct {
	recent           *ucli.IntFlag
	horizon          *ucli.Float64Flag
	mode, model, ttl *ucli.StringFlag
	noCut, noDedupe  *ucli.BoolFlag
	keepEdits        *ucli.BoolFlag
	replaceReads     *ucli.BoolFlag
	keepReferred     *ucli.IntFlag
}

// NewPolicyFlags makes the policy's flags; when, before each usage, says
// when the flag applies ("" for ctx-compact's own).
func NewPolicyFlags(when string) *PolicyFlags {
	p := &PolicyFlags{
		recent: &ucli.IntFlag{Name: "recent", Value: compact.DefaultWindow, EnvVars: []string{"CTX_RECENT"},
			Usage: when + "keep whole the results of the last `N` model turns (1: the results the model has not answered yet); a result is replaced once it is older, if it pays"},
		horizon: &ucli.Float64Flag{Name: "horizon", Value: compact.DefaultHorizon, EnvVars: []string{"CTX_HORIZON"},
			Usage: when + "expect a session that has run k requests to run `H` times k more: what a replacement saves is weighed over them (0: replace only what pays on its own request)"},
		mode: cli.ModeFlag(string(summarize.ModeSummary), when+"what replaces a result once used: `MODE` summary (ctx-summarize's, made for the tool's kind) or clear (one line: the tool, its target, the size removed, and the lines that say what went wrong)"),
		noCut: &ucli.BoolFlag{Name: "no-cut", EnvVars: []string{"CTX_NO_CUT"},
			Usage: when + "do not cut long command outputs on arrival"},
		noDedupe: &ucli.BoolFlag{Name: "no-dedupe", EnvVars: []string{"CTX_NO_DEDUPE"},
			Usage: when + "do not make a re-read that a whole read above shows the same a pointer up at it"},
		keepEdits: &ucli.BoolFlag{Name: "keep-edits", EnvVars: []string{"CTX_KEEP_EDITS"},
			Usage: when + "leave edits and writes whole: their arguments (and what a command's heredoc writes to a file) and their results"},
		replaceReads: &ucli.BoolFlag{Name: "replace-reads", EnvVars: []string{"CTX_REPLACE_READS"},
			Usage: when + "replace a read's result once used, as any other (by default the text of a file the agent read stays whole: it edits and writes from it, often many turns later); cheaper, and hides more of what the model goes on to use"},
		keepReferred: &ucli.IntFlag{Name: "keep-referred", Value: compact.DefaultKeepReferred, EnvVars: []string{"CTX_KEEP_REFERRED"},
			Usage: when + "keep whole a result of at most `N` tokens that the model referred to (wrote a name, path or number it shows) while it was recent; 0: none"},
		model: &ucli.StringFlag{Name: "model", EnvVars: []string{"CTX_MODEL"},
			Usage: when + "price every request as `MODEL` (a name the price table knows, or one --price gives), for the cost model and the replay; by default, as the model the transcript says answered it"},
		ttl: &ucli.StringFlag{Name: "cache-ttl", Value: ttlAuto, EnvVars: []string{"CTX_CACHE_TTL"},
			Usage: when + "the life of a cache write, which sets its price: `TTL` 5m (Anthropic's 1.25x input), 1h (2x input, as Claude Code writes), or auto (as the session's own usage records show; else 5m)"},
	}
	return p
}

// Flags are the policy's flags, in the order --help lists them.
func (p *PolicyFlags) Flags() []ucli.Flag {
	return []ucli.Flag{p.recent, p.horizon, p.mode, p.noCut, p.noDedupe, p.keepEdits, p.replaceReads, p.keepReferred, p.model, p.ttl}
}

// The values of --cache-ttl.
const (
	ttlAuto = "auto"
	ttl5m   = "5m"
	ttl1h   = "1h"
)

// Policy is ctx-compact's policy as its flags set it, checked: the filter
// with 5-minute cache writes and the one with 1-hour writes, of which
// --cache-ttl, or a session's own usage records, picks one.
type Policy struct {
	Counter tokens.Counter
	Prices  *pricing.Table
	// Model prices every request (--model), "" as the transcript says.
	Model      string
	Mode       summarize.Mode
	ttl        string
	five, hour *compact.Filter
}

// Policy reads the policy's flags; more sets the options that are not the
// policy's (ctx-compact's --keep-mirrors, --stats, --archive). A bad value
// is a usage error.
func (p *PolicyFlags) Policy(e *cli.Env, ctr tokens.Counter, prices *pricing.Table, more func(*compact.Options)) (*Policy, error) {
	pol := &Policy{Counter: ctr, Prices: prices, Model: e.String(p.model.Name), ttl: e.String(p.ttl.Name)}
	switch pol.ttl {
	case "": // an empty twin is no twin
		pol.ttl = ttlAuto
	case ttlAuto, ttl5m, ttl1h:
	default:
		return nil, cli.Usagef("--cache-ttl %s: want 5m, 1h or auto", pol.ttl)
	}
	if m := pol.Model; m != "" {
		if _, ok := prices.Lookup(m); !ok {
			return nil, cli.Usagef("--model %s: not in the price table; give its prices with --price %s:input=N,output=N (or --prices FILE)", m, m)
		}
	}
	if n := e.Int(p.recent.Name); n < 1 {
		return nil, cli.Usagef("--recent %d: want 1 or more (1 keeps whole the results the model has not answered yet)", n)
	}
	opts := compact.Defaults(ctr)
	opts.Prices, opts.Model = prices, pol.Model
	opts.Window, opts.Horizon = e.Int(p.recent.Name), e.Float64(p.horizon.Name)
	opts.Dedupe, opts.KeepEdits = !e.Bool(p.noDedupe.Name), e.Bool(p.keepEdits.Name)
	opts.KeepReads, opts.KeepReferred = !e.Bool(p.replaceReads.Name), e.Int(p.keepReferred.Name)
	if opts.KeepReferred < 0 {
		return nil, cli.Usagef("--keep-referred %d: want 0 or more tokens", opts.KeepReferred)
	}
	if e.Bool(p.noCut.Name) {
		opts.Cut = nil
	}
	switch pol.Mode = summarize.Mode(e.String(p.mode.Name)); pol.Mode {
	case "": // an empty twin is no twin
		pol.Mode = summarize.ModeSummary
	case summarize.ModeSummary:
	case summarize.ModeClear:
		opts.Summarizer = compact.Clears(ctr)
	default:
		return nil, cli.Usagef("--mode %s: want summary or clear", pol.Mode)
	}
	if more != nil {
		more(&opts)
	}
	var err error
	if pol.five, err = compact.New(opts); err != nil {
		return nil, cli.Usagef("--%v", err)
	}
	opts.HourCache = true
	if pol.hour, err = compact.New(opts); err != nil {
		return nil, cli.Usagef("--%v", err)
	}
	return pol, nil
}

// HourCache reports whether a session's cache writes last an hour: as
// --cache-ttl says, or as its own usage records show.
func (p *Policy) HourCache(data []byte, f transcript.Format) bool {
	switch p.ttl {
	case ttl1h:
		return true
	case ttl5m:
		return false
	}
	return usage.HourCache(usage.Read(data, f))
}

// For is the filter for a session: with the cache writes its life calls
// for.
func (p *Policy) For(data []byte, f transcript.Format) *compact.Filter {
	if p.HourCache(data, f) {
		return p.hour
	}
	return p.five
}
