package outcome

import "strings"

// rejectedLines are how agents word a call that the user, or an approval
// the agent asked for, refused, as the first line of its result: Claude
// Code's answer to a refused permission, Codex's to a declined approval of
// its exec and patch tools. (A hook's denial in Codex is Blocked.)
var rejectedLines = []string{
	"The user doesn't want to proceed with this tool use.",
	"exec command rejected by user",
	"patch rejected by user",
}

// Rejected reports whether a result says its call was not run because the
// user refused it. The result's first line is the agent's wording, after
// an "Error: " that some formats put before it.
func Rejected(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimPrefix(strings.TrimSpace(first), "Error: ")
	for _, l := range rejectedLines {
		if strings.HasPrefix(first, l) {
			return true
		}
	}
	return false
}
