package tools

import (
	"path"
	"strings"
)

// Removed lists the paths a shell command removes, as it names them: the
// operands of rm (or git rm), not its options; nil for any other command.
// An operand with a glob or a variable names no one file and is left out.
func Removed(command string) []string {
	step, ok := MainStep(command)
	if !ok || step.Piped || len(step.Words) == 0 {
		return nil
	}
	words := step.Words
	switch {
	case path.Base(words[0]) == "rm":
		words = words[1:]
	case path.Base(words[0]) == "git" && len(words) > 1 && words[1] == "rm":
		words = words[2:]
	default:
		return nil
	}
	var out []string
	options := true
	for _, w := range words {
		switch {
		case options && w == "--":
			options = false
		case options && strings.HasPrefix(w, "-") && w != "-":
		case w == "" || strings.ContainsAny(w, "*?[$`"):
		default:
			out = append(out, w)
		}
	}
	return out
}
