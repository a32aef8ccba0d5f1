package testutil

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRequiredCorpus runs the test binary again, as a test that lists the
// corpus, where there is none: it skips, and with CTX_REQUIRE_CORPUS=1 it
// fails, saying why.
func TestRequiredCorpus(t *testing.T) {
	if os.Getenv("CTX_TESTUTIL_CHILD") == "1" {
		CorpusFiles(t)
		return
	}
	empty := t.TempDir()
	run := func(env ...string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequiredCorpus$", "-test.v")
		cmd.Env = append(os.Environ(), append([]string{"CTX_TESTUTIL_CHILD=1", "CTX_CORPUS=" + empty}, env...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("CTX_REQUIRE_CORPUS="); err != nil || !strings.Contains(out, "--- SKIP") {
		t.Errorf("without the corpus: %v, want a skip:\n%s", err, out)
	}
	if out, err := run("CTX_REQUIRE_CORPUS=1"); err == nil || !strings.Contains(out, "CTX_REQUIRE_CORPUS=1, and there is no corpus") {
		t.Errorf("without the corpus, when it is required: %v, want a failure that says why:\n%s", err, out)
	}
}
