//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// endlessFIFO is a FIFO that gives zeros, as /dev/zero does, to the first
// that opens it for reading, until limit bytes are written: then it ends,
// and the test fails if the reader took them all.
func endlessFIFO(t *testing.T, limit int) string {
	path := filepath.Join(t.TempDir(), "zero.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		zeros := make([]byte, 4096)
		for written := 0; written < limit; written += len(zeros) {
			if _, err := f.Write(zeros); err != nil {
				return // the reader stopped, as it should
			}
		}
		t.Errorf("the FIFO's reader took %d bytes and read on", limit)
	}()
	return path
}
