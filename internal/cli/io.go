package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Input is one transcript to read: a file, or stdin.
type Input struct {
	Name string // as given on the command line; "-" for stdin
	Data []byte
}

// Display is how messages name the input.
func (in Input) Display() string {
	if in.Name == "-" {
		return "<stdin>"
	}
	return in.Name
}

// Inputs reads the FILE arguments, or stdin when there are none or a FILE is
// "-". Stdin is read at most once.
func (e *Env) Inputs() ([]Input, error) {
	names := e.Args().Slice()
	if len(names) == 0 {
		names = []string{"-"}
	}
	var out []Input
	stdinRead := false
	for _, name := range names {
		if name == "-" {
			if stdinRead {
				return nil, Usagef("stdin (-) named more than once")
			}
			stdinRead = true
			data, err := io.ReadAll(e.Stdin)
			if err != nil {
				return nil, Failf("<stdin>: %v", err)
			}
			out = append(out, Input{Name: name, Data: data})
			continue
		}
		in, err := e.readFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// Flags shared by the binaries, each with its CTX_ environment twin.
var (
	FormatFlag = &ucli.StringFlag{Name: "format", Value: "auto", EnvVars: []string{"CTX_FORMAT"},
		Usage: "transcript format: auto, openai, anthropic, claude-code or codex"}
	ToolKindFlag = &ucli.StringSliceFlag{Name: "tool-kind", EnvVars: []string{"CTX_TOOL_KINDS"},
		Usage: "treat tool `NAME=KIND` as that kind (read, edit, write, shell, list, search, git, web, other); repeatable, or comma-separated"}
	EncodingFlag = &ucli.StringFlag{Name: "encoding", Value: tokens.Default, EnvVars: []string{"CTX_ENCODING"},
		Usage: "token encoding: o200k_base, cl100k_base, or approx (bytes/4, fastest)"}
	StatsFlag = &ucli.BoolFlag{Name: "stats", EnvVars: []string{"CTX_STATS"},
		Usage: "print one line to stderr: results changed of results seen, the transcript's tokens and its tool output's before → after (they add up along a pipe)"}
	InPlaceFlag = &ucli.BoolFlag{Name: "in-place", Aliases: []string{"i"}, EnvVars: []string{"CTX_IN_PLACE"},
		Usage: "rewrite each FILE in place (atomically: a temporary file, then rename)"}
	OutDirFlag = &ucli.StringFlag{Name: "output-dir", Aliases: []string{"o"}, EnvVars: []string{"CTX_OUTPUT_DIR"},
		Usage: "write each FILE's result to `DIR`/<its name>"}
)

// Load parses an input with the --format and --tool-kind flags. A bad
// transcript is a failure that names the input, line and column.
func (e *Env) Load(in Input) (*transcript.Transcript, error) {
	format, err := transcript.ParseFormat(e.String(FormatFlag.Name))
	if err != nil {
		return nil, Usagef("--format: %v", err)
	}
	table, err := e.Tools()
	if err != nil {
		return nil, err
	}
	t, err := transcript.Parse(in.Data, transcript.Options{Format: format, Tools: table})
	if err != nil {
		return nil, Failf("%s:%v", in.Display(), err)
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

// Output is where a filter's result for one input goes.
type Output int

// Where filter results go.
const (
	ToStdout Output = iota
	InPlace
	ToDir
)

// Destination decides where results go from -i and -o, and checks the
// combination: several inputs need one of them, stdin cannot be rewritten in
// place.
func (e *Env) Destination(inputs []Input) (Output, string, error) {
	inPlace, dir := e.Bool(InPlaceFlag.Name), e.String(OutDirFlag.Name)
	switch {
	case inPlace && dir != "":
		return 0, "", Usagef("-i and -o cannot be used together")
	case inPlace:
		for _, in := range inputs {
			if in.Name == "-" {
				return 0, "", Usagef("-i rewrites files; stdin cannot be rewritten in place")
			}
		}
		return InPlace, "", nil
	case dir != "":
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return 0, "", Usagef("-o %s: not a directory", dir)
		}
		return ToDir, dir, nil
	case len(inputs) > 1:
		return 0, "", Usagef("%d files given: write them back with -i, or to a directory with -o DIR", len(inputs))
	}
	return ToStdout, "", nil
}

// WriteFile writes data to path atomically: a temporary file in the same
// directory, renamed over path; the temporary file is removed on any error.
// The file keeps its permissions.
func WriteFile(path string, data []byte) (err error) {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, bytes.NewReader(data)); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readFile reads one named file as an Input.
func (e *Env) readFile(name string) (Input, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return Input{}, Failf("%s: %v", name, err)
	}
	return Input{Name: name, Data: data}, nil
}
