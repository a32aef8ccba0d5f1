package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// tools builds every ctx-* binary once, into a directory that the agents'
// hooks find on their PATH.
func tools(t *testing.T) string {
	t.Helper()
	root := testutil.Root(t)
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ctxkit-e2e-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = err
			binDir = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", buildErr, binDir)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" && buildErr == nil {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// pathEnv puts the ctx-* binaries first on the PATH.
func pathEnv(bin string) string {
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// smokeScript is one shell call, then the answer, for each agent.
var smokeScript = map[string][]agenttest.Turn{
	agenttest.ClaudeCode.Name: {
		{Tool: "Bash", Input: map[string]any{"command": "seq 1 5", "description": "count to five"}},
		{Text: "Counted."},
	},
	agenttest.Codex.Name: {
		{Tool: "exec_command", Input: map[string]any{"cmd": "seq 1 5"}},
		{Text: "Counted."},
	},
}

// TestSmoke has each agent run one shell call from the script, then runs
// every ctx-* binary over the fresh transcript it wrote.
func TestSmoke(t *testing.T) {
	for _, a := range []agenttest.Agent{agenttest.ClaudeCode, agenttest.Codex} {
		t.Run(a.Name, func(t *testing.T) {
			exe := a.Install(t)
			srv, err := agenttest.NewServer(smokeScript[a.Name])
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			run := a.Run(t, exe, agenttest.Session{Server: srv, Prompt: "Count to five."})
			results := srv.ToolResults()
			if len(results) != 1 || !strings.Contains(results[0], "1\n2\n3\n4\n5") {
				t.Fatalf("the model saw %q, want the output of seq 1 5", results)
			}
			path := run.Transcript(t)
			tr := transcripttest.Load(t, path)
			if want := transcript.Format(a.Name); tr.Format != want {
				t.Errorf("format %s, want %s", tr.Format, want)
			}
			if len(tr.Calls) != 1 || tr.Calls[0].Args.Command != "seq 1 5" || tr.Calls[0].Result == nil || tr.Calls[0].Result.Failed() {
				t.Errorf("want one successful call of seq 1 5 with its result, got %d calls", len(tr.Calls))
			}
			everyTool(t, tools(t), path)
		})
	}
}

// The binaries by what they do: filters write the transcript back and keep
// the invariants; reports read it; the archive's pair stores it and gives
// its outputs back (checkArchive); ctx-playbook learns from it
// (checkPlaybook). A binary in none of these fails the test, so that a new
// one is added here.
var (
	filterBins  = []string{"ctx-dedupe", "ctx-truncate", "ctx-summarize", "ctx-compact"}
	archiveBins = []string{"ctx-archive", "ctx-recall"}
	reportBins  = map[string][]string{
		"ctx-count":     {"--json"},
		"ctx-changelog": {"--json"},
		"ctx-loops":     {"--json"},
	}
)

// everyTool runs every ctx-* binary over the transcript at path.
func everyTool(t *testing.T, bin, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		exe := filepath.Join(bin, name)
		switch args, isReport := reportBins[name]; {
		case slices.Contains(filterBins, name):
			invariant.Check(t, data, func(in []byte) ([]byte, error) {
				return runTool(exe, in)
			})
		case isReport:
			out, err := exec.Command(exe, append(args, path)...).Output()
			if err != nil {
				t.Errorf("%s %s: %v", name, path, stderrOf(err))
			} else if !json.Valid(out) {
				t.Errorf("%s --json printed invalid JSON: %.200s", name, out)
			}
		case slices.Contains(archiveBins, name):
		case name == "ctx-playbook":
			checkPlaybook(t, exe, path)
		case name == "ctx-proxy": // it reads requests, not transcripts: TestProxyAgents runs the agents through it
		case name == "ctx-setup": // it writes settings, not transcripts: TestSetupClaudeCode and TestSetupCodex run the agents it set up
		default:
			t.Errorf("%s: not run over the agent's transcript; add it to filterBins or reportBins", name)
		}
	}
	checkBanner(t, filepath.Join(bin, "ctx-loops"), data)
	checkArchive(t, bin, data)
}

// checkPlaybook learns from the transcript into a new playbook, whose
// stats --json is JSON.
func checkPlaybook(t *testing.T, exe, path string) {
	t.Helper()
	pb := filepath.Join(t.TempDir(), "playbook.json")
	if out, err := exec.Command(exe, "learn", "--playbook", pb, path).CombinedOutput(); err != nil {
		t.Errorf("ctx-playbook learn %s: %v: %s", path, err, out)
		return
	}
	if out, err := exec.Command(exe, "stats", "--json", "--playbook", pb).Output(); err != nil || !json.Valid(out) {
		t.Errorf("ctx-playbook stats --json: %v: %.200s", stderrOf(err), out)
	}
}

// checkArchive stores the transcript with ctx-archive, which passes it
// through byte for byte, and gets every output back with ctx-recall, byte
// for byte, but those a ctx-* tool already replaced (a hook's cut, pointer
// or denial), which the archive leaves out.
func checkArchive(t *testing.T, bin string, in []byte) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "archive.db")
	out, err := runTool(filepath.Join(bin, "ctx-archive"), in, "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, in) {
		t.Errorf("ctx-archive did not pass the transcript through unchanged")
	}
	tr := transcripttest.Parse(t, in)
	for _, c := range tr.Calls {
		if c.Result == nil || marker.Is(c.Result.Text(), "") || marker.IsCut(c.Result.Text()) {
			continue
		}
		got, err := exec.Command(filepath.Join(bin, "ctx-recall"), "--db", db, c.ID).Output()
		if err != nil {
			t.Errorf("ctx-recall %s: %v", c.ID, stderrOf(err))
		} else if string(got) != c.Result.Text() {
			t.Errorf("ctx-recall %s gave %d bytes back, not the %d of the output: %.200q", c.ID, len(got), len(c.Result.Text()), got)
		}
	}
}

// checkBanner runs ctx-loops --banner, the filter that adds a header above
// every failed result: the output parses, keeps every call with its result,
// and a second run changes nothing.
func checkBanner(t *testing.T, exe string, in []byte) {
	t.Helper()
	out, err := runTool(exe, in, "--banner")
	if err != nil {
		t.Fatal(err)
	}
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	if len(after.Calls) != len(before.Calls) || len(after.Results) != len(before.Results) {
		t.Errorf("ctx-loops --banner: %d calls and %d results out, %d and %d in", len(after.Calls), len(after.Results), len(before.Calls), len(before.Results))
	}
	for i, c := range after.Calls {
		if (c.Result == nil) != (before.Calls[i].Result == nil) {
			t.Errorf("ctx-loops --banner: call %s lost its result", c.ID)
		}
	}
	if again, err := runTool(exe, out, "--banner"); err != nil || !bytes.Equal(again, out) {
		t.Errorf("ctx-loops --banner is not idempotent on the agent's transcript (%v)", err)
	}
}

// runTool runs a filter with in on its stdin.
func runTool(exe string, in []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(exe, args...)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Base(exe), stderrOf(err))
	}
	return out, nil
}

// stderrOf adds a failed command's stderr to its error.
func stderrOf(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return err
}
