package outcome

import (
	"strings"
	"testing"
)

func TestPaths(t *testing.T) {
	cases := []struct{ in, want string }{
		{"src/app.go:12:3: undefined: x", "src/app.go"},
		{"go.mod\ngo.sum\nREADME.md\ncmd/\n", "go.mod go.sum README.md cmd/"},
		{`  File "/usr/lib/python3.11/x.py", line 3`, "/usr/lib/python3.11/x.py"},
		{"see https://example.com/a/b.html and ./docs/x.md", "./docs/x.md"},
		{"lib/a.ex lib/a.ex test/a_test.exs", "lib/a.ex test/a_test.exs"},
		{"3.14 and 1/2 cups", ""},
		{"CI/CD and install/uninstall/run; lib/app/ and /usr/bin/env", "lib/app/ /usr/bin/env"},
		{"no paths here, e.g. none", ""},
	}
	for _, c := range cases {
		if got := strings.Join(Paths(c.in), " "); got != c.want {
			t.Errorf("Paths(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
