package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxkit/ctxkit/internal/loops"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// A hook runs on every tool call, and a session's transcript grows to tens
// of megabytes: parsing it all each time would cost more than the call.
// ctx-loops --hook keeps, per transcript, the steps it has read and where it
// stopped, and reads only what was appended since.

// stateVersion changes when the state file's meaning does; a state of
// another version is read as none.
const stateVersion = 1

// loopState is what the hook keeps of one transcript between calls.
type loopState struct {
	Version int               `json:"version"`
	Path    string            `json:"path"`
	Format  transcript.Format `json:"format"`
	// Offset is how many bytes of the transcript the steps cover: up to the
	// line of the first call still waiting for its result, which is read
	// again next time with its result.
	Offset int64 `json:"offset"`
	// Tail is the last bytes before Offset: a transcript whose bytes there
	// changed was rewritten, not appended to, and is read again whole.
	Tail  string       `json:"tail"`
	Steps []loops.Step `json:"steps"`
}

const tailLen = 64

// abandoned is how many calls with results after a call without one make
// that call abandoned (interrupted, never answered) rather than pending.
const abandoned = 16

// StateDir is where hooks keep their state: $CTX_STATE_DIR, else
// ctxkit/hooks under the user's cache directory.
func StateDir() (string, error) {
	if dir := os.Getenv("CTX_STATE_DIR"); dir != "" {
		return dir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "ctxkit", "hooks"), nil
}

// sessionSteps returns what the detector needs of the transcript at path,
// reading only what was appended since the last call. A line still being
// written (no newline yet) is left for the next call.
func sessionSteps(path string, format transcript.Format, table *tools.Table, d *loops.Detector) ([]loops.Step, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	statePath := ""
	if dir, err := StateDir(); err == nil {
		sum := sha256.Sum256([]byte(abs))
		statePath = filepath.Join(dir, "loops-"+hex.EncodeToString(sum[:8])+".json")
	}
	s := readState(statePath)
	if s.Version != stateVersion || s.Path != abs || s.Format != format || s.Offset > st.Size() || !tailMatches(f, s) {
		s = loopState{Version: stateVersion, Path: abs, Format: format}
	}
	t, data, err := parseFrom(f, st.Size(), s.Offset, format, table)
	if err != nil && s.Offset > 0 {
		// Read it all again: the error then names the line in the file.
		s = loopState{Version: stateVersion, Path: abs, Format: format}
		t, data, err = parseFrom(f, st.Size(), 0, format, table)
	}
	if err != nil {
		return nil, fmt.Errorf("%s:%v", path, err)
	}
	if t == nil {
		return s.Steps, nil
	}
	steps, read := newSteps(t, data)
	s.Steps = d.Recent(append(s.Steps, steps...))
	s.Offset += int64(read)
	s.Tail = string(data[max(0, read-tailLen):read])
	if statePath != "" {
		writeState(statePath, s)
	}
	return s.Steps, nil
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

// newSteps returns the steps of a chunk of JSONL and how many of its bytes
// they cover: the chunk up to the line of the first call still waiting for
// its result, when one is.
func newSteps(t *transcript.Transcript, data []byte) ([]loops.Step, int) {
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
	var steps []loops.Step
	for _, c := range t.Calls {
		if stopLine > 0 && c.Message.Pos.Line >= stopLine {
			break
		}
		if c.Result != nil {
			steps = append(steps, loops.NewStep(c, t.Cwd))
		}
	}
	if stopLine == 0 {
		return steps, len(data)
	}
	return steps, lineOffset(data, stopLine)
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

func tailMatches(f *os.File, s loopState) bool {
	if s.Offset == 0 {
		return s.Tail == ""
	}
	n := int64(len(s.Tail))
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, s.Offset-n); err != nil {
		return false
	}
	return string(buf) == s.Tail
}

// readState reads a state file; a missing or unreadable one is no state.
func readState(path string) loopState {
	var s loopState
	if path == "" {
		return s
	}
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &s) != nil {
		return loopState{}
	}
	return s
}

// writeState saves the state for the next call. A state that cannot be
// saved costs only time: the next call reads the transcript again.
func writeState(path string, s loopState) {
	data, err := json.Marshal(s)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		_ = WriteFile(path, data)
	}
}
