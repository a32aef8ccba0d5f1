package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Source is one transcript the arguments name, not read yet: a FILE, a
// transcript found in a directory, or stdin.
type Source struct {
	Name string // as named: an argument, a path found in a directory argument, or "-" for stdin
	out  string // where -o DIR puts its result, relative to DIR
	dir  bool   // found in a directory argument
	size int64  // bytes, as listed (0 for stdin), for the progress bar
	err  error  // why it cannot be read: a missing file, a directory that cannot be walked
}

// Out is where -o DIR puts the source's result, relative to DIR: a
// FILE's name, a file found in a directory its path under it, "stdin" for
// stdin.
func (s Source) Out() string { return s.out }

// Display is how messages name the source.
func (s Source) Display() string {
	if s.Name == "-" {
		return "<stdin>"
	}
	return s.Name
}

// Input is a source, read.
type Input struct {
	Source
	// Data is the transcript: the input's complete lines when its last
	// line is still being written (Unfinished).
	Data []byte
	// Unfinished is the line, 1-based, that an agent was still writing at
	// the end of the input, left out of Data (transcript.Unfinished); 0
	// for none.
	Unfinished int
}

// complete leaves out of an input the last line that an agent is still
// writing, if it has one: every command reads, and every filter writes,
// the session so far.
func complete(in Input) Input {
	at := transcript.Unfinished(in.Data)
	if at < 0 {
		return in
	}
	in.Unfinished = bytes.Count(in.Data[:at], []byte{'\n'}) + 1
	in.Data = in.Data[:at]
	return in
}

// unfinishedNote is the warning of an input whose last line was still
// being written.
func (in Input) unfinishedNote() string {
	return fmt.Sprintf("%s:%d: the last line is unfinished (no newline, not JSON): the session is still being written; read the %s before it",
		in.Display(), in.Unfinished, textfmt.Plural(in.Unfinished-1, "line", "lines"))
}

// transcriptExts are the names a directory walk takes: Claude Code and Codex
// sessions, messages and trajectories in JSON, SWE-agent trajectories.
var transcriptExts = []string{".jsonl", ".json", ".traj"}

// Sources resolves the arguments into the transcripts they name, in order:
// a FILE as it is, whatever its name; a directory walked (as gofmt does)
// for *.jsonl, *.json and *.traj files, in lexical order, leaving out the
// names that start with a dot and the -o directory; stdin when there is no
// argument, or for "-". An argument that cannot be read is a Source whose
// Each reports the error, so the others still go through.
func (e *Env) Sources() ([]Source, error) {
	args := e.Args().Slice()
	if len(args) == 0 {
		args = []string{"-"}
	}
	skip := ""
	if dir := e.outDir(); dir != "" {
		skip = realPath(dir)
	}
	var out []Source
	stdin := false
	for _, arg := range args {
		if arg == "-" {
			if stdin {
				return nil, Usagef("stdin (-) named more than once")
			}
			stdin = true
			out = append(out, Source{Name: arg, out: "stdin"})
			continue
		}
		st, err := os.Stat(arg)
		switch {
		case err != nil:
			out = append(out, Source{Name: arg, err: safefile.PathError(arg, err)})
		case st.IsDir():
			out = append(out, walk(arg, skip)...)
		default:
			out = append(out, Source{Name: arg, out: filepath.Base(arg), size: st.Size()})
		}
	}
	return out, nil
}

// walk lists the transcripts under a directory argument. A link to a
// directory is followed there (not below: WalkDir follows none), so that a
// linked ~/.claude/projects works; the files keep the argument's name.
func walk(root, skip string) []Source {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return []Source{{Name: root, err: safefile.PathError(root, err)}}
	}
	var out []Source
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		rel, relErr := filepath.Rel(real, path)
		if relErr != nil {
			return relErr
		}
		name := filepath.Join(root, rel)
		switch {
		case err != nil:
			out = append(out, Source{Name: name, dir: true, err: safefile.PathError(name, err)})
			return nil
		case d.IsDir() && skip != "" && realPath(path) == skip:
			return filepath.SkipDir
		case d.IsDir() || !isTranscriptName(d):
			return nil
		}
		var size int64
		if info, err := d.Info(); err == nil {
			size = info.Size()
		}
		out = append(out, Source{Name: name, out: rel, dir: true, size: size})
		return nil
	})
	if err != nil {
		return []Source{{Name: root, err: safefile.PathError(root, err)}}
	}
	if len(out) == 0 {
		return []Source{{Name: root, err: Failf("%s: a directory without transcripts (*.jsonl, *.json, *.traj)", root)}}
	}
	return out
}

