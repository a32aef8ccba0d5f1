package truncatecmd

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// asCommand makes the test binary ctx-truncate itself, for the tests to
// run as a process.
const asCommand = "CTX_TRUNCATE_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		os.Exit(cli.Main(Command, append([]string{Command.Name}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// rewritten has the PreToolUse hook rewrite the call id's pytest, as
// Claude Code would run it, so that the line's filter finds the call.
func rewritten(t *testing.T, id, db string) {
	t.Helper()
	payload := `{"session_id":"s-piped","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"pytest"},"tool_use_id":"` + id + `"}`
	if !strings.Contains(run(t, payload, "--hook", "claude-code", "--archive", db, "--max-chars", "5000"), "updatedInput") {
		t.Fatal("the hook did not rewrite pytest")
	}
}

// piped starts ctx-truncate as the filter of the line the hook rewrote
// for the call id, its stdin a pipe the test writes as the command would.
func piped(t *testing.T, id, db string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout *bufio.Reader) {
	t.Helper()
	rewritten(t, id, db)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(exe, "--output-of", id, "--archive", db, "--max-chars", "5000")
	cmd.Env = append(os.Environ(), asCommand+"=1")
	if stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stdin, bufio.NewReader(out)
}

// readHead reads the head's lines from stdout while the command still
// runs, failing the test if they do not come (a filter that holds them
// to the end would block here).
func readHead(t *testing.T, stdout *bufio.Reader, want string) {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b := make([]byte, len(want))
		n, _ := io.ReadFull(stdout, b)
		got <- string(b[:n])
	}()
	select {
	case h := <-got:
		if h != want {
			t.Fatalf("the first bytes passed on: %q, want the head %q", h, want)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("no head passed on while the command ran")
	}
}

// TestPipedStreams: the head of a long output reaches the agent while the
// command still runs (Claude Code shows it live, and in the file of a
// command it moved to the background); the rest comes at the end, and
// the whole is the same cut as when the output came at once.
func TestPipedStreams(t *testing.T) {
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	const id = "toolu_01PipedStreamsPipedStream"
	log := testLog(400)
	cmd, stdin, stdout := piped(t, id, filepath.Join(t.TempDir(), "archive.db"))
	n, _ := truncate.DefaultRules().Sure(log)
	cut := log[:n+len(strings.SplitAfter(log[n:], "\n")[0])] // the head and the line that ends it
	if _, err := io.WriteString(stdin, cut); err != nil {
		t.Fatal(err)
	}
	readHead(t, stdout, log[:n])
	if _, err := io.WriteString(stdin, log[len(cut):]); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	rest, err := io.ReadAll(stdout)
	if err != nil || cmd.Wait() != nil {
		t.Fatalf("the rest: %v; the filter: %v", err, cmd.ProcessState)
	}
	whole := log[:n] + string(rest)
	db := filepath.Join(t.TempDir(), "archive.db")
	rewritten(t, id, db)
	want := run(t, log, "--output-of", id, "--archive", db, "--max-chars", "5000")
	if marker.CitedCut(whole) != id || whole != want {
		t.Errorf("the output streamed:\n%s\nwant the cut of the whole:\n%s", whole, want)
	}
}

// TestPipedStopped: a signal that stops the line (the agent stopping a
// command still printing) ends the filter's reading with the command's
// output still open: what came is cut and written, and archived under
// the call, and the filter exits 0.
func TestPipedStopped(t *testing.T) {
	t.Setenv("CTX_STATE_DIR", t.TempDir())
	db := filepath.Join(t.TempDir(), "archive.db")
	const id = "toolu_01PipedStoppedPipedStopp"
	log := testLog(400)
	cmd, stdin, stdout := piped(t, id, db)
	if _, err := io.WriteString(stdin, log); err != nil {
		t.Fatal(err)
	}
	n, _ := truncate.DefaultRules().Sure(log)
	readHead(t, stdout, log[:n])
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(stdout)
	if err != nil || cmd.Wait() != nil {
		t.Fatalf("the rest: %v; the filter: %v", err, cmd.ProcessState)
	}
	out := log[:n] + string(rest)
	a, err := archive.OpenReadOnly(db)
	if err != nil {
		t.Fatalf("nothing archived: %v; the output:\n%s", err, out)
	}
	defer a.Close()
	rec, err := a.Get(id, "")
	if err != nil || rec.Output == nil {
		t.Fatalf("the archive: %v", err)
	}
	// What the filter read before the signal is the output's start, and
	// the cut of it cites the call.
	if got := *rec.Output; !strings.HasPrefix(log, got) || marker.CitedCut(out) != id {
		t.Errorf("archived %d bytes of the %d written; the output cites %q:\n%s", len(got), len(log), marker.CitedCut(out), out)
	}
}
