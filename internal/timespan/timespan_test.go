package timespan

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	loc := time.FixedZone("X", 2*3600)
	for _, c := range []struct {
		in   string
		end  bool
		want string // RFC 3339, "" for an error
	}{
		{"2026-01-31", false, "2026-01-31T00:00:00+02:00"},
		{" 2026-01-31 ", false, "2026-01-31T00:00:00+02:00"},
		{"2026-01-31", true, "2026-02-01T00:00:00+02:00"}, // all of the day
		{"2026-12-31", true, "2027-01-01T00:00:00+02:00"},
		{"9999-12-31", true, "9999-12-31T23:59:59.999999999+02:00"},
		{"2026-01-31T14:05", true, "2026-01-31T14:05:00+02:00"},
		{"2026-01-31T14:05:09", false, "2026-01-31T14:05:09+02:00"},
		{"2026-01-31T14:05:09Z", false, "2026-01-31T14:05:09Z"},
		{"2026-01-31T14:05:09Z", true, "2026-01-31T14:05:09Z"},
		{"2026-01-31T14:05:09.5-05:00", false, "2026-01-31T14:05:09.5-05:00"},
		{"yesterday", false, ""},
		{"2026-13-01", false, ""},
		{"2026-01-31 14:05", false, ""},
		{"", false, ""},
	} {
		read := Since
		if c.end {
			read = Until
		}
		got, err := read(c.in, loc)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%q (end %v) = %v, want an error", c.in, c.end, got)
		case c.want != "" && err != nil:
			t.Errorf("%q (end %v): %v", c.in, c.end, err)
		case c.want != "" && got.Format(time.RFC3339Nano) != c.want:
			t.Errorf("%q (end %v) = %s, want %s", c.in, c.end, got.Format(time.RFC3339Nano), c.want)
		}
	}
}

// FuzzParse: any value is read or refused without a panic, and a time read
// back from its RFC 3339 form is the same time.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2026-01-31", "2026-01-31T14:05", "2026-01-31T14:05:09Z", "2026-01-31T14:05:09.5-05:00", "", "x", "9999-12-31"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, end bool) {
		read := Since
		if end {
			read = Until
		}
		got, err := read(s, time.UTC)
		if err != nil {
			return
		}
		again, err := Since(got.Format(time.RFC3339Nano), time.UTC)
		if err != nil || !again.Equal(got) {
			t.Fatalf("%q = %v, and its RFC 3339 form reads as %v, %v", s, got, again, err)
		}
	})
}

func TestSpan(t *testing.T) {
	cases := []struct {
		since, until, err string
	}{
		{"", "", ""},
		{"2026-01-31", "", ""},
		{"", "2026-01-31", ""},
		{"2026-01-31", "2026-01-31", ""}, // a date as until takes all of that day
		{"2026-01-31T14:00", "2026-01-31T14:00", "since (2026-01-31T14:00) is not before until (2026-01-31T14:00): nothing is in between"},
		{"2026-02-01", "2026-01-31", "is not before until"},
		{"soon", "", "since: "},
		{"", "later", "until: "},
	}
	for _, c := range cases {
		_, _, err := Span(c.since, c.until, time.UTC)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Span(%q, %q): %v, want %q", c.since, c.until, err, c.err)
		}
	}
}
