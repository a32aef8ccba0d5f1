package tools

import "testing"

func TestNormPath(t *testing.T) {
	cases := []struct{ p, dir, cwd, want string }{
		{"", "", "/repo", ""},
		{"/repo/src/a.go", "", "/repo", "src/a.go"},
		{"src/a.go", "", "/repo", "src/a.go"},
		{"./src/../src/a.go", "", "/repo", "src/a.go"},
		{"a.go", "/repo/src", "/repo", "src/a.go"},
		{"a.go", "src", "/repo", "src/a.go"},
		{"/etc/hosts", "", "/repo", "/etc/hosts"},
		{"/repo2/a.go", "", "/repo", "/repo2/a.go"},
		{"a.go", "", "", "a.go"},
		{"astroid/x.py", "/testbed", "", "/testbed/astroid/x.py"},
		{"/testbed/astroid/x.py", "", "", "/testbed/astroid/x.py"},
		{"file:///repo/a.go", "", "/repo", "a.go"},
	}
	for _, c := range cases {
		if got := NormPath(c.p, c.dir, c.cwd); got != c.want {
			t.Errorf("NormPath(%q, %q, %q) = %q, want %q", c.p, c.dir, c.cwd, got, c.want)
		}
	}
}
