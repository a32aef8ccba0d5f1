// Package timespan reads the bounds of a span of time as every ctx tool
// takes them (ctx-count's and ctx-recall's --since and --until, the
// memory_query tool's since and until): one reading for all, so that the
// same words mean the same span to each.
//
// A bound is a date (2026-01-31), a date and time without a zone
// (2026-01-31T14:00, 2026-01-31T14:00:05), both in the given location (the
// user's local time), or an RFC 3339 time with its zone
// (2026-01-31T14:00:05Z, 2026-01-31T14:00:05+02:00). A span takes its
// start and leaves out its end; a date as the end (--until 2026-01-31) is
// the end of that day, so that the span takes all of it.
package timespan

import (
	"fmt"
	"strings"
	"time"
)

// Since reads the start of a span.
func Since(s string, loc *time.Location) (time.Time, error) { return parse(s, false, loc) }

// Until reads the end of a span, which the span leaves out: a date is the
// start of the next day.
func Until(s string, loc *time.Location) (time.Time, error) { return parse(s, true, loc) }

// Span reads both bounds of a span, either of which may be empty (that
// side is open). The error names the bound it is about (since, until); a
// start not before the end is an error too: the span holds nothing.
func Span(since, until string, loc *time.Location) (start, end time.Time, err error) {
	if since != "" {
		if start, err = Since(since, loc); err != nil {
			return start, end, fmt.Errorf("since: %w", err)
		}
	}
	if until != "" {
		if end, err = Until(until, loc); err != nil {
			return start, end, fmt.Errorf("until: %w", err)
		}
	}
	if since != "" && until != "" && !start.Before(end) {
		return start, end, fmt.Errorf("since (%s) is not before until (%s): nothing is in between", since, until)
	}
	return start, end, nil
}

// Forms says what a bound may be, for the tools' help and errors.
const Forms = "a date (2026-01-31, local), a local time (2026-01-31T14:00) or an RFC 3339 time (2026-01-31T14:00:00Z)"

func parse(s string, end bool, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		if end {
			t = t.AddDate(0, 0, 1)
			if t.Year() > 9999 {
				t = t.Add(-time.Nanosecond) // JSON and RFC 3339 stop at 9999
			}
		}
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-01-31) or a time (2026-01-31T14:00, 2026-01-31T14:00:00Z)", s)
}
