package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// eachLineHelp is what --help says about --each-line.
const eachLineHelp = `

EACH LINE:
   --each-line reads JSONL in which each line is a whole transcript (a request body or a
   trajectory: an object with "messages", a SWE-agent .traj object, an array of messages) and
   writes one line for each input line, in the same order: GNU parallel --pipe, Hadoop
   Streaming and Spark's RDD.pipe run it over a corpus on many machines. A blank line gives a
   blank line. A bad line gives, in its place, the record
   {"error":"FILE:LINE:COLUMN: what is wrong","file":"FILE","line":LINE}, its one-line error on
   stderr, and the run goes on; the exit status is then 1. Lines are worked on --jobs at a
   time; each output line is written whole, as soon as the lines before it are.`

// eachLineHelpOf is what --help says about --each-line, for a command that
// has it.
func eachLineHelpOf(flags []ucli.Flag) string {
	if slices.Contains(flags, ucli.Flag(EachLineFlag)) {
		return eachLineHelp
	}
	return ""
}

// lineError is the record that stands for a bad line in --each-line output.
type lineError struct {
	Error string `json:"error"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

// isLineError reports whether a line is the error record of a bad line
// (lineError), which a tool later in the pipe passes on as it is.
func isLineError(data []byte) bool {
	if !bytes.HasPrefix(data, []byte(`{"error":"`)) || !jsonscan.Valid(string(data)) {
		return false
	}
	f := jsonscan.Value{Raw: string(data)}.Fields("line", "messages")
	return f[0].IsNumber() && !f[1].Exists()
}

// MarshalLine is v as one line of JSON (without the newline), for
// --each-line output: HTML characters as they are ("<stdin>", not
// "\u003cstdin\u003e").
func MarshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// line is one line of --each-line input.
type line struct {
	src  Source
	num  int    // 1-based
	seq  int    // 0-based, among the lines of every input
	data []byte // without its newline
	err  error  // the input could not be read here
	// unterminated says the line is its input's last and has no newline:
	// after a line before it, one an agent may still be writing.
	unterminated bool
}

