package outcome

import "strings"

// deniedLines are how agents word a call that was not run because the user
// or a hook refused it, as the first line of its result: Claude Code's
// answer to a refused permission, Codex's to a declined approval (its
// exec and patch tools) and to a PreToolUse hook's denial, which the
// hook's reason follows. (Claude Code gives a hook's reason alone.)
var deniedLines = []string{
	"The user doesn't want to proceed with this tool use.",
	"exec command rejected by user",
	"patch rejected by user",
	"Command blocked by PreToolUse hook:",
}

// Denied reports whether a result says its call was not run: the user, an
// approval the agent asked for, or a hook refused it. The result's first
// line is the agent's wording, after an "Error: " that some formats put
// before it.
func Denied(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimPrefix(strings.TrimSpace(first), "Error: ")
	for _, l := range deniedLines {
		if strings.HasPrefix(first, l) {
			return true
		}
	}
	return false
}
