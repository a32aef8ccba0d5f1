package dedupe

import (
	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ctxkit/ctxkit/internal/outcome"
)

// unifiedDiff returns a unified diff that turns base into text, both labelled
// name. When both are numbered reads of the same lines (outcome.Numbered)
// the numbers are stripped first, and stripped reports it: an insertion then
// changes one line, not every line below it. The hunk headers of a stripped
// diff still count lines as the file does. It returns "" when base and text
// are equal.
func unifiedDiff(name, base, text string) (diff string, stripped bool) {
	offset := 0
	if b, ok := outcome.SplitNumbered(base); ok {
		if t, ok := outcome.SplitNumbered(text); ok && b.SameFrame(t) {
			base, text, offset, stripped = b.Body, t.Body, b.Start-1, true
		}
	}
	u, err := udiff.ToUnifiedDiff(name, name, base, udiff.Lines(base, text), udiff.DefaultContextLines)
	if err != nil {
		// Lines returns edits consistent with base: this cannot happen.
		panic("dedupe: " + err.Error())
	}
	for _, h := range u.Hunks {
		h.FromLine += offset
		h.ToLine += offset
	}
	return u.String(), stripped
}
