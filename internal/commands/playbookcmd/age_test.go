package playbookcmd

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 0, false},
		{"90d", 90 * 24 * time.Hour, false},
		{"1d12h", 36 * time.Hour, false},
		{"2h30m", 150 * time.Minute, false},
		{"0d", 0, true},
		{"-1d", 0, true},
		{"soon", 0, true},
		{"d", 0, true},
		{"3dd", 0, true},
	}
	for _, c := range cases {
		got, err := parseAge(c.in)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("parseAge(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzParseAge: any --older-than is an age above 0, none, or an error.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"90d", "1d12h", "2h30m", "", "-5m", "99999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseAge(s)
		if err == nil && d < 0 {
			t.Fatalf("parseAge(%q) = %v", s, d)
		}
	})
}
