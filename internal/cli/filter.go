package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/filter"
	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// FilterFlags returns a filter's own flags followed by those every filter
// has.
func FilterFlags(own ...ucli.Flag) []ucli.Flag {
	return append(own, StatsFlag, InPlaceFlag, OutDirFlag, ArchiveFlag, EachLineFlag, JobsFlag, QuietFlag, FormatFlag, ToolKindFlag)
}

// Filter runs a filter over the inputs, one at a time: each is parsed,
// given to f, and written back in its own format, to stdout (one input),
// in place (-i) or to a directory (-o DIR). A bad input gets its error and
// the others go on (Each). --stats prints the line of each transcript's
// report. With --each-line, each line of the inputs is a transcript,
// filtered on --jobs goroutines (EachLine). With --archive, the outputs the
// filter replaced in a transcript are stored before it is written (their
// markers cite them: the filter's options take e.Handles()), and one whose
// outputs cannot be stored is not written.
//
// note, when not nil, is given each transcript's report and the input's
// name (FILE, or FILE:N for a line of --each-line), and returns a line to
// print on stderr before the --stats line ("" for none), which the input's
// name starts; the lines come in the order of the inputs. Under
// --each-line it runs on several goroutines at once.
func Filter[R filter.Report](e *Env, f filter.Filter[R], note func(r R, where string) string) (err error) {
	var keep *archive.Archive // --archive's, opened once the usage is checked
	defer func() {
		if keep == nil {
			return
		}
		if cerr := keep.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	printStats := e.Bool(StatsFlag.Name)
	// apply filters t and stores what it replaced; it returns the note on
	// it and its --stats line ("" for none).
	apply := func(t *transcript.Transcript, where string) (noted, stats string, err error) {
		r := f.Apply(t)
		rep := r.Stats()
		if keep != nil {
			if err := keep.Keep(archive.Originals(t, rep.Replaced)); err != nil {
				return "", "", err
			}
		}
		if note != nil {
			noted = note(r, where)
		}
		if printStats {
			stats = rep.String()
		}
		return noted, stats, nil
	}
	if e.Bool(EachLineFlag.Name) {
		if keep, err = e.OpenArchive(); err != nil {
			return err
		}
		return e.EachLine(func(t *transcript.Transcript, in LineInput) ([]byte, string, error) {
			noted, stats, err := apply(t, in.Where())
			if err != nil {
				return nil, "", err
			}
			out := in.Data
			if t.Changed() {
				out = t.Bytes()
			}
			return out, strings.Trim(noted+"\n"+stats, "\n"), nil
		})
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	dest, err := e.destination(srcs)
	if err != nil {
		return err
	}
	if keep, err = e.OpenArchive(); err != nil {
		return err
	}
	several := Several(srcs)
	files := safefile.NewWriter()
	return e.Each(srcs, func(in Input) error {
		if dest.inPlace && in.Unfinished > 0 {
			// The agent goes on writing to the file it has open: a file
			// renamed over it would lose what it writes next.
			return Failf("%s:%d: the last line is unfinished (no newline, not JSON): the session is still being written, and -i leaves it as it is",
				in.Display(), in.Unfinished)
		}
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		noted, stats, err := apply(t, in.Display())
		if err != nil {
			return Failf("%s: %v", in.Display(), err)
		}
		// Straight from the input and the edits, without a copy of the
		// whole output in memory.
		var out io.WriterTo = t
		if !t.Changed() {
			out = bytes.NewReader(in.Data)
		}
		switch {
		case dest.inPlace:
			if t.Changed() {
				err = files.Write(in.Name, out)
			}
		case dest.dir != "":
			err = files.Write(filepath.Join(dest.dir, in.out), out)
		default:
			err = copyTo(e.Stdout, out)
		}
		if err != nil {
			return err
		}
		if noted != "" {
			e.Note(in.Display() + ": " + noted)
		}
		if stats != "" && several {
			stats = in.Display() + ": " + stats
		}
		if stats != "" {
			e.Note(stats)
		}
		return nil
	})
}

// copyTo writes content to w through a buffer: a transcript writes itself
// in many small pieces.
func copyTo(w io.Writer, content io.WriterTo) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := content.WriteTo(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// destination is where a filter's results go.
type destination struct {
	inPlace bool
	dir     string // -o DIR
}

// destination reads -i and -o and checks them against the inputs, before
// anything is read or written: several inputs need one of them, stdin
// cannot be rewritten in place, and no two inputs may be written to the
// same file nor over another input. A missing -o DIR is created when the
// first result is written into it.
func (e *Env) destination(srcs []Source) (destination, error) {
	d := destination{inPlace: e.Bool(InPlaceFlag.Name), dir: e.outDir()}
	switch {
	case d.inPlace && d.dir != "":
		return d, Usagef("-i and -o cannot be used together")
	case d.inPlace:
		for i, s := range srcs {
			if s.Name == "-" {
				return d, Usagef("-i rewrites files; stdin cannot be rewritten in place")
			}
			if s.err == nil {
				srcs[i].err = regularFile(s.Name)
			}
		}
	case d.dir != "":
		if st, err := os.Stat(d.dir); err == nil && !st.IsDir() {
			return d, Usagef("-o %s: not a directory", d.dir)
		}
		return d, collisions(d.dir, srcs)
	case len(srcs) > 1:
		return d, Usagef("%d files given: write them back with -i, or to a directory with -o DIR", len(srcs))
	case len(srcs) == 1 && srcs[0].dir:
		return d, Usagef("a directory given: write its transcripts back with -i, or to a directory with -o DIR")
	}
	return d, nil
}

// regularFile refuses, for -i, what cannot be rewritten in place: a FIFO
// (reading it would consume it), a device, a socket. A link is followed.
func regularFile(name string) error {
	st, err := os.Stat(name)
	if err != nil {
		return safefile.PathError(name, err)
	}
	if !st.Mode().IsRegular() {
		return Failf("%s: not a regular file: -i rewrites regular files only", name)
	}
	return nil
}

// collisions refuses -o DIR when two inputs would be written to the same
// file, or one over another input before it is read.
func collisions(dir string, srcs []Source) error {
	inputs := map[string]string{}
	for _, s := range srcs {
		if s.Name != "-" && s.err == nil {
			inputs[realPath(s.Name)] = s.Name
		}
	}
	outputs := map[string]string{}
	for _, s := range srcs {
		if s.err != nil {
			continue
		}
		out := filepath.Join(dir, s.out)
		key := realPath(out)
		if other, ok := outputs[key]; ok {
			return Usagef("-o %s: %s and %s would both be written to %s: give them apart (one -o DIR each)", dir, other, s.Display(), out)
		}
		outputs[key] = s.Display()
		if in, ok := inputs[key]; ok && in != s.Name {
			return Usagef("-o %s: %s would be written over the input %s", dir, s.Display(), in)
		}
	}
	return nil
}
