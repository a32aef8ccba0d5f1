package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// checkChunks feeds data to a Stream in chunks of n bytes, and returns
// its first error.
func checkChunks(s *Stream, data []byte, n int) error {
	for len(data) > 0 {
		c := data[:min(n, len(data))]
		data = data[len(c):]
		if err := s.Check(c); err != nil {
			return err
		}
	}
	return nil
}

// TestStream: an input whose first byte past white space cannot open JSON
// fails with Parse's error, wherever the chunks end; a line longer than
// allowed fails with its number; everything else passes, to be parsed.
func TestStream(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		name, in string
		want     string // the error, "" for none
	}{
		{"jsonl", `{"a":1}` + "\n" + `{"b":"` + long[:56] + `"}` + "\n", ""},
		{"array", "\ufeff \n\t[1,\n2]", ""},
		{"white space", " \n \r\n\t", ""},
		{"empty", "", ""},
		{"a NUL", "\x00\x00\x00", `1:1: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "\x00\x00\x00"`},
		{"a NUL after white space", "\n\n  \x00", `3:3: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "\x00"`},
		{"text", "hello\n", `1:1: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "hello"`},
		{"a mark begun", "\xef\xbb[]", "1:1: not a transcript: expected JSON (an array, an object with \"messages\", or JSONL), found \"\ufffd\ufffd[]\""},
		{"a mark, then text", "\ufeffx", `1:2: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "x"`},
		{"a line of 64", `{"a":"` + long[:56] + `"}`, ""},
		{"a line of 65", `{"a":"` + long[:57] + `"}`, "1: a line longer than 64 bytes, the most ctxkit reads: not a transcript's line"},
		{"the third line", "{}\n  {}\n" + `{"a":"` + long + "\n{}\n", "3: a line longer than 64 bytes, the most ctxkit reads: not a transcript's line"},
		{"white space alone", strings.Repeat(" \n", 40), "33: no JSON in the first 64 bytes, only white space: not a transcript"},
	} {
		for _, n := range []int{1, 2, 3, 7, 64, 1 << 20} {
			err := checkChunks(NewStream(64), []byte(c.in), n)
			// What follows a byte that cannot open JSON is quoted as far
			// as the read that holds it goes: reads are 64 KiB and more.
			want, got := c.want, fmt.Sprint(err)
			if n < len(c.in) {
				want, _, _ = strings.Cut(want, ", found")
				got, _, _ = strings.Cut(got, ", found")
			}
			var se *SyntaxError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s in chunks of %d: %v", c.name, n, err)
			case c.want != "" && (!errors.As(err, &se) || got != want):
				t.Errorf("%s in chunks of %d: %v, want %s", c.name, n, err, c.want)
			}
		}
		// What the stream refuses at its start, Parse refuses alike.
		if strings.Contains(c.want, "not a transcript: expected JSON") {
			if _, err := Parse([]byte(c.in), Options{}); err == nil || err.Error() != c.want {
				t.Errorf("%s: Parse says %v, the stream %s", c.name, err, c.want)
			}
		}
	}
}

// TestStreamLongLine: a line over the limit is found however it lies over
// the reads and the stream's windows, and a line at the limit passes.
func TestStreamLongLine(t *testing.T) {
	const max = 1000
	for _, lead := range []int{0, 1, 999, 1000} {
		for _, n := range []int{max, max + 1} {
			in := append(bytes.Repeat([]byte("{}\n"), lead), '"')
			in = append(in, bytes.Repeat([]byte("x"), n-2)...)
			in = append(in, "\"\n{}\n"...)
			if lead == 0 {
				in[0] = '['
			}
			for _, chunk := range []int{1, 100, 999, 1001, 4096, len(in)} {
				err := checkChunks(NewStream(max), in, chunk)
				if (err != nil) != (n > max) {
					t.Errorf("a line of %d after %d lines, in chunks of %d: %v", n, lead, chunk, err)
				}
				if err != nil && !strings.HasPrefix(err.Error(), strconv.Itoa(lead+1)+": a line longer than 1000 bytes") {
					t.Errorf("a line of %d after %d lines: %v, want line %d", n, lead, err, lead+1)
				}
			}
		}
	}
}

// FuzzStream: a Stream's verdict on an input does not depend on how the
// reads cut it; what it refuses at the start, Parse refuses; what it
// passes has no line longer than allowed.
func FuzzStream(f *testing.F) {
	f.Add([]byte("\ufeff\n [1]"), uint8(1))
	f.Add([]byte("\x00{}"), uint8(2))
	f.Add([]byte("{}\n"+strings.Repeat("y", 70)+"\n"), uint8(7))
	f.Add([]byte("\xef\xbb\xbf\xef\xbb{}"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		const max = 64
		whole := checkChunks(NewStream(max), data, len(data)+1)
		pieces := checkChunks(NewStream(max), data, int(cut)+1)
		at := func(err error) string { s, _, _ := strings.Cut(fmt.Sprint(err), ": "); return s }
		if (whole == nil) != (pieces == nil) || at(whole) != at(pieces) {
			t.Fatalf("whole: %v; in reads of %d: %v", whole, int(cut)+1, pieces)
		}
		if whole != nil && strings.Contains(whole.Error(), "expected JSON") {
			if _, err := Parse(data, Options{}); err == nil || err.Error() != whole.Error() {
				t.Fatalf("the stream: %v; Parse: %v", whole, err)
			}
		}
		if whole == nil {
			for i, l := range bytes.Split(data, []byte("\n")) {
				if len(l) > max {
					t.Fatalf("line %d of %d bytes passed", i+1, len(l))
				}
			}
		}
	})
}
