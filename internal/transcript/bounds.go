package transcript

import (
	"bytes"
	"fmt"
)

// MaxLine is the longest line of a transcript that ctxkit reads, 256 MiB:
// a JSONL line, or a JSON document written on one line. Real lines are
// megabytes (a tool output, an image in base64) and a request body is at
// most 32 MB at the APIs; no line of a session comes near it. A longer
// one, and an input that never ends a line (a device, a stream of one
// byte), is bad input, found while it is read, in memory that stops at it.
const MaxLine = 256 << 20

// A Stream checks a transcript's bytes as they are read, so that an input
// that cannot be one fails as soon as that shows, not when it has filled
// the memory: at its first byte past white space and a byte order mark
// when that cannot open JSON (a NUL, as /dev/zero gives), and when a line
// grows past the longest one allowed. Parse checks everything else once
// the input is whole.
type Stream struct {
	maxLine int64
	read    [][]byte // what was checked, kept to say which line was too long
	n       int64    // bytes checked
	line    int64    // bytes of the line being read (before the first JSON, all of them)
	opened  bool     // a byte that opens JSON was seen
	// Before it: bytes of white space, lines passed, the column in the
	// line in characters (as lineCol counts them), bytes of a byte order
	// mark begun.
	pre        int64
	lines, col int
	bom        int
}

// NewStream returns a Stream for an input whose lines are at most maxLine
// bytes (0: MaxLine).
func NewStream(maxLine int) *Stream {
	if maxLine <= 0 {
		maxLine = MaxLine
	}
	return &Stream{maxLine: int64(maxLine)}
}

// window is the most Check looks at in one step: far less than a line may
// be, so that a line longer than allowed spans windows of its own, which
// Check sees whole.
const window = 16 << 20

// Check checks the next bytes of the input. The Stream keeps p (to name
// the line of an error), which must not change afterwards. The error is a
// *SyntaxError.
func (s *Stream) Check(p []byte) error {
	s.read = append(s.read, p)
	if !s.opened {
		i, err := s.open(p)
		if err != nil {
			return err
		}
		s.n += int64(i)
		p = p[i:]
	}
	for len(p) > 0 {
		w := p[:min(len(p), window, int(s.maxLine))]
		p = p[len(w):]
		first := bytes.IndexByte(w, '\n')
		if first < 0 {
			first = len(w)
		}
		if s.line+int64(first) > s.maxLine {
			return s.tooLong()
		}
		if first < len(w) {
			s.line = int64(len(w) - bytes.LastIndexByte(w, '\n') - 1)
		} else {
			s.line += int64(len(w))
		}
		s.n += int64(len(w))
	}
	return nil
}

// bomBytes is a byte order mark, which may come before the JSON.
var bomBytes = []byte("\ufeff")

// open reads the white space (and byte order marks) before the first
// byte of JSON, up to that byte: it returns how many bytes of p come
// before it, all of them when it is not there yet.
func (s *Stream) open(p []byte) (int, error) {
	for i, c := range p {
		switch {
		case s.bom > 0 || c == bomBytes[0]:
			if c != bomBytes[s.bom] {
				return 0, s.notJSON(p[i-min(i, s.bom):])
			}
			if s.bom++; s.bom == len(bomBytes) {
				s.bom = 0
				s.col++
			}
		case c == '[' || c == '{':
			s.opened = true
			return i, nil
		case c == '\n':
			s.lines++
			s.col = 0
			s.line = -1 // a new line, counted from the next byte
		case c == ' ' || c == '\t' || c == '\r':
			s.col++
		default:
			return 0, s.notJSON(p[i:])
		}
		s.line++
		// White space alone, line after line, is not a line too long
		// but holds as much memory.
		if s.pre++; s.pre > s.maxLine {
			return 0, &SyntaxError{Line: s.lines + 1, Column: 0, Element: -1,
				Msg: fmt.Sprintf("no JSON in the first %s, only white space: not a transcript", size(s.maxLine))}
		}
	}
	return len(p), nil
}

// notJSON is the error of an input whose first byte past white space,
// found at the start of rest, cannot open JSON: Parse's.
func (s *Stream) notJSON(rest []byte) error {
	return &SyntaxError{Line: s.lines + 1, Column: s.col + 1, Element: -1, Msg: notJSONMsg(string(rest[:min(len(rest), 80)]))}
}

// tooLong is the error of a line longer than allowed: the line it starts.
func (s *Stream) tooLong() error {
	start := s.n - s.line // where the line starts
	nl := 0
	for _, b := range s.read {
		if int64(len(b)) >= start {
			nl += bytes.Count(b[:start], []byte{'\n'})
			break
		}
		nl += bytes.Count(b, []byte{'\n'})
		start -= int64(len(b))
	}
	return &SyntaxError{Line: nl + 1, Column: 0, Element: -1, Msg: LongLine(int(s.maxLine))}
}

// LongLine says that a line is longer than max bytes, the most read.
func LongLine(max int) string {
	return fmt.Sprintf("a line longer than %s, the most ctxkit reads: not a transcript's line", size(int64(max)))
}

// size is a size in bytes as messages give it: 256 MiB, or 1,000 bytes.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
