package cli

import (
	"io"
	"os"
	"sync/atomic"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/cwriter"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// progress is the progress bar of a run over many inputs, on stderr: the
// inputs done of all, the bytes read of all, the rate and the time left.
// The nil *progress, for a run that shows none, does nothing.
type progress struct {
	p      *mpb.Progress
	bar    *mpb.Bar
	done   atomic.Int64
	stderr io.Writer // what Env.Stderr was before the bar took it
	env    *Env
}

// startProgress shows a progress bar over n inputs (-1: not known, as for
// the lines of --each-line) of size bytes (0: not known, as for stdin) when
// stderr is a terminal, there are several inputs and no --quiet; else it
// returns nil. While it shows, the lines the run
// writes to stderr (an error, a --stats line) go above the bar.
func (e *Env) startProgress(n int, size int64, unit string) *progress {
	if n == 0 || n == 1 || !isTerminal(e.Stderr) || e.Bool(QuietFlag.Name) {
		return nil
	}
	pr := &progress{stderr: e.Stderr, env: e}
	pr.p = mpb.New(mpb.WithOutput(e.Stderr), mpb.WithWidth(24))
	count := func(decor.Statistics) string {
		s := textfmt.Int(int(pr.done.Load()))
		if n > 0 {
			s += "/" + textfmt.Int(n)
		}
		return s + " " + unit
	}
	// Of a size not known, the bytes read so far and a spinner; else the
	// bytes of all, a bar and the time left.
	var style mpb.BarFillerBuilder = mpb.BarStyle()
	bytes, eta := decor.CountersKibiByte("% .1f / % .1f", decor.WCSyncSpace),
		decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WCSyncSpace), "")
	if size == 0 {
		style, bytes, eta = mpb.SpinnerStyle(), decor.CurrentKibiByte("% .1f", decor.WCSyncSpace), nil
	}
	pr.bar = pr.p.New(size, style, mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(e.Name+" "), decor.Any(count, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(bytes, decor.AverageSpeed(decor.SizeB1024(0), "% .1f", decor.WCSyncSpace), eta),
	)
	e.Stderr = pr.p
	return pr
}

// add counts one input of size bytes done.
func (pr *progress) add(size int64) {
	if pr == nil {
		return
	}
	pr.done.Add(1)
	pr.bar.IncrInt64(size)
}

// stop takes the bar off the screen and gives stderr back.
func (pr *progress) stop() {
	if pr == nil {
		return
	}
	pr.bar.Abort(true)
	pr.p.Wait()
	pr.env.Stderr = pr.stderr
}

// isTerminal reports whether w is a terminal that takes escape codes: not
// a file, a pipe, /dev/null, nor a terminal whose TERM is dumb.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("TERM") != "dumb" && cwriter.IsTerminal(int(f.Fd()))
}

// ColorOK reports whether w is a terminal that may get colour: not when
// NO_COLOR is set.
func ColorOK(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && isTerminal(w)
}
