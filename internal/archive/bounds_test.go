package archive

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestFTSQueryBounds: a word said twice in a query of words alone counts
// once (the query means the same), not where OR or NOT make the order
// count; a query of more than MaxTerms words and phrases is a bad query,
// however many times its words are repeated.
func TestFTSQueryBounds(t *testing.T) {
	words := func(n int, word func(i int) string) string {
		var w []string
		for i := range n {
			w = append(w, word(i))
		}
		return strings.Join(w, " ")
	}
	distinct := func(i int) string { return "w" + strings.Repeat("x", i) }
	cases := []struct{ in, want string }{
		{"the error the error the", `"the" "error"`},
		{`"a b" a "a b"`, `"a b" "a"`},
		{"a OR b a", `"a" OR "b" "a"`},
		{words(5000, func(int) string { return "the" }), `"the"`},
		{words(MaxTerms, distinct), words(MaxTerms, func(i int) string { return `"` + distinct(i) + `"` })},
		{words(MaxTerms+1, distinct), ""},
		{words(5000, distinct), ""},
	}
	for _, c := range cases {
		got, err := FTSQuery(c.in)
		name := c.in[:min(len(c.in), 40)]
		if c.want == "" {
			if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), "more than the 64 a query holds") {
				t.Errorf("FTSQuery(%q…) = %.40q…, %v; want a bad query of too many words", name, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("FTSQuery(%q…) = %.60q, %v; want %.60q", name, got, err, c.want)
		}
	}
}

// TestFindStopped: a query whose context is done, by its deadline or by a
// cancel, stops with that as its error, not SQLite's "interrupted".
func TestFindStopped(t *testing.T) {
	a := open(t)
	store(t, a, transcripttest.Load(t, filepath.Join(testutil.Root(t), "examples", "session.jsonl")))
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{expired, context.DeadlineExceeded}, {canceled, context.Canceled}} {
		for _, q := range []Query{{Text: "store"}, {Tool: "Read"}} {
			if _, err := a.FindContext(c.ctx, q); !errors.Is(err, c.want) {
				t.Errorf("FindContext(%+v) with a context done: %v, want %v", q, err, c.want)
			}
		}
		if _, err := a.GetContext(c.ctx, "toolu_01", ""); !errors.Is(err, c.want) {
			t.Errorf("GetContext with a context done: %v, want %v", err, c.want)
		}
	}
}
