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
