package tools

import (
	"slices"
	"testing"
)

func TestRemoved(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string
	}{
		{"rm reproduce_bug.py", []string{"reproduce_bug.py"}},
		{"rm -f a.py b.py", []string{"a.py", "b.py"}},
		{"cd /repo && rm -rf build/ -- -odd", []string{"build/", "-odd"}},
		{"git rm -q old.go", []string{"old.go"}},
		{"bash -lc 'rm /tmp/x.txt'", []string{"/tmp/x.txt"}},
		{"rm *.pyc", nil},
		{"rm $TMPFILE", nil},
		{"rm a.py | tee log", nil},
		{"ls -la", nil},
		{"git status", nil},
		{"python rm.py", nil},
	}
	for _, c := range cases {
		if got := Removed(c.cmd); !slices.Equal(got, c.want) {
			t.Errorf("Removed(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}
