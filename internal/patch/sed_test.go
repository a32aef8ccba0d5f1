package patch

import (
	"reflect"
	"testing"
)

// The expected outputs are GNU sed 4's on the same input and arguments.
func TestSed(t *testing.T) {
	const in = "foo bar foo\n(x) a+b\nlast foo"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-i", "s/foo/baz/", "f"}, "baz bar foo\n(x) a+b\nlast baz"},
		{[]string{"-i", "s/foo/baz/g", "f"}, "baz bar baz\n(x) a+b\nlast baz"},
		{[]string{"-i", "s/foo/baz/2", "f"}, "foo bar baz\n(x) a+b\nlast foo"},
		{[]string{"-i", `s/(x) a+b/y/`, "f"}, "foo bar foo\ny\nlast foo"},
		{[]string{"-i", `s/\(fo*\) bar/[\1]/`, "f"}, "[foo] foo\n(x) a+b\nlast foo"},
		{[]string{"-E", "-i", `s/(fo+) (bar)/\2 \1/`, "f"}, "bar foo foo\n(x) a+b\nlast foo"},
		{[]string{"-i", "s|foo|&&|", "f"}, "foofoo bar foo\n(x) a+b\nlast foofoo"},
		{[]string{"-i", `s/foo/a\/b/`, "f"}, "a/b bar foo\n(x) a+b\nlast a/b"},
		{[]string{"-i", "2d", "f"}, "foo bar foo\nlast foo"},
		{[]string{"-i", "$d", "f"}, "foo bar foo\n(x) a+b\n"},
		{[]string{"-i", "/^(x)/d", "f"}, "foo bar foo\nlast foo"},
		{[]string{"-i", "1,2s/o/0/g", "f"}, "f00 bar f00\n(x) a+b\nlast foo"},
		{[]string{"-i", "/bar/,/a+b/s/^/> /", "f"}, "> foo bar foo\n> (x) a+b\nlast foo"},
		{[]string{"-i", "-e", "s/foo/1/", "-e", "s/last/2/", "f"}, "1 bar foo\n(x) a+b\n2 1"},
		{[]string{"-i", "s/foo/1/; s/bar/2/", "f"}, "1 2 foo\n(x) a+b\nlast 1"},
		{[]string{"-i", "s/FOO/x/I", "f"}, "x bar foo\n(x) a+b\nlast x"},
		{[]string{"-i.bak", "s/a+b/c/", "f"}, "foo bar foo\n(x) c\nlast foo"},
		{[]string{"-i", "", "s/last/first/", "f"}, "foo bar foo\n(x) a+b\nfirst foo"},
		{[]string{"-i", `s/foo/x\ny/`, "f"}, "x\ny bar foo\n(x) a+b\nlast x\ny"},
	}
	for _, c := range cases {
		s, err := ParseSed(c.args)
		if err != nil {
			t.Errorf("ParseSed(%q): %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(s.Files, []string{"f"}) {
			t.Errorf("ParseSed(%q): files %q, want [f]", c.args, s.Files)
		}
		got, err := s.Apply(in)
		if err != nil || got != c.want {
			t.Errorf("sed %q: got %q, %v; want %q", c.args, got, err, c.want)
		}
	}
}

func TestSedUnsupported(t *testing.T) {
	for _, args := range [][]string{
		{"s/a/b/", "f"},             // not in place
		{"-i", "y/ab/cd/", "f"},     // other commands
		{"-i", `s/\(a\)\1/b/`, "f"}, // back-references
		{"-i", "s/a/b/w out", "f"},  // w flag
		{"-i", "-f", "script", "f"}, // script file
		{"-i", "s/a/b", "f"},        // unterminated
		{"-i"},                      // no script
		{"-i", "1,s/a/b/", "f"},     // range without an end
		{"-i", "s/[a/b/", "f"},      // bad bracket
	} {
		if _, err := ParseSed(args); err == nil {
			t.Errorf("ParseSed(%q): no error", args)
		}
	}
}
