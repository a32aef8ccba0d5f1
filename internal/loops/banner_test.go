package loops

import (
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
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

// TestDenialIsOurMarker: the first line of a denial is a marker of
// ctx-loops, and internal/outcome reads a result that starts with it as a
// call that was denied.
func TestDenialIsOurMarker(t *testing.T) {
	reason := DenyReason(Loop{Kind: Repeat, Steps: []int{0, 1, 2}, Tool: "Bash"}, Step{Tool: "Bash", What: "make"})
	if got, _, ok := marker.Parse(reason); !ok || got != tool {
		t.Errorf("the denial's first line is not a marker of ctx-loops: %q", reason)
	}
	if o := outcome.Read(reason, outcome.Hint{IsError: true}); o.End != outcome.Denied {
		t.Errorf("the denial reads as %v", o.End)
	}
}
