// Package invariant checks, for tests, the invariants every filter keeps
// (docs/model.md): the same format and layout out as in, byte for byte when
// nothing changed; no message dropped or reordered, every call with its
// result; idempotent and deterministic; never more tokens out than in; and
// every pointer pointing at a whole result that is still there, above it
// unless its marker says below.
package invariant

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Filter is a filter as the tests run it: input bytes to output bytes.
type Filter func(in []byte) ([]byte, error)

// Of is a filter's Apply as the checks run it: parse the input (its
// format detected), apply, write.
func Of(apply func(*transcript.Transcript)) Filter {
	return func(in []byte) ([]byte, error) {
		tr, err := transcript.Parse(in, transcript.Options{})
		if err != nil {
			return nil, err
		}
		apply(tr)
		return tr.Bytes(), nil
	}
}

// Check runs the filter on in and checks every invariant, returning the
// output. t is a *testing.T or *testing.B.
func Check(t interface {
	Helper()
	Fatalf(format string, args ...any)
}, in []byte, filter Filter) []byte {
	t.Helper()
	out, err := filter(in)
	if err != nil {
		t.Fatalf("filter: %v", err)
	}
	if err := Compare(in, out); err != nil {
		t.Fatalf("%v", err)
	}
	again, err := filter(out)
	if err != nil {
		t.Fatalf("filter on its own output: %v", err)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("not idempotent: a second run changed the output (%d bytes → %d)", len(out), len(again))
	}
	twice, err := filter(in)
	if err != nil || !bytes.Equal(twice, out) {
		t.Fatalf("not deterministic: the same input gave another output")
	}
	return out
}

// parseBoth parses an input and its output, the output in the input's
// format.
func parseBoth(in, out []byte) (before, after *transcript.Transcript, err error) {
	if before, err = transcript.Parse(in, transcript.Options{}); err != nil {
		return nil, nil, fmt.Errorf("input: %v", err)
	}
	if after, err = transcript.Parse(out, transcript.Options{Format: before.Format}); err != nil {
		return nil, nil, fmt.Errorf("output does not parse: %v", err)
	}
	return before, after, nil
}

// Compare checks the invariants that relate one output to its input.
func Compare(in, out []byte) error { return compare(in, out, true) }

// CompareGrowing is Compare for a filter that adds tokens on purpose
// (ctx-loops --banner puts a header above each failed result): every
// invariant but "never more tokens out than in".
func CompareGrowing(in, out []byte) error { return compare(in, out, false) }

func compare(in, out []byte, fewer bool) error {
	before, after, err := parseBoth(in, out)
	if err != nil {
		return err
	}
	if after.Layout != before.Layout {
		return fmt.Errorf("layout changed from %s to %s", before.Layout, after.Layout)
	}
	if len(after.Messages) != len(before.Messages) {
		return fmt.Errorf("%d messages out, %d in", len(after.Messages), len(before.Messages))
	}
	for i, m := range after.Messages {
		b := before.Messages[i]
		if m.Role != b.Role || m.Pos != b.Pos || len(m.Calls) != len(b.Calls) || len(m.Results) != len(b.Results) {
			return fmt.Errorf("message %d changed: %s at %s with %d calls and %d results, was %s at %s with %d and %d",
				i, m.Role, m.Pos, len(m.Calls), len(m.Results), b.Role, b.Pos, len(b.Calls), len(b.Results))
		}
	}
	stubs := 0 // calls whose arguments changed
	for i, c := range after.Calls {
		b := before.Calls[i]
		if c.ID != b.ID || c.Name != b.Name || (c.Result == nil) != (b.Result == nil) {
			return fmt.Errorf("call %d (%s) changed or lost its result", i, b.ID)
		}
		if c.Input != b.Input && !(tools.IsStub(c.Input) && c.Kind == b.Kind && c.Args.File(after.Cwd) == b.Args.File(before.Cwd)) {
			// A filter may leave out the text an edit changed, with a note
			// that says so (tools.Stub), never the file or the kind.
			return fmt.Errorf("call %d (%s) changed its arguments", i, b.ID)
		}
		if c.Input != b.Input {
			stubs++
		}
	}
	var was, now []string // the texts of the results that changed
	for i, r := range after.Results {
		b := before.Results[i]
		if r.CallID != b.CallID || (r.Call == nil) != (b.Call == nil) {
			return fmt.Errorf("result %d (%s) changed its call", i, b.CallID)
		}
		if r.Text() != b.Text() {
			was, now = append(was, b.Text()), append(now, r.Text())
		}
	}
	if len(was) == 0 && stubs == 0 && !bytes.Equal(in, out) {
		return fmt.Errorf("no result and no call's arguments changed, but the output differs from the input")
	}
	if err := pointers(after); err != nil {
		return err
	}
	// The results that did not change count the same on both sides.
	if !fewer {
		return nil
	}
	if n, m := sum(counter(), was), sum(counter(), now); m > n {
		return fmt.Errorf("more tokens out than in: the changed results have %d tokens, %d before", m, n)
	}
	return nil
}

// pointers checks that every call a marker points at is in the transcript
// with a result that is not itself a marker.
func pointers(t *transcript.Transcript) error {
	byID := map[string]*transcript.Call{}
	for _, c := range t.Calls {
		byID[c.ID] = c
	}
	for _, r := range t.Results {
		for _, id := range marker.Refs(r.Text()) {
			c := byID[id]
			switch {
			case c == nil:
				return fmt.Errorf("result of %s points at call %s, which is not in the transcript", r.CallID, id)
			case c.Result == nil:
				return fmt.Errorf("result of %s points at call %s, which has no result", r.CallID, id)
			case marker.Is(c.Result.Text(), ""):
				return fmt.Errorf("result of %s points at call %s, whose result is a marker too", r.CallID, id)
			case c.Result.Index == r.Index:
				return fmt.Errorf("result of %s points at itself", r.CallID)
			case (c.Result.Index > r.Index) != below(r.Text(), id):
				return fmt.Errorf("result of %s points at call %s, which is not where its marker says", r.CallID, id)
			}
		}
	}
	return nil
}

// below reports whether a marker says the call id it names is below it
// ("call ID below"); a pointer points up unless it says so.
func below(text, id string) bool {
	_, line, _ := marker.Parse(text)
	return strings.Contains(line, "call "+id+" below")
}

// counter is the one counter every check shares: loading an encoding's
// ranks takes about a second, too long to pay on every check.
var counter = sync.OnceValue(func() tokens.Counter {
	ctr, _ := tokens.New(tokens.Default)
	return ctr
})

// sum is the tokens of texts.
func sum(ctr tokens.Counter, texts []string) int {
	n := 0
	for _, c := range tokens.CountAll(ctr, texts) {
		n += c
	}
	return n
}

// Cites checks that every result whose text differs between in and out
// cites the handle that want gives for it in the input.
func Cites(in, out []byte, want marker.Handles) error {
	before, after, err := parseBoth(in, out)
	if err != nil {
		return err
	}
	for i, r := range after.Results {
		b := before.Results[i]
		if r.Text() == b.Text() {
			continue
		}
		if got, w := marker.CitedIn(r.Text()), want(before, b); got != w {
			return fmt.Errorf("result %d (call %s) was replaced and cites %q, want %q", i, r.CallID, got, w)
		}
	}
	return nil
}

// Handles is a marker.Handles for the filters' tests: every result's handle
// is ctx_test and its position, as if an archive kept it.
func Handles(_ *transcript.Transcript, r *transcript.Result) string {
	return "ctx_test" + strconv.Itoa(r.Index)
}
