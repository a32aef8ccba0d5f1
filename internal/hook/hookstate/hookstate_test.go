package hookstate

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestReadRefusesOtherFiles: a transcript_path that is not a regular file
// (a FIFO, which an open would wait on for ever; a device; a directory) is
// refused before it is opened.
func TestReadRefusesOtherFiles(t *testing.T) {
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	paths := []string{t.TempDir()}
	if _, err := os.Stat(os.DevNull); err == nil && runtime.GOOS != "windows" {
		paths = append(paths, os.DevNull)
	}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(t.TempDir(), "session.jsonl")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, fifo)
	}
	for _, path := range paths {
		_, err := Read("test", path, transcript.ClaudeCode, tools.NewTable(nil),
			func(n int, _ *transcript.Transcript, calls []*transcript.Call) int { return n + len(calls) })
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want ErrNotRegular", path, err)
		}
	}
}
