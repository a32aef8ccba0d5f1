package shellwrap

import (
	"strings"
	"testing"
)

// FuzzWrap: whatever the command line, Wrap leaves it alone or makes a
// line that reads back as the original (trimmed), parses, and is not
// rewritten again.
func FuzzWrap(f *testing.F) {
	for _, l := range wrapped {
		f.Add(l)
	}
	for l := range grouped {
		f.Add(l)
	}
	for l := range unwrapped {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, why := Wrap(line, filter, true)
		if why != "" {
			if got != "" {
				t.Fatalf("Wrap(%q) = %q with a reason %q", line, got, why)
			}
			return
		}
		if back, ok := Unwrap(got); !ok || back != strings.TrimSpace(line) {
			t.Fatalf("Unwrap(Wrap(%q)) = %q, %v", line, back, ok)
		}
		if _, err := parse(got); err != nil {
			t.Fatalf("Wrap(%q) = %q, which does not parse: %v", line, got, err)
		}
		if again, _ := Wrap(got, filter, true); again != "" {
			t.Fatalf("Wrap rewrote its own line %q", got)
		}
	})
}
