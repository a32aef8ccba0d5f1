// Package filter declares the contract that every ctx-* filter keeps, and
// that the command line drives them all through (internal/cli's Filter):
//
//	f, err := truncate.New(opts) // options validated once
//	rep := f.Apply(t)            // the transcript changed in place, through the model
//
// A filter is pure: it reads and changes the transcript it is given through
// the model (transcript.SetText, SetInput) and nothing else: no I/O, no
// exit. It keeps the invariants of the design (docs/markers.md): the same
// format out, no message dropped or reordered, calls and results paired,
// idempotent, never more tokens, every replacement saying what was there
// and where it still is, errors kept.
package filter

import (
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Filter changes a transcript in place and reports what it did. Apply is
// safe for concurrent use on different transcripts: --each-line runs it on
// several at once.
type Filter[R Report] interface {
	Apply(t *transcript.Transcript) R
}

// Report is what a filter's Apply returns: stats.Report, the account every
// filter gives (its --stats line, what it replaced for the archive), or a
// filter's own report that holds it (ctx-summarize's, for its --json).
type Report interface {
	Stats() stats.Report
}
