package cli

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

// TestPipedNeverBreaks: whatever sure or the filter does (a panic, an
// error), Piped reads the whole output, exits 0 and writes an answer that
// starts with what it passed on: the filter's, or the output as it came.
func TestPipedNeverBreaks(t *testing.T) {
	output := strings.Repeat("a line of the command's output\n", 2000)
	upper := func(s string) (string, error) { return strings.ToUpper(s), nil }
	firstLine := func(p string) (int, bool) {
		i := strings.IndexByte(p, '\n')
		return i + 1, i >= 0
	}
	for name, c := range map[string]struct {
		filter func(string) (string, error)
		sure   Sure
		want   string
	}{
		"no sure":       {upper, nil, strings.ToUpper(output)},
		"sure panics":   {upper, func(string) (int, bool) { panic("sure") }, strings.ToUpper(output)},
		"filter panics": {func(string) (string, error) { panic("filter") }, firstLine, output},
		"filter fails":  {func(string) (string, error) { return "", bytes.ErrTooLarge }, firstLine, output},
		"takes back":    {upper, firstLine, output}, // the filter's answer does not start with the line sent
	} {
		var stdout, stderr bytes.Buffer
		cmd := Command{Name: "ctx-test", Run: func(e *Env) error { return e.Piped(c.filter, c.sure) }}
		// One byte a read: sure is asked at every line's end.
		code := Run(cmd, []string{"ctx-test"}, iotest.OneByteReader(strings.NewReader(output)), &stdout, &stderr)
		if code != ExitOK || stderr.Len() > 0 || stdout.String() != c.want {
			t.Errorf("%s: exit %d, stderr %q, %d bytes out (want %d): %.80q", name, code, stderr.String(), stdout.Len(), len(c.want), stdout.String())
		}
	}
}