// realPath is a path made absolute, its links resolved where it exists, to
// compare with others.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// isTranscriptName says whether a directory walk takes a file: not hidden
// (our own temporary files are), named like a transcript, and a regular file
// or a link (a FIFO would block the walk's reader).
func isTranscriptName(d fs.DirEntry) bool {
	name := d.Name()
	if strings.HasPrefix(name, ".") || !(d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
		return false
	}
	for _, ext := range transcriptExts {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// read reads one source, a transcript: one that cannot be, by its first
// bytes or a line longer than transcript.MaxLine, fails as soon as that
// shows, and is not read on (a device, an endless pipe).
func (e *Env) read(s Source) (Input, error) {
	r := e.Stdin
	if s.Name != "-" {
		f, err := os.Open(s.Name)
		if err != nil {
			return Input{}, safefile.PathError(s.Name, err)
		}
		defer f.Close()
		r = f
	}
	data, err := readAll(r, transcript.NewStream(maxLine))
	var se *transcript.SyntaxError
	switch {
	case errors.As(err, &se):
		return Input{}, Failf("%s:%v", s.Display(), err)
	case err != nil && s.Name == "-":
		return Input{}, Failf("<stdin>: %v", err)
	case err != nil:
		return Input{}, safefile.PathError(s.Name, err)
	}
	return Input{Source: s, Data: data}, nil
}

// maxLine is the longest line read: transcript.MaxLine, less in a test.
var maxLine = transcript.MaxLine

// ReadFile reads a transcript named by a flag (--before): its complete
// lines, with a warning when its last line is still being written.
func (e *Env) ReadFile(name string) (Input, error) {
	in, err := e.read(Source{Name: name})
	if err != nil {
		return in, err
	}
	if in = complete(in); in.Unfinished > 0 {
		e.Warn("%s", in.unfinishedNote())
	}
	return in, nil
}

// readSmall reads what is not a transcript (a hook's payload, a price
// file) whole, up to maxLine bytes: past them it is an error that calls it
// what, and nothing more is read (an endless stdin, a device).
func readSmall(r io.Reader, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(maxLine)+1))
	if err == nil && len(data) > maxLine {
		err = fmt.Errorf("a %s of more than %s bytes, the most read", what, textfmt.Int(maxLine))
	}
	return data, err
}

// readAll reads r to its end, as fast as os.ReadFile reads a file: stdin is
// the toolkit's main input. A regular file (a FILE, or < FILE) is read into
// a buffer of its size; a pipe in chunks that double in size up to
// chunkMax, joined once at the end. io.ReadAll instead grows one buffer a
// quarter at a time from 512 bytes, copying 100 MB some forty times over
// and faulting in the fresh memory each time: 2.5 times as slow as a file.
// Each read is checked by check as it comes, and its error ends the read.
func readAll(r io.Reader, check *transcript.Stream) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		st, err := f.Stat()
		if err == nil && st.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil && st.Size() >= off {
				return readSized(f, st.Size()-off, check)
			}
		}
		if err == nil && st.Mode()&os.ModeNamedPipe != 0 {
			widenPipe(f)
		}
	}
	var chunks [][]byte
	total := 0
	size := chunkMin
	for {
		chunk := make([]byte, size)
		n, err := io.ReadFull(r, chunk)
		chunks = append(chunks, chunk[:n])
		total += n
		if cerr := check.Check(chunk[:n]); cerr != nil {
			return nil, cerr
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, chunkMax)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	data := make([]byte, 0, total)
	for _, c := range chunks {
		data = append(data, c...)
	}
	if total > collectAbove {
		// The chunks are garbage now, as large as the input: collect them
		// before the parse allocates, which then reuses their memory, so
		// that a pipe's peak is a file's.
		chunks = nil
		runtime.GC()
	}
	return data, nil
}

// collectAbove is the size of input past which readAll collects its chunks.
const collectAbove = 32 << 20

// The chunks of a pipe read whole: small for the short inputs of hooks and
// tests, large for the hundreds of megabytes of a corpus.
const (
	chunkMin = 64 << 10
	chunkMax = 16 << 20
)

