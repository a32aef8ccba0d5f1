package transcript

import "github.com/ctxkit/ctxkit/internal/tools"

// LatestReads marks, result by result, the latest read of every file: the
// last read of it that did not fail, whatever its range, the file's most
// recent state in the transcript. A continuation is part of the read it
// continues, not a read.
func (t *Transcript) LatestReads() []bool {
	last := map[string]int{}
	for i, r := range t.Results {
		if c := r.Call; c != nil && c.Kind == tools.Read && c.Continues == nil && !r.Failed() {
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
