package summarize

import (
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
)

// TestCitesHandle: with an archive, every summary cites the handle of the
// output it replaced at the end of its facts, whoever wrote it (the rules,
// clear mode, a model), also when a target that reads as a pointer moves
// the facts to the second line; a second run changes nothing.
func TestCitesHandle(t *testing.T) {
	opts := modelOpts()
	opts.Handle = invariant.Handles
	const cite = "; full output: ctx-recall ctx_test%d (or memory_query id=ctx_test%d)."
	session := func() *chat {
		return modelSession().call("c7", "bash", `{"command":"./notify --call toolu_01 && echo call toolu_01 done"}`, lines("log", 40)).
			user("last turn")
	}
	for _, c := range []struct {
		name    string
		opts    func(*Options)
		answers bool
	}{
		{"rules", nil, false},
		{"clear", func(o *Options) { o.Mode = ModeClear }, false},
		{"model", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := opts
			if c.opts != nil {
				c.opts(&o)
			}
			f := newFilter(t, o)
			tr := session().parse(t)
			if c.answers {
				f = f.WithAnswers(answer(tr, f, "Ran the store's tests: TestExpire fails at store_test.go:88.", nil))
			}
			rep := f.Apply(tr)
			if rep.Summarized < 4 {
				t.Fatalf("%d summarized; the test needs more", rep.Summarized)
			}
			models := 0
			summarized := map[string]Entry{}
			for _, e := range rep.Changes {
				summarized[e.CallID] = e
			}
			for _, r := range tr.Results {
				e, ok := summarized[r.CallID]
				if !ok {
					continue
				}
				got := r.Text()
				if h := marker.CitedIn(got); h != invariant.Handles(tr, r) {
					t.Errorf("%s cites %q, want %q:\n%s", e.CallID, h, invariant.Handles(tr, r), got)
				}
				if len(marker.Refs(got)) > 0 {
					t.Errorf("%s: the marker line reads as a pointer: %q", e.CallID, got)
				}
				if e.Model != "" {
					models++
				}
			}
			if c.answers && models == 0 {
				t.Error("no summary by the model: the test needs one")
			}
			split := text(tr, "c7")
			if first, second, _ := strings.Cut(split, "\n"); first != "[ctx-summarize] bash:" || !strings.HasSuffix(strings.SplitN(second, "\n", 2)[0], strings.ReplaceAll(cite, "%d", "6")) {
				t.Errorf("the moved target's summary: %q", split)
			}
			if again := transcriptOf(t, tr); f.Apply(again).Summarized != 0 || again.Changed() {
				t.Error("a second run changed the output")
			}
		})
	}
}