// readSized reads a file of the given size from where it stands, and what
// was appended to it since it was measured, each read checked by check:
// the first is small, so that a file that is no transcript fails before it
// is read whole.
func readSized(r io.Reader, size int64, check *transcript.Stream) ([]byte, error) {
	data := make([]byte, 0, size+1) // one more: the read that finds the end
	limit := chunkMin
	for {
		n, err := r.Read(data[len(data):min(cap(data), len(data)+limit)])
		if cerr := check.Check(data[len(data) : len(data)+n]); cerr != nil {
			return nil, cerr
		}
		data = data[:len(data)+n]
		limit = cap(data)
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // it grew as it was read
		}
	}
}

// Several reports whether the sources are more than one transcript: several
// arguments, or a directory.
func Several(srcs []Source) bool {
	return len(srcs) > 1 || len(srcs) == 1 && srcs[0].dir
}

// filesHelp is what --help says about FILEs, directories and batches: the
// inputs, then where a filter's results go, or what a report does with a
// bad file.
func filesHelp(flags []ucli.Flag) string {
	help := `

FILES AND DIRECTORIES:
   With no FILE, or with "-", stdin is read. A directory is walked for *.jsonl, *.json and
   *.traj files (names starting with "." left out), as gofmt walks one for .go files:
   ~/.claude/projects and ~/.codex/sessions work as they are.`
	if !slices.Contains(flags, ucli.Flag(InPlaceFlag)) {
		return help + `
   A bad file among several gets its one-line error on stderr, the report covers the others,
   and the exit status is 1.`
	}
	return help + `
   The result goes to stdout; several FILEs, or a directory, need -i or -o DIR. A bad file
   among several gets its one-line error on stderr, the others are still filtered and written,
   and the exit status is 1.
   -i rewrites each file atomically: a temporary file beside it (.NAME.ctx-*.tmp), flushed to
   the disk, then renamed over it. A link's target is rewritten and the link kept; the mode,
   and the owner and group where permitted, are kept; a FIFO or a device is refused. A
   temporary file that a killed run left behind is removed by a later run writing beside it.
   -o DIR writes a FILE to DIR/<its name>, and a file found in a directory to DIR/<its path
   under that directory>, and stdin (-) to DIR/stdin; DIR and its subdirectories are created
   as needed. Two inputs that would be written to the same file, or one over another input,
   are refused (exit 2) before anything is written.`
}

// outDir is -o's directory: "" without it, and for the commands that have
// no -o.
func (e *Env) outDir() string { return e.String(OutDirFlag.Name) }

// Load parses an input with the --format and --tool-kind flags. A bad
// transcript is a failure that names the input, line and column.
func (e *Env) Load(in Input) (*transcript.Transcript, error) {
	opts, err := e.parseOptions()
	if err != nil {
		return nil, err
	}
	return parse(in.Data, opts, in.Display(), 1)
}

// parseOptions are the --format and --tool-kind flags.
func (e *Env) parseOptions() (transcript.Options, error) {
	format, err := transcript.ParseFormat(e.String(FormatFlag.Name))
	if err != nil {
		return transcript.Options{}, Usagef("--format: %v", err)
	}
	table, err := e.Tools()
	if err != nil {
		return transcript.Options{}, err
	}
	return transcript.Options{Format: format, Tools: table}, nil
}

// parse parses a transcript that starts on line first of the input name.
func parse(data []byte, opts transcript.Options, name string, first int) (*transcript.Transcript, error) {
	t, err := transcript.Parse(data, opts)
	if err != nil {
		var se *transcript.SyntaxError
		if errors.As(err, &se) {
			se.Line += first - 1
		}
		return nil, Failf("%s:%v", name, err)
	}
	return t, nil
}

// Tools is the kind table with the --tool-kind overrides.
func (e *Env) Tools() (*tools.Table, error) {
	o, err := tools.ParseOverrides(e.StringSlice(ToolKindFlag.Name)...)
	if err != nil {
		return nil, Usagef("--tool-kind: %v", err)
	}
	return tools.NewTable(o), nil
}

// Counter is the token counter of --encoding.
func (e *Env) Counter() (tokens.Counter, error) {
	c, err := tokens.New(e.String(EncodingFlag.Name))
	if err != nil {
		return nil, Usagef("--encoding: %v", err)
	}
	return c, nil
}
