package loops

import (
	"strings"
	"testing"
)

// TestDenyReasonQuotesAsRun: the denial quotes the command as it was run,
// its white space inside quotes too.
func TestDenyReasonQuotesAsRun(t *testing.T) {
	cmd := `python3 -c "print('E   AssertionError: boom')"`
	next := Step{Tool: "Bash", What: cmd}
	got := DenyReason(Loop{Kind: Repeat, Steps: []int{0, 1, 2}, Tool: "Bash"}, next)
	if !strings.Contains(got, "Bash ("+cmd+") has already failed 2 times") {
		t.Errorf("the reason does not quote the command as run:\n%s", got)
	}
}

// TestIsDenial: every reason DenyReason gives is a denial, a banner and
// other text are not.
func TestIsDenial(t *testing.T) {
	next := Step{Tool: "Bash", What: "go test ./..."}
	for _, k := range []Kind{Repeat, SameError, Cycle} {
		if r := DenyReason(Loop{Kind: k, Steps: []int{0, 1, 2}, Tool: "Bash", Period: 2, Rounds: 2}, next); !IsDenial(r) {
			t.Errorf("%s: the reason is not a denial:\n%s", k, r)
		}
	}
	for _, text := range []string{Header(Step{Tool: "Bash"}, "") + "out", "[ctx-loops] Call not run: it would repeat an error loop.", "ok", ""} {
		if IsDenial(text) {
			t.Errorf("%q is a denial", text)
		}
	}
}
