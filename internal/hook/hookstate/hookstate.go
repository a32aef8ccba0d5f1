// Package hookstate keeps what a hook learned of a session between its
// calls, in a small file per session and hook under the user's cache
// directory.
//
// A hook runs on every tool call, and a session's transcript grows to tens
// of megabytes: parsing it all each time would cost more than the call. A
// hook keeps, per transcript, what it needs of the calls read so far and
// where it stopped, and reads only what was appended since.
package hookstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/userdir"
)

// ErrNotRegular is Read's error for a transcript path that is not a
// regular file: a FIFO, which an open would wait on for as long as nothing
// writes to it (every tool call then waiting for the agent's hook
// timeout), a device, a directory.
var ErrNotRegular = errors.New("not a regular file: not read")

// stateVersion changes when the state file's meaning does; a state of
// another version is read as none.
const stateVersion = 2

// sessionState is what a hook keeps of one transcript between calls: Data,
// its own summary of the calls read so far.
type sessionState[T any] struct {
	Version int               `json:"version"`
	Path    string            `json:"path"`
	Format  transcript.Format `json:"format"`
	// Offset is how many bytes of the transcript Data covers: up to the line
	// of the first call still waiting for its result, which is read again
	// next time with its result.
	Offset int64 `json:"offset"`
	// Head fingerprints the transcript's first bytes (up to headLen, and not
	// past Offset), and Tail holds the last bytes before Offset: a
	// transcript whose bytes there changed, or that got shorter than
	// Offset, was rewritten rather than appended to, and is read again whole.
	Head string `json:"head"`
	Tail string `json:"tail"`
	Data T      `json:"data"`
}

const (
	headLen = 4096
	tailLen = 64
)

// abandoned is how many calls with results after a call without one make
// that call abandoned (interrupted, never answered) rather than pending.
const abandoned = 16

// Dir is where hooks keep their state: $CTX_STATE_DIR, else ctxkit/hooks
// under the user's cache directory.
func Dir() (string, error) { return userdir.CacheDir("CTX_STATE_DIR", "hooks") }

// stateFile is where the hook name keeps its state for the transcript at
// the absolute path abs; "" when there is no place for it.
func stateFile(name, abs string) string {
	dir, err := Dir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:8])+".json")
}

// Update changes the data that the hook name keeps for the transcript
// at path, without reading the transcript: for what a hook learns from its
// payload.
func Update[T any](name, path string, format transcript.Format, change func(T) T) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	statePath := stateFile(name, abs)
	if statePath == "" {
		return nil
	}
	s := readState[T](statePath)
	if s.Version != stateVersion || s.Path != abs || s.Format != format {
		s = sessionState[T]{Version: stateVersion, Path: abs, Format: format}
	}
	s.Data = change(s.Data)
	writeState(statePath, s)
	return nil
}

// Peek returns the data that the hook name keeps for the transcript at
// path, without reading the transcript.
func Peek[T any](name, path string, format transcript.Format) T {
	abs, err := filepath.Abs(path)
	if err != nil {
		var zero T
		return zero
	}
	s := readState[T](stateFile(name, abs))
	if s.Version != stateVersion || s.Path != abs || s.Format != format {
		var zero T
		return zero
	}
	return s.Data
}

// Read brings a hook's summary of the transcript at path up to date:
// add is given the calls the transcript gained since the last call (each
// with its result, in order; none and a nil transcript when it gained
// none) and returns the new summary, which is saved for the next call
// under the hook's name. A line still being written is left for the next
// call. A path that is not a regular file is ErrNotRegular, before it is
// opened.
func Read[T any](name, path string, format transcript.Format, table *tools.Table,
	add func(data T, t *transcript.Transcript, calls []*transcript.Call) T) (T, error) {
	var zero T
	abs, err := filepath.Abs(path)
	if err != nil {
		return zero, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return zero, err
	}
	if !info.Mode().IsRegular() {
		return zero, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := os.Open(abs)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return zero, err
	}
	statePath := stateFile(name, abs)
	fresh := sessionState[T]{Version: stateVersion, Path: abs, Format: format}
	s := readState[T](statePath)
	if s.Version != stateVersion || s.Path != abs || s.Format != format || s.Offset > st.Size() || !appended(f, s.Offset, s.Head, s.Tail) {
		s = fresh
	}
	t, data, err := parseFrom(f, st.Size(), s.Offset, format, table)
	if err != nil && s.Offset > 0 {
		// Read it all again: the error then names the line in the file.
		s = fresh
		t, data, err = parseFrom(f, st.Size(), 0, format, table)
	}
	if err != nil {
		return zero, fmt.Errorf("%s:%v", path, err)
	}
	if t != nil {
		calls, read := completeCalls(t, data)
		s.Data = add(s.Data, t, calls)
		s.Offset += int64(read)
		s.Tail = string(data[max(0, read-tailLen):read])
		s.Head = headPrint(f, s.Offset)
	} else {
		s.Data = add(s.Data, nil, nil) // nothing new; a hook may still forget
	}
	if statePath != "" {
		writeState(statePath, s)
	}
	return s.Data, nil
}

