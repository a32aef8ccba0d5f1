package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/archivecmd"
	"github.com/ctxkit/ctxkit/internal/commands/changelogcmd"
	"github.com/ctxkit/ctxkit/internal/commands/compactcmd"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
	"github.com/ctxkit/ctxkit/internal/commands/dedupecmd"
	"github.com/ctxkit/ctxkit/internal/commands/loopscmd"
	"github.com/ctxkit/ctxkit/internal/commands/summarizecmd"
	"github.com/ctxkit/ctxkit/internal/commands/truncatecmd"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// liveRuns are the commands that read transcripts, as a user runs them on a
// session file; "DB" stands for an archive of the run's own.
var liveRuns = []struct {
	cmd  cli.Command
	args []string
}{
	{dedupecmd.Command, nil},
	{truncatecmd.Command, nil},
	{summarizecmd.Command, nil},
	{compactcmd.Command, nil},
	{compactcmd.Command, []string{"--replay", "--json"}},
	{countcmd.Command, []string{"--json"}},
	{countcmd.Command, []string{"--tee"}},
	{countcmd.Command, []string{"--by", "tool", "--json"}},
	{countcmd.Command, []string{"--cost", "--json"}},
	{countcmd.Command, []string{"--html"}},
	{changelogcmd.Command, []string{"--json"}},
	{loopscmd.Command, []string{"--json"}},
	{loopscmd.Command, []string{"--banner"}},
	{archivecmd.Command, []string{"--db", "DB"}},
}

// unfinishedWarning is the line a command prints on a session still being
// written.
var unfinishedWarning = regexp.MustCompile(`(?m)^ctx-[a-z]+: warning: <stdin>:[0-9]+: the last line is unfinished \(no newline, not JSON\): the session is still being written; read the [0-9,]+ lines? before it\n`)

// TestLiveSession: an agent writes its session's JSONL while it runs, and a
// command can read it with its last line half written. Every command that
// reads transcripts reads the complete lines as if they were the whole
// file (the same stdout, the same exit status, the same stderr), and warns
// once that the session is still being written; a filter writes back the
// complete lines. Over every JSONL fixture, scenario and corpus file.
func TestLiveSession(t *testing.T) {
	var files []string
	for _, f := range append(append(testutil.Fixtures(t), testutil.Scenarios(t)...), testutil.CorpusIfPresent(t)...) {
		if strings.HasSuffix(f, ".jsonl") {
			files = append(files, f)
		}
	}
	for _, path := range files {
		if raceEnabled && strings.Contains(path, "corpus") {
			continue // the race detector makes the large sessions slow; the fixtures have every format
		}
		t.Run(testutil.Name(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			complete, live := cutLastLine(data)
			for i, run := range liveRuns {
				if raceEnabled && i > 0 && filepath.Base(path) != "claude-code.jsonl" {
					continue // under the race detector, every command on one format, one command on every format
				}
				t.Run(strings.Join(append([]string{run.cmd.Name}, run.args...), " "), func(t *testing.T) {
					want := runLive(t, run.cmd, run.args, complete)
					got := runLive(t, run.cmd, run.args, live)
					if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) {
						t.Fatalf("on the live file: exit %d, %d bytes out; on its complete lines: exit %d, %d bytes out\n%s",
							got.code, len(got.stdout), want.code, len(want.stdout), got.stderr)
					}
					if n := len(unfinishedWarning.FindAllString(got.stderr, -1)); n != 1 {
						t.Fatalf("%d warnings of the unfinished line, want 1:\n%s", n, got.stderr)
					}
					if rest := unfinishedWarning.ReplaceAllString(got.stderr, ""); rest != want.stderr {
						t.Errorf("stderr besides the warning:\n%s\nwant\n%s", rest, want.stderr)
					}
				})
			}
		})
	}
}

// cutLastLine is a session's complete lines without its last, and those
// with the first half of the last after them, as an agent leaves the file
// while it writes that line.
func cutLastLine(data []byte) (complete, live []byte) {
	body := bytes.TrimRight(data, "\n")
	start := bytes.LastIndexByte(body, '\n') + 1
	last := body[start:]
	complete = data[:start]
	live = append(append([]byte(nil), complete...), last[:len(last)/2]...)
	return complete, live
}

type liveResult struct {
	code   int
	stdout []byte
	stderr string
}

// runLive runs a command on stdin in, with an archive of its own for "DB".
func runLive(t *testing.T, cmd cli.Command, args []string, in []byte) liveResult {
	t.Helper()
	argv := []string{cmd.Name}
	if slices.Contains(cmd.Flags, ucli.Flag(cli.EncodingFlag)) {
		argv = append(argv, "--encoding", "approx")
	}
	for _, a := range args {
		if a == "DB" {
			a = filepath.Join(t.TempDir(), "archive.db")
		}
		argv = append(argv, a)
	}
	var stdout, stderr bytes.Buffer
	code := cli.Run(cmd, append(argv, "-"), bytes.NewReader(in), &stdout, &stderr)
	return liveResult{code, stdout.Bytes(), stderr.String()}
}
