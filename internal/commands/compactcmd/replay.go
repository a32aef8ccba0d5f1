package compactcmd

import (
	"fmt"
	"io"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// replayReport is ctx-compact --replay --json's output.
type replayReport struct {
	Version  int    `json:"version"`
	Encoding string `json:"encoding"`
	// Prices is the date of the embedded price table.
	Prices   string           `json:"prices"`
	Prefix   int              `json:"prefix_tokens"`
	Sessions []replay.Session `json:"sessions"`
	// Total is every session's added up; its peak context is the largest
	// of theirs, and WorstPeakRatio the largest of their peak ratios.
	Total          replay.Session `json:"total"`
	WorstPeakRatio float64        `json:"worst_peak_ratio"`
}

// runReplay is ctx-compact --replay: each session replayed as it was and
// compacted, on --jobs goroutines, and the report of them all.
func runReplay(e *cli.Env, s *setup) error {
	for _, f := range []ucli.Flag{cli.InPlaceFlag, cli.OutDirFlag, cli.ArchiveFlag, cli.EachLineFlag, cli.StatsFlag, keepMirrors} {
		if e.Given(f) {
			return cli.Usagef("--%s does not go with --replay, which writes no transcript", f.Names()[0])
		}
	}
	pre, err := cli.TokenAmount(prefix.Name, e.String(prefix.Name), 0)
	if err != nil {
		return cli.Usagef("--prefix %s: want a number of tokens (20000, 20k)", e.String(prefix.Name))
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	opts := replay.Options{Counter: s.Counter, Prices: s.Prices, Model: s.Model, Prefix: pre}
	report := replayReport{Version: schema, Encoding: s.Counter.Name(), Prices: pricing.Default().Date(), Prefix: pre, Sessions: []replay.Session{}}
	err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		t, err := e.Load(in)
		if err != nil {
			return nil, err
		}
		r := replaySession(t, in.Data, s, opts)
		r.File = in.Display()
		return func() error {
			report.Sessions = append(report.Sessions, r)
			return nil
		}, nil
	})
	if err != nil || len(report.Sessions) == 0 {
		return err
	}
	report.Total = replay.Total(report.Sessions)
	for _, r := range report.Sessions {
		report.WorstPeakRatio = max(report.WorstPeakRatio, r.PeakRatio())
	}
	return e.Report(e.Bool(jsonFlag.Name), report, report.writeText)
}

// replaySession replays one session, as it was and compacted, with the
// cache's life its records show (or --cache-ttl).
func replaySession(t *transcript.Transcript, data []byte, s *setup, opts replay.Options) replay.Session {
	opts.HourCache = s.HourCache(data, t.Format)
	f := s.For(data, t.Format)
	return replay.Replay(t, func(t *transcript.Transcript) replay.Advance { return f.Start(t).Advance }, opts)
}

// writeText writes the report as one table, two rows a session (as it was,
// then compacted) and two for the total.
func (r replayReport) writeText(w io.Writer) error {
	prefix := ""
	if r.Prefix > 0 {
		prefix = ", a prefix of " + textfmt.Int(r.Prefix) + " tokens on every request"
	}
	if _, err := fmt.Fprintf(w, "%s replayed request by request, as sent and through ctx-compact: tokens in %s, prices of %s%s\n\n",
		textfmt.Plural(len(r.Sessions), "session", "sessions"), r.Encoding, r.Prices, prefix); err != nil {
		return err
	}
	tb := textfmt.Table{Indent: "  ", Right: map[int]bool{3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true, 11: true, 12: true}}
	tb.Row("SESSION", "MODEL", "RUN", "REQUESTS", "TOKENS SENT", "CACHE READ", "CACHE WRITE", "OUTPUT", "COST", "RATIO", "PEAK", "RATIO", "BREAKS")
	rows := func(name, model string, s replay.Session, peakRatio float64) {
		run := func(name, model, label string, x replay.Run, ratio, peak string) {
			tb.Row(name, model, label, textfmt.Int(x.Requests), textfmt.Int(int(x.Sent)), textfmt.Int(int(x.Tokens.CacheRead)),
				textfmt.Int(int(x.Tokens.CacheWrite+x.Tokens.CacheWrite1h+x.Tokens.Input)), textfmt.Int(int(x.Tokens.Output)),
				textfmt.Dollars(x.Cost), ratio, textfmt.Int(x.Peak), peak, textfmt.Int(x.Breaks))
		}
		run(name, model, "as it was", s.AsIs, "", "")
		c := s.AsIs
		if s.Compacted != nil {
			c = *s.Compacted
		}
		run("", "", "ctx-compact", c, ratio(s.Ratio()), ratio(peakRatio))
	}
	for _, s := range r.Sessions {
		rows(s.File, modelOf(s), s, s.PeakRatio())
	}
	rows("total", "", r.Total, r.WorstPeakRatio)
	if err := tb.Write(w); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, "\nRATIO: ctx-compact's cost, or peak context, over the session's as it was; the total's peak ratio is the largest of the sessions'."); err != nil {
		return err
	}
	return r.writeHidden(w)
}

// writeHidden writes what the compacted requests hid that the model went
// on to use, and the cost with the requests that fetch it back: a row a
// session and the total.
func (r replayReport) writeHidden(w io.Writer) error {
	if _, err := fmt.Fprint(w, "\nWhat ctx-compact hid that the model went on to use, and the cost of getting it back:\n\n"); err != nil {
		return err
	}
	tb := textfmt.Table{Indent: "  ", Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true}}
	tb.Row("SESSION", "FACTS USED", "HIDDEN", "SHARE", "RECALLS", "RECALL COST", "WITH RECALLS", "RATIO")
	row := func(name string, s replay.Session) {
		c := s.AsIs
		if s.Compacted != nil {
			c = *s.Compacted
		}
		tb.Row(name, textfmt.Int(s.FactsUsed), textfmt.Int(c.Hidden), textfmt.Percent(s.HiddenShare()), textfmt.Int(c.Recalls),
			textfmt.Dollars(c.RecallCost), textfmt.Dollars(c.WithRecalls), ratio(s.RecallRatio()))
	}
	for _, s := range r.Sessions {
		row(s.File, s)
	}
	row("total", r.Total)
	if err := tb.Write(w); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
FACTS USED: the names, paths and numbers the model wrote in a turn that it could only have had
from a tool result, turn by turn; HIDDEN: those the compacted request for that turn no longer
showed; RECALLS: the results that showed them, each fetched back once by a request that reads
the context from the cache and writes the result again (RECALL COST); WITH RECALLS: the cost
with those requests, and its ratio to the cost as it was. See docs/compact.md.
`)
	return err
}

// modelOf is the model a session was priced as.
func modelOf(s replay.Session) string {
	if s.Known {
		return s.Model
	}
	name := s.Model
	if name == "" {
		name = "none named"
	}
	return name + ", priced as " + pricing.DefaultModel(transcript.Format(s.Format))
}

func ratio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
