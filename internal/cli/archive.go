package cli

import (
	"sort"
	"sync"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// DBFlag is the archive ctx-archive writes and ctx-recall reads.
var DBFlag = &ucli.StringFlag{Name: "db", EnvVars: []string{"CTX_ARCHIVE"},
	Usage: "the archive database `PATH` (default: ctxkit/archive.db in the user's data directory, $XDG_DATA_HOME or ~/.local/share)"}

// ArchiveFlag is the archive where a filter keeps the outputs it replaces.
// Unlike --db it has no default: a filter archives only when told to.
var ArchiveFlag = &ucli.StringFlag{Name: "archive", EnvVars: []string{"CTX_ARCHIVE"},
	Usage: "keep every output the filter replaces in the archive at `PATH` (as ctx-archive stores them), and cite its id in the marker, for ctx-recall ID or memory_query to give it back; --archive '' turns off a CTX_ARCHIVE"}

// archiveHelp is what a filter's --help says about --archive.
const archiveHelp = `

ARCHIVE:
   With --archive PATH (or CTX_ARCHIVE), every output the filter replaces is stored in that
   archive (one SQLite file, as ctx-archive stores outputs) before anything is written, and
   the marker that replaces it ends with the id that gives it back:
      ...; full output: ctx-recall toolu_01AB (or memory_query id=toolu_01AB).
   ctx-recall ID prints it back byte for byte, and an agent can ask for it with the
   memory_query tool of ctx-recall --mcp. An archive that cannot be written stops the run
   (exit 1) before anything is written. See docs/recall.md.`

// Handles gives the handles a filter's markers cite: with --archive, those
// the archive will give back (archive.Citation), else none.
func (e *Env) Handles() marker.Handles {
	if e.String(ArchiveFlag.Name) == "" {
		return nil
	}
	return archive.Citation
}

// keepArchive opens the archive of --archive, where a filter keeps what it
// replaces; nil without one. It is opened before any input is read, so
// that an archive that cannot be written stops the run before anything is
// written.
func (e *Env) keepArchive() (*archive.Archive, error) {
	path := e.String(ArchiveFlag.Name)
	if path == "" {
		return nil, nil
	}
	a, err := archive.Open(path)
	if err != nil {
		return nil, Failf("--archive: %v", err)
	}
	return a, nil
}

// keep stores, in the archive of --archive, executions whose outputs are
// about to be replaced (archive.Keep).
func (e *Env) keep(execs []archive.Execution) error {
	a, err := e.keepArchive()
	if err != nil {
		return err
	}
	err = a.Keep(execs)
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	return err
}

// ArchivePath is the archive of --db, CTX_ARCHIVE, or the default.
func (e *Env) ArchivePath() (string, error) {
	if p := e.String(DBFlag.Name); p != "" {
		return p, nil
	}
	p, err := archive.DefaultPath()
	if err != nil {
		return "", Failf("%v", err)
	}
	return p, nil
}

// Archive is ctx-archive.
var Archive = Command{
	Name:      "ctx-archive",
	Usage:     "store every tool execution of a transcript in the archive, passing the transcript through",
	ArgsUsage: "[FILE ...]",
	Description: `Reads a transcript (Claude Code JSONL, Codex rollout, OpenAI or Anthropic messages; the
format is detected) from FILE or stdin, stores every tool execution in it in the archive,
and writes the transcript to stdout unchanged, byte for byte: it sits at the head of a pipe.
With several FILEs, or a directory, it stores them all, in one transaction, and writes
nothing.

Each execution is stored once, keyed by its session and call id: the call id, session,
tool name and kind, the arguments (canonical JSON), path and line range, command, intent,
time, success and exit code, and the full output with its SHA-256 and token count;
identical outputs are stored once. Storing the same transcript again adds nothing.
Results that a ctx-* filter already replaced (markers, cuts) are not stored.

ctx-recall gives an output back by the id a marker names, and searches the archive; the
filters' --archive stores what they replace. The archive is one SQLite file (WAL, no
server): --db, else CTX_ARCHIVE, else ctxkit/archive.db in the user's data directory.
Parallel runs wait for each other. See docs/recall.md.

EXAMPLES:
   ctx-archive session.jsonl > /dev/null
   ctx-archive --stats ~/.claude/projects/*/*.jsonl
   ctx-archive < s.jsonl | ctx-truncate > smaller.jsonl
   ctx-recall toolu_01AB`,
	Flags: []ucli.Flag{DBFlag, StatsFlag, EachLineFlag, JobsFlag, QuietFlag, FormatFlag, ToolKindFlag},
	Run:   runArchive,
}

func runArchive(e *Env) error {
	path, err := e.ArchivePath()
	if err != nil {
		return err
	}
	if e.Bool(EachLineFlag.Name) {
		return e.archiveEachLine(path)
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	// Every transcript is read and parsed first, and all stored in one
	// transaction: a bad one among several is reported and left out.
	var execs []archive.Execution
	var pass []byte
	err = e.Each(srcs, func(in Input) error {
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		execs = append(execs, archive.Executions(t, t.Results)...)
		pass = in.Data
		return nil
	})
	if err != nil || len(execs) == 0 && e.failed {
		return err
	}
	st, err := store(path, execs)
	if err != nil {
		return err
	}
	// One transcript passes through, at the head of a pipe; a batch is
	// only stored.
	if len(srcs) == 1 && !srcs[0].dir && !e.failed {
		if _, err := e.Stdout.Write(pass); err != nil {
			return err
		}
	}
	if e.Bool(StatsFlag.Name) {
		e.note(storedLine(st, path))
	}
	return nil
}

// archiveEachLine is ctx-archive --each-line: every line passes through as
// it is, and the executions of all the lines are stored in one
// transaction, by session and call, whichever line was done first.
func (e *Env) archiveEachLine(path string) error {
	var mu sync.Mutex
	var execs []archive.Execution
	err := e.EachLine(func(t *transcript.Transcript, in LineInput) ([]byte, string, error) {
		x := archive.Executions(t, t.Results)
		mu.Lock()
		execs = append(execs, x...)
		mu.Unlock()
		return in.Data, "", nil
	})
	if err != nil || len(execs) == 0 {
		return err
	}
	sort.SliceStable(execs, func(i, j int) bool {
		a, b := execs[i], execs[j]
		return a.Session < b.Session || a.Session == b.Session && a.Seq < b.Seq
	})
	st, err := store(path, execs)
	if err == nil && e.Bool(StatsFlag.Name) {
		e.note(storedLine(st, path))
	}
	return err
}

// store stores executions in the archive at path, in one transaction.
func store(path string, execs []archive.Execution) (archive.Stored, error) {
	a, err := archive.Open(path)
	if err != nil {
		return archive.Stored{}, Failf("%v", err)
	}
	st, err := a.Store(execs)
	if cerr := a.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return st, Failf("%v", err)
	}
	return st, nil
}

// storedLine is ctx-archive's --stats line.
func storedLine(st archive.Stored, path string) string {
	return textfmt.Int(st.New) + " of " + textfmt.Int(st.Executions) + " executions new, " +
		textfmt.Int(st.Outputs) + " new outputs, in " + path
}
