package cli

import (
	"bytes"
	"io"
	"runtime"

	"github.com/ctxkit/ctxkit/internal/parallel"
)

// jobs is --jobs: how many inputs are worked on at once.
func (e *Env) jobs() (int, error) {
	n := e.Int(JobsFlag.Name)
	switch {
	case n < 0:
		return 0, Usagef("--jobs must be 0 (one per CPU) or more")
	case n == 0:
		return runtime.GOMAXPROCS(0), nil
	}
	return n, nil
}

// Each reads the sources one at a time and gives each to do. A source that
// cannot be read, or that do fails on, gets its one-line error on stderr and
// the others go on; the run then exits 1 (as gofmt and grep do). A usage
// error or a closed stdout ends the run at once.
func (e *Env) Each(srcs []Source, do func(in Input) error) error {
	return e.each(srcs, 1, func(in Input) (func() error, error) {
		return nil, do(in)
	})
}

// EachParallel is Each on --jobs goroutines: work reads and works on the
// sources, several at once, and must touch nothing but its input; the
// finish func it returns (nil for none) runs on the caller's goroutine, in
// the order of the sources, to gather the results. At most twice --jobs
// sources are under way at once, and a source's bytes go when work
// returns, so that memory follows the largest files, not their number.
func (e *Env) EachParallel(srcs []Source, work func(in Input) (finish func() error, err error)) error {
	jobs, err := e.jobs()
	if err != nil {
		return err
	}
	return e.each(srcs, jobs, work)
}

// each runs work over the sources on jobs goroutines, with the progress
// bar, reporting errors in the order of the sources.
func (e *Env) each(srcs []Source, jobs int, work func(in Input) (func() error, error)) error {
	var total int64
	for _, s := range srcs {
		total += s.size
	}
	bar := e.startProgress(len(srcs), total, "files")
	defer bar.stop()
	type outcome struct {
		size   int64
		finish func() error
		err    error
		note   string // a warning on the input, printed when it goes through
	}
	i := 0
	next := func() (Source, bool) {
		if i == len(srcs) {
			return Source{}, false
		}
		i++
		return srcs[i-1], true
	}
	run := func(s Source) outcome {
		o := outcome{size: s.size, err: s.err}
		if o.err == nil {
			var in Input
			if in, o.err = e.read(s); o.err == nil {
				if in = complete(in); in.Unfinished > 0 {
					o.note = in.unfinishedNote()
				}
				o.finish, o.err = work(in)
			}
		}
		return o
	}
	done := func(o outcome) error {
		if o.err == nil && o.finish != nil {
			o.err = o.finish()
		}
		if o.err == nil && o.note != "" {
			e.Warn("%s", o.note)
		}
		err := e.survive(o.err) // before the bar moves: above it, not after it is gone
		bar.add(o.size)
		return err
	}
	return parallel.Ordered(jobs, 2*jobs, next, run, done)
}

// survive reports the failure of one input and lets the run go on: nil, or
// the error itself when it ends the run, a usage error or a closed stdout.
func (e *Env) survive(err error) error {
	if err == nil {
		return nil
	}
	if isUsage(err) || IsBrokenPipe(err) {
		return err
	}
	e.Fail(err)
	return nil
}

// Report writes a command's report to stdout, once it is whole: v as
// indented JSON with asJSON, else what text writes.
func (e *Env) Report(asJSON bool, v any, text func(io.Writer) error) error {
	var out bytes.Buffer
	var err error
	if asJSON {
		err = WriteJSON(&out, v)
	} else {
		err = text(&out)
	}
	if err != nil {
		return err
	}
	_, err = e.Stdout.Write(out.Bytes())
	return err
}
