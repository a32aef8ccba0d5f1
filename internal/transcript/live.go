package transcript

import (
	"bytes"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
)

// An agent writes its session's JSONL while it runs, a line at a time, and
// a reader can come upon the last line half written: no newline after it
// yet, and not valid JSON. The file is then a session still being written,
// and its complete lines are the session so far. A bad line anywhere else,
// or a bad last line that has its newline, was written whole and wrong: bad
// input, as before.

// Unfinished is the offset where the last line of a JSONL input starts when
// an agent is still writing it (StillWriting), and -1 when it is not, or
// when data is not JSONL: its first line is not a whole JSON object, or is
// its last. A JSON document cut short (an array, a trajectory, an object
// over several lines) is written whole, not a line at a time: bad input.
func Unfinished(data []byte) int {
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 || !StillWriting(data[last+1:]) {
		return -1
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n\ufeff"))
	if start > last {
		return -1 // the unfinished line is the first
	}
	first := bytes.TrimRight(data[start:start+bytes.IndexByte(data[start:], '\n')], " \t\r")
	if len(first) == 0 || first[0] != '{' || !jsonscan.Valid(string(first)) {
		return -1
	}
	return last + 1
}

// StillWriting reports whether line, the last of a JSONL input, with no
// newline after it, is a line an agent is still writing: something, not
// valid JSON. A whole value without its newline is a whole line.
func StillWriting(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && !jsonscan.Valid(string(line))
}
