package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// pipe gives its data in reads of at most 64 KiB, as a pipe does.
type pipe struct{ r *bytes.Reader }

func (p pipe) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), 64<<10)]) }

// TestReadAll: stdin is read whole, whatever it is: a pipe of any size,
// empty, a regular file, a file read from the middle, a file that grows
// after it was measured.
func TestReadAll(t *testing.T) {
	for _, n := range []int{0, 1, chunkMin - 1, chunkMin, chunkMin + 1, 5*chunkMin + 17, collectAbove + 3} {
		data := bytes.Repeat([]byte("[0123456789abcd]\n"), n/17+1)[:n]
		got, err := readAll(pipe{bytes.NewReader(data)}, transcript.NewStream(0))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("a pipe of %d bytes: %d bytes back, %v", n, len(got), err)
		}
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	data := bytes.Repeat([]byte(`{"role":"user","content":"hi"}`+"\n"), 1000)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := readAll(f, transcript.NewStream(0)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("a file: %d bytes back, %v", len(got), err)
	}
	if _, err := f.Seek(93, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(f, transcript.NewStream(0)); err != nil || !bytes.Equal(got, data[93:]) {
		t.Errorf("a file from byte 93, a line's start: %d bytes back, %v", len(got), err)
	}
	more := append([]byte{}, data...)
	if got, err := readSized(bytes.NewReader(append(more, "grown"...)), int64(len(data)), transcript.NewStream(0)); err != nil || string(got) != string(data)+"grown" {
		t.Errorf("a file that grew: %d bytes back, %v", len(got), err)
	}
}

// BenchmarkReadAll reads 64 MiB from a pipe with readAll and, for
// comparison, with io.ReadAll.
func BenchmarkReadAll(b *testing.B) {
	data := bytes.Repeat([]byte(`{"type":"user","message":{"role":"user","content":"some text"}}`+"\n"), 64<<20/66)
	for _, c := range []struct {
		name string
		read func(io.Reader) ([]byte, error)
	}{{"readAll", func(r io.Reader) ([]byte, error) { return readAll(r, transcript.NewStream(0)) }}, {"io.ReadAll", io.ReadAll}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := c.read(pipe{bytes.NewReader(data)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
