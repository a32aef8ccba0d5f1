package cli

import (
	"bufio"
	"fmt"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// FilterFlags returns a filter's own flags followed by those every filter
// has.
func FilterFlags(own ...ucli.Flag) []ucli.Flag {
	return append(own, StatsFlag, InPlaceFlag, OutDirFlag, FormatFlag, ToolKindFlag)
}

// Filter runs a filter over the inputs: each is parsed, given to apply, and
// written back in its own format, to stdout (one input), in place (-i) or to
// a directory (-o DIR). Nothing is written until every input has been
// filtered, so a bad input leaves stdout and the files untouched. apply
// returns the --stats line for its transcript.
func (e *Env) Filter(apply func(t *transcript.Transcript) (string, error)) error {
	inputs, err := e.Inputs()
	if err != nil {
		return err
	}
	dest, dir, err := e.Destination(inputs)
	if err != nil {
		return err
	}
	ts := make([]*transcript.Transcript, len(inputs))
	stats := make([]string, len(inputs))
	for i, in := range inputs {
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		if stats[i], err = apply(t); err != nil {
			return Failf("%s: %v", in.Display(), err)
		}
		ts[i] = t
	}
	for i, in := range inputs {
		t := ts[i]
		ts[i] = nil
		out := in.Data
		switch {
		case !t.Changed():
		case dest == ToStdout:
			// Straight from the input and the edits, without a copy of
			// the whole output in memory.
			w := bufio.NewWriterSize(e.Stdout, 1<<20)
			if _, err := t.WriteTo(w); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
			continue
		default:
			out = t.Bytes()
		}
		switch dest {
		case ToStdout:
			if _, err := e.Stdout.Write(out); err != nil {
				return err
			}
		case InPlace:
			if t.Changed() {
				if err := WriteFile(in.Name, out); err != nil {
					return Failf("%v", err)
				}
			}
		case ToDir:
			name := filepath.Base(in.Name)
			if in.Name == "-" {
				name = "stdin"
			}
			if err := WriteFile(filepath.Join(dir, name), out); err != nil {
				return Failf("%v", err)
			}
		}
	}
	if e.Bool(StatsFlag.Name) {
		for i, in := range inputs {
			prefix := e.Name + ": "
			if len(inputs) > 1 {
				prefix += in.Display() + ": "
			}
			fmt.Fprintln(e.Stderr, prefix+stats[i])
		}
	}
	return nil
}
