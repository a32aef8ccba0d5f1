package dedupe

import (
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Arrivals decides, one result at a time in the order they arrive, what
// each read becomes by the first-read rule (KeepFirst): what a live loop
// does to a re-read when it arrives. Its decisions are those of Plan with
// KeepFirst, but for the reads that the loop has replaced since (a summary
// is no base): whole says which results above still are.
type Arrivals struct {
	a     *apply
	walks map[string]*walk
}

// Arrivals begins the decisions for t's results. The filter's Keep,
// KeepRecent and AllTools play no part: the rule is KeepFirst's, for reads.
func (f *Filter) Arrivals(t *transcript.Transcript) *Arrivals {
	a := &apply{Filter: f, t: t, keep: marker.Referenced(t), recent: len(t.Results), ids: map[string]int{}, counts: map[string]int{}}
	return &Arrivals{a: a, walks: map[string]*walk{}}
}

// Next decides r, the result after those given before, which the loop
// has not replaced: the change that replaces it, or false when it stays
// whole (and may be pointed at later). whole reports whether a result
// given before is still whole in the loop.
func (ar *Arrivals) Next(r *transcript.Result, whole func(*transcript.Result) bool) (Change, bool) {
	a := ar.a
	c := r.Call
	if c != nil {
		a.ids[c.ID]++ // the calls seen so far: a result whose id repeats one above is no base
	}
	if c == nil || c.Kind != tools.Read || c.Continues != nil || !r.OK() {
		return Change{}, false
	}
	file := c.Args.File(a.t.Cwd)
	if file == "" {
		return Change{}, false
	}
	w := ar.walks[file]
	if w == nil {
		w = newWalk(file)
		ar.walks[file] = w
	}
	n := len(a.plan.Changes)
	if !a.visit(w, &fileRead{r: r, rng: c.Args.Range}, false, func(b *fileRead) bool { return whole(b.r) }) {
		return Change{}, false
	}
	return a.plan.Changes[n], true
}

// Replaced takes r, a read that arrives already replaced by the loop (its
// own summary, in a history it compacted before) where Next once kept it
// whole: it is no base, but the nearest read of its range, as it was
// then, so that the reads after it are decided as they were.
func (ar *Arrivals) Replaced(r *transcript.Result) {
	c := r.Call
	if c != nil {
		ar.a.ids[c.ID]++
	}
	if c == nil || c.Kind != tools.Read || c.Continues != nil {
		return
	}
	file := c.Args.File(ar.a.t.Cwd)
	if file == "" {
		return
	}
	w := ar.walks[file]
	if w == nil {
		w = newWalk(file)
		ar.walks[file] = w
	}
	x := &fileRead{r: r, rng: c.Args.Range}
	w.kept = append(w.kept, x)
	w.nearest[x.rng] = x
}