// EachLine runs do over every line of the inputs (stdin, FILEs, the
// transcripts found in directories), each line a whole transcript, on
// --jobs goroutines, and writes the output do returns for each as one line
// of stdout, and the notes it returns (a line each: a --stats line; "" for none) to
// stderr, in the order of the lines. do must be safe for concurrent use. A
// line that does not parse, or that do fails on, gets an error record in
// its place and its error on stderr, and the run goes on (exit status 1).
func (e *Env) EachLine(do func(t *transcript.Transcript, in LineInput) (out []byte, note string, err error)) error {
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	if e.Bool(InPlaceFlag.Name) || e.outDir() != "" {
		return Usagef("--each-line writes every result to stdout, one line each: -i and -o do not go with it")
	}
	jobs, err := e.jobs()
	if err != nil {
		return err
	}
	opts, err := e.parseOptions()
	if err != nil {
		return err
	}
	var total int64
	for _, s := range srcs {
		total += s.size
	}
	bar := e.startProgress(-1, total, "lines")
	defer bar.stop()
	out := bufio.NewWriterSize(e.Stdout, 1<<20)
	type result struct {
		size int64
		out  []byte
		note string
		err  error
		rec  *lineError
		// unfinished is the warning on a last line still being written,
		// which gives no line.
		unfinished string

		where string // the line, for its note
	}
	lines := newLineReader(e, srcs)
	defer lines.close()
	work := func(l line) result {
		r := result{size: int64(len(l.data)) + 1, err: l.err}
		if r.err != nil || len(trimSpace(l.data)) == 0 || isLineError(l.data) {
			r.out = l.data // a blank line, or the error record of a tool before in the pipe
			return r
		}
		in := LineInput{Src: l.src, Name: l.src.Display(), Line: l.num, Seq: l.seq, Data: l.data}
		r.where = in.Where()
		t, err := parse(l.data, opts, in.Name, l.num)
		if err != nil && l.unterminated && l.num > 1 && transcript.StillWriting(l.data) {
			r.unfinished = in.Where() + ": the last line is unfinished (no newline, not JSON): the input is still being written; read the lines before it"
			return r
		}
		if err == nil {
			r.out, r.note, err = do(t, in)
		}
		if err != nil {
			r.err = err
			r.rec = &lineError{Error: err.Error(), File: in.Name, Line: l.num}
		}
		return r
	}
	done := func(r result) error {
		defer bar.add(r.size) // after its lines on stderr: above the bar, not after it is gone
		if r.unfinished != "" {
			e.Warn("%s", r.unfinished)
			return nil
		}
		if r.rec != nil {
			rec, err := MarshalLine(r.rec)
			if err != nil {
				return err
			}
			r.out = rec
		}
		if r.rec != nil || r.err == nil {
			out.Write(r.out)
			if err := out.WriteByte('\n'); err != nil {
				return err // a write error sticks: the last says it
			}
		}
		if r.note != "" {
			for _, line := range strings.Split(r.note, "\n") {
				e.Note(r.where + ": " + line)
			}
		}
		if r.err != nil && r.rec == nil {
			// The input itself failed: nothing of it is written, and the
			// error goes above the lines still to come.
			if err := out.Flush(); err != nil {
				return err
			}
		}
		return e.survive(r.err)
	}
	err = parallel.Ordered(jobs, 2*jobs, lines.next, work, done)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Where names the line as messages name it: FILE:N.
func (in LineInput) Where() string { return in.Name + ":" + strconv.Itoa(in.Line) }

// LineInput is a line of --each-line input.
type LineInput struct {
	Src  Source // the input the line is in
	Name string // the input, as messages name it
	Line int    // 1-based
	Seq  int    // the line's place among the lines of every input, from 0 (do runs out of order)
	Data []byte // the line, without its newline
}

// lineReader gives the lines of the sources one after the other.
type lineReader struct {
	e    *Env
	srcs []Source
	cur  io.ReadCloser
	r    *bufio.Reader
	num  int
	seq  int
}

func newLineReader(e *Env, srcs []Source) *lineReader { return &lineReader{e: e, srcs: srcs} }

// next gives the next line: a line of the current source, or, when a
// source cannot be opened or read, a line carrying the error.
func (lr *lineReader) next() (line, bool) {
	for {
		if lr.r == nil {
			if len(lr.srcs) == 0 {
				return line{}, false
			}
			s := lr.srcs[0]
			if err := lr.open(s); err != nil {
				lr.srcs = lr.srcs[1:]
				return line{src: s, err: err}, true
			}
		}
		s := lr.srcs[0]
		data, err := readLine(lr.r, maxLine)
		if len(data) > 0 && data[len(data)-1] == '\n' {
			data = data[:len(data)-1]
		}
		if err != nil {
			lr.close()
			lr.srcs = lr.srcs[1:]
			if !errors.Is(err, io.EOF) {
				return line{src: s, num: lr.num + 1, err: Failf("%s:%d: %v", s.Display(), lr.num+1, err)}, true
			}
			if len(data) == 0 {
				continue // the end, after a last newline
			}
		}
		lr.num++
		lr.seq++
		return line{src: s, num: lr.num, seq: lr.seq - 1, data: data, unterminated: err != nil}, true
	}
}

// readLine reads a line and its newline, as ReadBytes does, up to max
// bytes before the newline: a longer line is an error, and the source is
// read no further (it may never end a line).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 || len(line)+len(chunk) == max+1 && chunk[len(chunk)-1] != '\n' {
			return nil, errors.New(transcript.LongLine(max))
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// open starts reading a source.
func (lr *lineReader) open(s Source) error {
	if s.err != nil {
		return s.err
	}
	lr.num = 0
	if s.Name == "-" {
		lr.cur = io.NopCloser(lr.e.Stdin)
	} else {
		f, err := os.Open(s.Name)
		if err != nil {
			return safefile.PathError(s.Name, err)
		}
		lr.cur = f
	}
	lr.r = bufio.NewReaderSize(lr.cur, 1<<20)
	return nil
}

func (lr *lineReader) close() {
	if lr.cur != nil {
		lr.cur.Close()
	}
	lr.cur, lr.r = nil, nil
}

// trimSpace is data without the white space JSON allows around a value.
func trimSpace(data []byte) []byte {
	start, end := 0, len(data)
	for start < end && isSpace(data[start]) {
		start++
	}
	for end > start && isSpace(data[end-1]) {
		end--
	}
	return data[start:end]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
