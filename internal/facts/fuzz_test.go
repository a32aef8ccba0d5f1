package facts

import (
	"strings"
	"testing"
)

// FuzzEach: any text, and any call's arguments, scan without a panic;
// each fact Each finds is in the text (but the paths of a list grouped by
// directory), and each form of a fact is a fact.
func FuzzEach(f *testing.F) {
	for _, s := range []string{"internal/x.go:42:7 parseConfig", `{"a_b": "c_d\\n/e/f.go", "n": 1234}`, "./..", ".x", "a.:1", "::1", "~/a/b", "f().Name"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		forms := func(fact string) {
			Forms(fact, func(p string) {
				if strings.IndexByte(fact, ':') < 0 && !isFact(p) {
					t.Errorf("%q: form %q of %q is no fact", text, p, fact)
				}
			})
		}
		Each(text, func(fact string) {
			if !strings.Contains(text, fact) && !strings.Contains(text, "/{") && !strings.Contains(text, "/ (") {
				t.Errorf("%q: fact %q is not in the text", text, fact)
			}
			forms(fact)
		})
		eachJSONValue(text, forms)
	})
}
