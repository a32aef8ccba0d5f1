package transcript

import (
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Reads says, call by call (by Call.Index), which file a read read: a
// command of kind read that ended ok and names its file, its output in
// its results and its polls'; "" for any other call, and for a poll (its
// read is its command's). again says whether an earlier read of the file
// read all of its lines: a range that holds the read's. Every report
// counts the reads of a file from here.
func (t *Transcript) Reads() (paths []string, again []bool) {
	paths, again = make([]string, len(t.Calls)), make([]bool, len(t.Calls))
	seen := map[string][]tools.Range{} // the ranges read of each file
	for c := range t.Commands() {
		if c.Kind != tools.Read || c.End() != outcome.OK {
			continue
		}
		p := c.Args.File(t.Cwd)
		if p == "" {
			continue
		}
		paths[c.Index] = p
		for _, rng := range seen[p] {
			if rng.Contains(c.Args.Range) {
				again[c.Index] = true
				break
			}
		}
		if !again[c.Index] {
			seen[p] = append(seen[p], c.Args.Range)
		}
	}
	return paths, again
}

// LatestReads marks, result by result, the latest read of every file: the
// last read of it that did not fail, whatever its range, the file's most
// recent state in the transcript. A continuation is part of the read it
// continues, not a read.
func (t *Transcript) LatestReads() []bool {
	last := map[string]int{}
	for i, r := range t.Results {
		if c := r.Call; c != nil && c.Kind == tools.Read && c.Continues == nil && r.OK() {
			if file := c.Args.File(t.Cwd); file != "" {
				last[file] = i
			}
		}
	}
	latest := make([]bool, len(t.Results))
	for _, i := range last {
		latest[i] = true
	}
	return latest
}
