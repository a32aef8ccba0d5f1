package outcome

import "testing"

func TestSaysMissing(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"cat: missing.txt: No such file or directory", true},
		{"Exit code 2\nls: cannot access 'src/x': No such file or directory", true},
		{"<tool_use_error>File does not exist.</tool_use_error>", true},
		{"Traceback (most recent call last):\nFileNotFoundError: [Errno 2] No such file or directory: 'a.txt'", true},
		{"Error: ENOENT: no such file or directory, open 'x.json'", true},
		{"python3: can't open file '/testbed/repro.py': [Errno 2]", true},
		{"The system cannot find the path specified.", true},
		{"bash: line 1: pytest: command not found", false},
		{"<tool_use_error>String to replace not found in file.</tool_use_error>", false},
		{"FAIL: TestX (0.00s)", false},
		{"", false},
	}
	for _, c := range cases {
		if got := SaysMissing(c.text); got != c.want {
			t.Errorf("SaysMissing(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
