package countcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/count"
)

// Counting on many machines: each counts a part of the corpus with
// --partial, and --merge adds the parts up into the report of the whole,
// the same report that one run over every file gives (docs/scale.md).
var (
	partialFlag = &ucli.BoolFlag{Name: "partial", EnvVars: []string{"CTX_PARTIAL"},
		Usage: "with --by or --cost, print a partial count of these files, JSON that --merge adds up with the counts of other files (on other machines)"}
	mergeFlag = &ucli.BoolFlag{Name: "merge", EnvVars: []string{"CTX_MERGE"},
		Usage: "read partial counts (--partial's JSON; FILEs or stdin, several a file) and print the report of all their files, as one run over them would (with --partial, one partial count)"}
)

// partialHelp is what --help says of --partial and --merge.
const partialHelp = `
MANY MACHINES (--partial, --merge): with --by or --cost, --partial prints a partial count of the
FILEs: one line of JSON holding every number the report is made of. --merge reads partial counts
and adds them up, in the order given, into the report that one run over all their files gives
(--json, --top), or with --partial into one partial count again, so that the parts can be merged
in a tree. Requests counted in two parts of --cost fail the merge: one run counts a request
repeated in a resumed session's file once, so count a directory's files in one part.`

// writePartial prints a partial count, one line of JSON.
func writePartial(e *cli.Env, marshal func() ([]byte, error)) error {
	b, err := marshal()
	if err != nil {
		return err
	}
	_, err = e.Stdout.Write(append(b, '\n'))
	return err
}

// mergeAlone are the flags that --merge does not take: the partial counts
// say how they were counted.
var mergeAlone = []ucli.Flag{by, costFlag, since, until, cli.EncodingFlag, cli.EachLineFlag, tee, before, budget, window,
	cli.PriceFlag, cli.PricesFlag, cli.FormatFlag, cli.ToolKindFlag, htmlFlag, outDir}

// merged is the sum of the partial counts read so far: of --by or --cost.
type merged struct {
	by    *count.Grouped
	costs *costs
}

// runMerge is ctx-count --merge: the partial counts of the inputs added up
// in order, each input one or more JSON values.
func runMerge(e *cli.Env) error {
	for _, f := range mergeAlone {
		if e.Given(f) {
			return cli.Usagef("--%s does not go with --merge: the partial counts say how they were counted", f.Names()[0])
		}
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	var m merged
	err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
		parts, err := readPartials(in.Data)
		if err != nil {
			return nil, cli.Failf("%s: %v", in.Display(), err)
		}
		return func() error {
			for i, p := range parts {
				if err := m.add(p); err != nil {
					return cli.Failf("%s: partial count %d: %v", in.Display(), i+1, err)
				}
			}
			return nil
		}, nil
	})
	switch {
	case err != nil:
		return err
	case m.by != nil:
		if e.Bool(partialFlag.Name) {
			return writePartial(e, m.by.MarshalPartial)
		}
		if m.by.Sessions+m.by.Skipped == 0 {
			return nil
		}
		return reportBy(e, m.by)
	case m.costs != nil:
		if e.Bool(partialFlag.Name) {
			return writePartial(e, m.costs.marshalPartial)
		}
		return m.costs.report(e, 0)
	}
	return nil // every input failed, and said so
}

// readPartials reads the partial counts of an input: a count of --by or of
// --cost each.
func readPartials(data []byte) ([]any, error) {
	var out []any
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("partial count %d: %v", len(out)+1, err)
		}
		var kind struct {
			Partial string `json:"partial"`
		}
		_ = json.Unmarshal(raw, &kind) // not an object: no kind, said below
		var p any
		var err error
		switch kind.Partial {
		case count.PartialCount:
			p, err = count.UnmarshalPartial(raw)
		case partialCost:
			p, err = unmarshalCosts(raw)
		default:
			err = errors.New("not a partial count (ctx-count --by or --cost with --partial)")
		}
		if err != nil {
			return nil, fmt.Errorf("partial count %d: %v", len(out)+1, err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("no partial count")
	}
	return out, nil
}

// add adds a partial count after those added before.
func (m *merged) add(p any) error {
	switch p := p.(type) {
	case *count.Grouped:
		if m.costs != nil {
			return errors.New("a count by group among costs (--cost)")
		}
		if m.by == nil {
			m.by = p
			return nil
		}
		return m.by.Merge(p)
	case *costs:
		if m.by != nil {
			return errors.New("costs (--cost) among counts by group")
		}
		if m.costs == nil {
			m.costs = p
			return nil
		}
		return m.costs.merge(p)
	}
	return fmt.Errorf("a partial count of %T", p)
}