// parseFrom parses the complete lines of the file from offset on. A last
// line that does not parse is taken to be still being written: it is left
// for the next call. A nil transcript means nothing new.
func parseFrom(f *os.File, size, offset int64, format transcript.Format, table *tools.Table) (*transcript.Transcript, []byte, error) {
	data := make([]byte, size-offset)
	if _, err := f.ReadAt(data, offset); err != nil && err != io.EOF {
		return nil, nil, err
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	opts := transcript.Options{Format: format, Tools: table}
	t, err := transcript.Parse(data, opts)
	if err == nil {
		return t, data, nil
	}
	last := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	if last == 0 {
		return nil, nil, err
	}
	if t, err2 := transcript.Parse(data[:last], opts); err2 == nil {
		return t, data[:last], nil
	}
	return nil, nil, err
}

// completeCalls returns the calls of a chunk of JSONL that have their
// result, and how many of its bytes they cover: the chunk up to the line of
// the first call still waiting for its result, when one is.
func completeCalls(t *transcript.Transcript, data []byte) ([]*transcript.Call, int) {
	stopLine := 0 // the line of the first pending call; 0 for none
	for i, c := range t.Calls {
		if c.Result != nil {
			continue
		}
		answered := 0
		for _, later := range t.Calls[i+1:] {
			if later.Result != nil {
				answered++
			}
		}
		if answered < abandoned {
			stopLine = c.Message.Pos.Line
			break
		}
	}
	var calls []*transcript.Call
	for _, c := range t.Calls {
		if stopLine > 0 && c.Message.Pos.Line >= stopLine {
			break
		}
		if c.Result != nil {
			calls = append(calls, c)
		}
	}
	if stopLine == 0 {
		return calls, len(data)
	}
	return calls, lineOffset(data, stopLine)
}

// lineOffset is the byte offset where 1-based line n of data starts.
func lineOffset(data []byte, n int) int {
	off := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// appended reports whether the transcript still starts as it did when it
// was read up to offset: the same first bytes, the same bytes before offset.
func appended(f *os.File, offset int64, head, tail string) bool {
	if offset == 0 {
		return head == "" && tail == ""
	}
	buf := make([]byte, len(tail))
	if _, err := f.ReadAt(buf, offset-int64(len(tail))); err != nil || string(buf) != tail {
		return false
	}
	return headPrint(f, offset) == head
}

// headPrint fingerprints the transcript's first bytes, up to headLen and
// not past offset.
func headPrint(f *os.File, offset int64) string {
	buf := make([]byte, min(offset, headLen))
	if _, err := f.ReadAt(buf, 0); err != nil {
		return ""
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:12])
}

// readState reads a state file; a missing or unreadable one is no state.
func readState[T any](path string) sessionState[T] {
	var s sessionState[T]
	if path == "" {
		return s
	}
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &s) != nil {
		return sessionState[T]{}
	}
	return s
}

// writeState saves the state for the next call. A state that cannot be
// saved costs only time: the next call reads the transcript again.
func writeState[T any](path string, s sessionState[T]) {
	data, err := json.Marshal(s)
	if err != nil {
		return
	}
	_ = safefile.WritePrivate(path, bytes.NewReader(data)) // what the session did: the user's alone
}

// callsDir holds the payloads of calls whose command a PreToolUse hook
// rewrote, until the command's filter reads them (SaveCall, TakeCall).
const callsDir = "calls"

// SaveCall keeps the PreToolUse payload of the call id, whose command
// was rewritten to pipe its output into a filter that will need it
// (TakeCall). Payloads of calls that never ran (denied after the rewrite)
// are swept after a day.
func SaveCall(id string, payload []byte) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	dir = filepath.Join(dir, callsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	return safefile.Write(filepath.Join(dir, callFile(id)), bytes.NewReader(payload))
}

// TakeCall returns the payload SaveCall kept for the call id, and forgets
// it.
func TakeCall(id string) ([]byte, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, callsDir, callFile(id))
	data, err := os.ReadFile(path)
	if err == nil {
		_ = os.Remove(path)
	}
	return data, err
}

// callFile names a call's file by a hash of its id: an id is the agent's,
// and never a path.
func callFile(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:12]) + ".json"
}
