package summarize

import (
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Loop is the edit loop an agent is still in, which a budget never touches
// (odincode's rule): the file of the transcript's last edit, from its latest
// read before that edit, and every file edited since; for each of those
// files its latest read, its edits since then, and the result that checked
// each edit (the first result after it of a call that neither reads nor
// edits: a test run, a build).
type Loop struct {
	Files   []string                    // the files still being worked on, in the order of their first edit in the loop
	Results map[*transcript.Result]bool // the latest reads and the checks
	Edits   map[*transcript.Call]bool   // the edits and writes in the loop
}

// ActiveLoop finds the edit loop of t; an empty Loop when t has no edit.
func ActiveLoop(t *transcript.Transcript) Loop {
	loop := Loop{Results: map[*transcript.Result]bool{}, Edits: map[*transcript.Call]bool{}}
	file := func(r *transcript.Result) string {
		if c := r.Call; c != nil && c.Continues == nil && r.OK() {
			return c.Args.File(t.Cwd)
		}
		return ""
	}
	isEdit := func(r *transcript.Result) bool {
		return r.Call != nil && (r.Call.Kind == tools.Edit || r.Call.Kind == tools.Write) && file(r) != ""
	}
	last := -1
	for i := len(t.Results) - 1; i >= 0 && last < 0; i-- {
		if isEdit(t.Results[i]) {
			last = i
		}
	}
	if last < 0 {
		return loop
	}
	f := file(t.Results[last])
	start := -1
	for i := last - 1; i >= 0 && start < 0; i-- {
		if r := t.Results[i]; r.Call != nil && r.Call.Kind == tools.Read && file(r) == f {
			start = i
		}
	}
	if start < 0 { // never read before: from its first edit
		for i := 0; i <= last && start < 0; i++ {
			if r := t.Results[i]; isEdit(r) && file(r) == f {
				start = i
			}
		}
	}
	files := map[string]bool{}
	for i := start; i < len(t.Results); i++ {
		r := t.Results[i]
		if !isEdit(r) {
			continue
		}
		if g := file(r); !files[g] {
			files[g] = true
			loop.Files = append(loop.Files, g)
		}
		loop.Edits[r.Call] = true
		for _, next := range t.Results[i+1:] {
			if c := next.Call; c != nil && c.Kind != tools.Read && c.Kind != tools.Edit && c.Kind != tools.Write {
				loop.Results[next] = true // the run that checked the edit
				break
			}
		}
	}
	for i, latest := range t.LatestReads() {
		if r := t.Results[i]; latest && files[file(r)] {
			loop.Results[r] = true
		}
	}
	return loop
}
