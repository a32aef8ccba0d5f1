package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

func TestUnfinished(t *testing.T) {
	const a, b = `{"role":"user","content":"a"}`, `{"role":"assistant","content":"b"}`
	for _, tc := range []struct {
		name, in string
		want     int // the offset of the unfinished line, -1 for none
	}{
		{"whole", a + "\n" + b + "\n", -1},
		{"a whole last line without its newline", a + "\n" + b, -1},
		{"cut in a string", a + "\n" + `{"role":"assistant","cont`, len(a) + 1},
		{"cut after a comma", a + "\n" + `{"role":"assistant",`, len(a) + 1},
		{"cut with a carriage return", a + "\r\n" + `{"role":`, len(a) + 2},
		{"blank lines before", "\n\n" + a + "\n" + `{"ro`, len(a) + 3},
		{"a byte order mark", "\ufeff" + a + "\n" + `{"ro`, len(a) + 4},
		{"white space after the cut", a + "\n" + `{"ro  `, len(a) + 1},
		{"blank after the last newline", a + "\n   ", -1},
		// The bad line has its newline: written whole, and wrong.
		{"a bad last line with its newline", a + "\n" + `{"ro` + "\n", -1},
		// Nothing complete before it.
		{"one line, cut", `{"role":"us`, -1},
		{"blank lines, then one cut", "\n \n" + `{"role":"us`, -1},
		// A document is written whole: cut short, it is bad input.
		{"an array cut short", "[\n" + a + ",\n" + `{"ro`, -1},
		{"an object over several lines", "{\n" + `"messages": [` + "\n" + `{"ro`, -1},
		{"a first line that is not an object", `[1]` + "\n" + `{"ro`, -1},
		{"a first line that does not parse", `{"a":` + "\n" + `{"ro`, -1},
		{"empty", "", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unfinished([]byte(tc.in)); got != tc.want {
				t.Errorf("Unfinished = %d, want %d", got, tc.want)
			}
		})
	}
}

// FuzzUnfinished checks what the commands rely on: an input that parses
// has no unfinished line; one that has one does not parse whole, and its
// complete lines end with a newline, and fail, if they do, on a line of
// their own.
func FuzzUnfinished(f *testing.F) {
	for _, name := range []string{"claude-code.jsonl", "codex.jsonl", "openai.jsonl", "anthropic.jsonl", "openai-array.json"} {
		data, err := os.ReadFile(filepath.Join(testutil.Root(f), "testdata", "formats", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)-len(data)/7])
	}
	f.Add([]byte("{\"a\":1}\n{\"b\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		at := Unfinished(data)
		_, err := Parse(data, Options{})
		if at < 0 {
			return
		}
		if err == nil {
			t.Fatalf("an input that parses has an unfinished line at %d", at)
		}
		if data[at-1] != '\n' || bytes.IndexByte(data[at:], '\n') >= 0 || !StillWriting(data[at:]) {
			t.Fatalf("unfinished line at %d: %q is not one last line still being written", at, data[at:])
		}
		line := bytes.Count(data[:at], []byte("\n")) + 1
		if _, err := Parse(data[:at], Options{}); err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line >= line {
				t.Fatalf("the complete lines fail at or past the unfinished line %d: %v", line, err)
			}
		}
	})
}
