// Package archivecmd is ctx-archive: it stores every tool execution of a
// transcript in the archive and passes the transcript through.
package archivecmd

import (
	"sort"
	"sync"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Command is ctx-archive.
var Command = cli.Command{
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
	Flags: []ucli.Flag{cli.DBFlag, cli.StatsFlag, cli.EachLineFlag, cli.JobsFlag, cli.QuietFlag, cli.FormatFlag, cli.ToolKindFlag},
	Run:   runArchive,
}

func runArchive(e *cli.Env) error {
	path, err := e.ArchivePath()
	if err != nil {
		return err
	}
	if e.Bool(cli.EachLineFlag.Name) {
		return eachLine(e, path)
	}
	srcs, err := e.Sources()
	if err != nil {
		return err
	}
	// Every transcript is read and parsed first, and all stored in one
	// transaction: a bad one among several is reported and left out.
	var execs []archive.Execution
	var pass []byte
	err = e.Each(srcs, func(in cli.Input) error {
		t, err := e.Load(in)
		if err != nil {
			return err
		}
		execs = append(execs, archive.Executions(t, t.Results)...)
		pass = in.Data
		return nil
	})
	if err != nil || len(execs) == 0 && e.Failed() {
		return err
	}
	st, err := store(path, execs)
	if err != nil {
		return err
	}
	// One transcript passes through, at the head of a pipe; a batch is
	// only stored.
	if !cli.Several(srcs) && !e.Failed() {
		if _, err := e.Stdout.Write(pass); err != nil {
			return err
		}
	}
	if e.Bool(cli.StatsFlag.Name) {
		e.Note(storedLine(st, path))
	}
	return nil
}

// eachLine is ctx-archive --each-line: every line passes through as
// it is, and the executions of all the lines are stored in one
// transaction, by session and call, whichever line was done first.
func eachLine(e *cli.Env, path string) error {
	var mu sync.Mutex
	var execs []archive.Execution
	err := e.EachLine(func(t *transcript.Transcript, in cli.LineInput) ([]byte, string, error) {
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
	if err == nil && e.Bool(cli.StatsFlag.Name) {
		e.Note(storedLine(st, path))
	}
	return err
}

// store stores executions in the archive at path, in one transaction.
func store(path string, execs []archive.Execution) (archive.Stored, error) {
	a, err := archive.Open(path)
	if err != nil {
		return archive.Stored{}, cli.Failf("%v", err)
	}
	st, err := a.Store(execs)
	if cerr := a.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return st, cli.Failf("%v", err)
	}
	return st, nil
}

// storedLine is ctx-archive's --stats line.
func storedLine(st archive.Stored, path string) string {
	return textfmt.Int(st.New) + " of " + textfmt.Int(st.Executions) + " executions new, " +
		textfmt.Int(st.Outputs) + " new outputs, in " + path
}
