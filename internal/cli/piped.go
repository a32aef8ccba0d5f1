package cli

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Sure says how many bytes at the start of what a command printed so far
// every answer of a Piped filter starts with, and whether more output can
// add to them (truncate.Rules.Sure).
type Sure func(prefix string) (n int, final bool)

// Piped runs a command as the filter of a command line its hook rewrote
// (hook/shellwrap): the line's output arrives on stdin, and what filter
// returns is what the agent reads. The bytes that sure says every answer
// starts with go on as they arrive, so that the agent's view of a command
// still running (Claude Code's live view, the file of a command it moved
// to the background) shows its first lines; the rest waits for the end.
//
// It never breaks the line: the whole output is read (the command never
// meets a closed pipe), whatever goes wrong lets the rest go on as it
// came, and the status is 0 (pipefail gives the line the command's own).
// A signal that stops the line (SIGTERM, SIGINT, SIGHUP: the agent
// stopping a command) ends the reading, and what came is filtered and
// written. Nothing is said on stderr, which the agent reads as part of
// the output. Like a hook, it keeps what it replaces in the default
// archive unless told otherwise.
func (e *Env) Piped(filter func(output string) (string, error), sure Sure) error {
	stopped := make(chan os.Signal, 1)
	signal.Notify(stopped, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(stopped)
	w := &pipedWriter{w: e.Stdout}
	data, ok := e.readPiped(w, sure, stopped)
	out := data
	defer func() {
		_ = recover()
		if bytes.HasPrefix(out, data[:w.sent]) {
			w.write(out[w.sent:])
		} else {
			w.write(data[w.sent:]) // never: an answer that takes back what was sent
		}
	}()
	if !ok {
		return nil
	}
	e.archiveByDefault()
	if cut, err := filter(string(data)); err == nil {
		out = []byte(cut)
	}
	return nil
}

// readPiped reads stdin to its end, or until a signal stops the line,
// passing on what sure allows as it comes. ok is false when stdin failed:
// what came goes on as it is.
func (e *Env) readPiped(w *pipedWriter, sure Sure, stopped <-chan os.Signal) (data []byte, ok bool) {
	r := &pipedReader{w: w, sure: sure, final: sure == nil, b: make([]byte, 0, 512), next: 256}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.read(e.Stdin)
	}()
	select {
	case <-done:
		return r.all(), r.err == nil
	case <-stopped:
		r.mu.Lock()
		defer r.mu.Unlock()
		r.stopped = true // the reader leaves the chunks from here on
		return r.all(), true
	}
}

// pipedReader reads a command's output as io.ReadAll does, into chunks of
// growing size joined once at the end (a slice grown by append copies the
// output over and over, and held a seventh more memory on 96 MB), passing
// on the head as it grows. A signal may take what came at any read's end.
type pipedReader struct {
	mu      sync.Mutex // guards the chunks' lengths, stopped, and the writes
	chunks  [][]byte   // full
	b       []byte     // being filled: a read fills its spare room, which no one else reads
	next    int        // the size of the chunk after b
	stopped bool
	err     error // set once read ends
	w       *pipedWriter
	sure    Sure
	final   bool
}

func (r *pipedReader) read(in io.Reader) {
	for {
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			return
		}
		if cap(r.b)-len(r.b) < cap(r.b)/16 {
			r.chunks = append(r.chunks, r.b)
			r.b = make([]byte, 0, r.next)
			r.next += r.next / 2
		}
		room := r.b[len(r.b):cap(r.b)]
		r.mu.Unlock()
		n, err := in.Read(room)
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			return
		}
		r.b = r.b[:len(r.b)+n]
		// The head grows by whole lines: a read without a line's end adds
		// none. Until it is final, what came is a head and a line.
		if !r.final && bytes.IndexByte(room[:n], '\n') >= 0 {
			data := r.all()
			var sure int
			sure, r.final = r.passable(data)
			if sure > r.w.sent {
				r.w.write(data[r.w.sent:sure])
			}
		}
		r.mu.Unlock()
		if err != nil {
			if err != io.EOF {
				r.err = err
			}
			return
		}
	}
}

// passable is what sure says of data; a panic in it passes on no more
// and reading goes on, for the line must not break (Piped recovers on its
// own goroutine only).
func (r *pipedReader) passable(data []byte) (n int, final bool) {
	defer func() {
		if recover() != nil {
			n, final = 0, true
		}
	}()
	return r.sure(string(data))
}

// all is what came, in one slice.
func (r *pipedReader) all() []byte {
	if len(r.chunks) == 0 {
		return r.b
	}
	n := len(r.b)
	for _, c := range r.chunks {
		n += len(c)
	}
	data := make([]byte, 0, n)
	for _, c := range r.chunks {
		data = append(data, c...)
	}
	return append(data, r.b...)
}

// pipedWriter writes the agent's output, and stops at its first error:
// the agent went away, and there is no one to tell.
type pipedWriter struct {
	w    io.Writer
	sent int
	err  error
}

func (p *pipedWriter) write(b []byte) {
	if p.err == nil && len(b) > 0 {
		var n int
		n, p.err = p.w.Write(b)
		p.sent += n
	}
}
