package agenttest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestInstallNeedsNode runs the test binary again, as a test that installs
// an agent, with no node on the PATH: it skips unless the real agents are
// asked for, and with CTX_E2E=1 it fails, saying why.
func TestInstallNeedsNode(t *testing.T) {
	if os.Getenv("CTX_AGENTTEST_CHILD") == "1" {
		ClaudeCode.Install(t)
		return
	}
	run := func(e2e string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestInstallNeedsNode$", "-test.v")
		cmd.Env = append(os.Environ(), "CTX_AGENTTEST_CHILD=1", "PATH="+t.TempDir(), "CTX_E2E="+e2e)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(""); err != nil || !strings.Contains(out, "--- SKIP") {
		t.Errorf("without CTX_E2E: %v, want a skip:\n%s", err, out)
	}
	if out, err := run("1"); err == nil || !strings.Contains(out, "which is not on the PATH") {
		t.Errorf("CTX_E2E=1 without node: %v, want a failure that says why:\n%s", err, out)
	}
}
