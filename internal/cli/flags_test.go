package cli

import (
	"strings"
	"testing"
)

func TestTokenAmount(t *testing.T) {
	cases := []struct {
		in     string
		window int
		want   int
		err    string
	}{
		{"30000", 0, 30000, ""},
		{"30,000", 0, 30000, ""},
		{" 140k ", 0, 140000, ""},
		{"1.5M", 0, 1500000, ""},
		{"70%", 200000, 140000, ""},
		{"12.5%", 200000, 25000, ""},
		{"0", 0, 0, ""},
		{"", 200000, 0, ""},
		{"70%", 0, 0, "a share needs a --window"},
		{"-1", 0, 0, "want a number of tokens"},
		{"lots", 0, 0, "want a number of tokens"},
		{"1e12", 0, 0, "want a number of tokens"},
		{"NaN", 0, 0, "want a number of tokens"},
		{"k", 0, 0, "want a number of tokens"},
	}
	for _, c := range cases {
		got, err := TokenAmount("budget", c.in, c.window)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("TokenAmount(%q, %d) = %d, %v; want %d, %q", c.in, c.window, got, err, c.want, c.err)
		}
	}
}

// FuzzTokenAmount: any value is a number of tokens from 0 up, or a usage
// error; never a panic.
func FuzzTokenAmount(f *testing.F) {
	for _, s := range []string{"30000", "140k", "70%", "1.5m", "-3", "1e400", "%", ",,"} {
		f.Add(s, 200000)
	}
	f.Fuzz(func(t *testing.T, s string, window int) {
		n, err := TokenAmount("budget", s, window)
		if err == nil && n < 0 {
			t.Errorf("TokenAmount(%q, %d) = %d", s, window, n)
		}
	})
}
