package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// endless is an input that never ends: head, then pattern over and over.
// A Read past limit bytes fails the test: a reader that must give up
// early, and holds every byte it read, keeps its memory small only if it
// does.
type endless struct {
	t             testing.TB
	head, pattern []byte
	read, limit   int
}

func newEndless(t testing.TB, head, pattern string, limit int) *endless {
	p := bytes.Repeat([]byte(pattern), max(1, 64<<10/len(pattern))) // copied in large pieces
	return &endless{t: t, head: []byte(head), pattern: p, limit: limit}
}

func (r *endless) Read(p []byte) (int, error) {
	if r.read >= r.limit {
		r.t.Errorf("read on past %d bytes of an endless input", r.limit)
		return 0, errors.New("read too far")
	}
	p = p[:min(len(p), r.limit-r.read)]
	n := 0
	for n < len(p) {
		src := r.head[min(r.read, len(r.head)):]
		if len(src) == 0 {
			src = r.pattern[(r.read-len(r.head))%len(r.pattern):]
		}
		c := copy(p[n:], src)
		n += c
		r.read += c
	}
	return n, nil
}

// smallLines sets the longest line read to n bytes until the test ends.
func smallLines(t *testing.T, n int) {
	old := maxLine
	maxLine = n
	t.Cleanup(func() { maxLine = old })
}

// TestEndlessInput: an input that never ends (a device, a stream that
// never ends a line) fails as soon as it cannot be a transcript, having
// read little: at its first byte when that cannot open JSON (a NUL), after
// the longest line allowed and one read more when it never ends a line.
func TestEndlessInput(t *testing.T) {
	smallLines(t, 1<<20)
	bound := 2*maxLine + chunkMin // the line, and the read that passed it
	for _, c := range []struct {
		name          string
		head, pattern string
		limit         int
		want          string
	}{
		{"zeros", "", "\x00", chunkMin, `<stdin>:1:1: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "\x00\x00\x00`},
		{"text", "", "y\n", chunkMin, `<stdin>:1:1: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "y"`},
		{"a line without end", `{"a":"`, "x", bound, "<stdin>:1: a line longer than 1 MiB, the most ctxkit reads: not a transcript's line"},
		{"zeros after a line", "{}\n[1]\n", "\x00", bound, "<stdin>:3: a line longer than 1 MiB, the most ctxkit reads: not a transcript's line"},
		{"white space", "", " \n", bound, "<stdin>:524289: no JSON in the first 1 MiB, only white space: not a transcript"},
	} {
		in := newEndless(t, c.head, c.pattern, c.limit)
		e := &Env{Stdin: in}
		_, err := e.read(Source{Name: "-"})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// TestEndlessCommand: a command given an endless stdin, or a FILE that
// never ends (a FIFO, as /dev/zero), ends at once with one line on stderr
// and exit status 1; a hook with one goes on (status 0), and an
// --each-line run says which line was too long.
func TestEndlessCommand(t *testing.T) {
	smallLines(t, 1<<20)
	args := [][]string{{"ctx-test"}, {"ctx-test", "-"}}
	if fifo := endlessFIFO(t, chunkMin+2<<20); fifo != "" { // a read, and the pipe's buffer (widened to 1 MiB)
		args = append(args, []string{"ctx-test", fifo})
	}
	read := func(e *Env) error {
		srcs, err := e.Sources()
		if err != nil {
			return err
		}
		return e.Each(srcs, func(Input) error { return nil })
	}
	cmd := Command{Name: "ctx-test", Run: read}
	for _, a := range args {
		in := newEndless(t, "", "\x00", chunkMin)
		var stdout, stderr bytes.Buffer
		code := Run(cmd, a, in, &stdout, &stderr)
		if code != ExitFailure || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
			!strings.Contains(stderr.String(), ":1:1: not a transcript: expected JSON") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", a, code, stdout.String(), stderr.String())
		}
	}

	h := Command{Name: "ctx-test", Flags: []ucli.Flag{HookFlag}, Run: func(e *Env) error {
		return e.Hook(func(hook.Agent, hook.Payload) (hook.Answer, error) { return nil, nil })
	}}
	in := newEndless(t, `{"tool_response":"`, "x", maxLine+1)
	var stdout, stderr bytes.Buffer
	code := Run(h, []string{"ctx-test", "--hook", "claude-code"}, in, &stdout, &stderr)
	if code != ExitOK || stdout.Len() != 0 || !strings.Contains(stderr.String(), "a payload of more than 1,048,576 bytes, the most read") {
		t.Errorf("a hook: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}

	lines := Command{Name: "ctx-test", Flags: []ucli.Flag{EachLineFlag, JobsFlag}, Run: func(e *Env) error {
		return e.EachLine(func(*transcript.Transcript, LineInput) ([]byte, string, error) { return []byte("{}"), "", nil })
	}}
	path := filepath.Join(t.TempDir(), "lines.jsonl")
	good := `{"messages":[{"role":"user","content":"hi"}]}` + "\n"
	if err := os.WriteFile(path, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	in = newEndless(t, good+`{"messages":["`, "x", 2*maxLine+1<<20) // the line, and the reader's buffer
	stdout.Reset()
	stderr.Reset()
	code = Run(lines, []string{"ctx-test", "--each-line", "-", path}, in, &stdout, &stderr)
	if code != ExitFailure || stdout.String() != "{}\n{}\n" || !strings.Contains(stderr.String(), "<stdin>:2: a line longer than 1 MiB") {
		t.Errorf("--each-line: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
