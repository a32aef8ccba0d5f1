package loops

import (
	"strings"
)

// errorBody is a failed call's output without what the agent wraps around
// it and what changes from run to run of the same command: Claude Code's
// "Exit code N" first line, Codex's header (Chunk ID, Wall time, Process
// exited with code, Original token count, Output:), mini-swe-agent's
// <returncode> and <output> tags. Two runs of a command that failed the
// same way give the same body.
func errorBody(text string) string {
	if rest, ok := strings.CutPrefix(text, "<returncode>"); ok {
		if _, out, ok := strings.Cut(rest, "</returncode>"); ok {
			out = strings.TrimSpace(out)
			out = strings.TrimPrefix(out, "<output>")
			return strings.TrimSpace(strings.TrimSuffix(out, "</output>"))
		}
	}
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(first, "Exit code ") {
		text = rest
	}
	head := text
	for range 8 {
		line, rest, ok := strings.Cut(head, "\n")
		switch {
		case !ok:
			return strings.TrimSpace(text)
		case line == "Output:":
			return strings.TrimSpace(rest)
		case !isCodexHeader(line):
			return strings.TrimSpace(text)
		}
		head = rest
	}
	return strings.TrimSpace(text)
}

func isCodexHeader(line string) bool {
	for _, p := range []string{"Chunk ID:", "Wall time:", "Process exited with code ", "Original token count:", "Exit code:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// firstError is the line of an error body that says what went wrong: the
// first that names an error or a failure, else the first that is not
// empty.
func firstError(body string) string {
	first := ""
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		lower := strings.ToLower(line)
		for _, w := range errorWords {
			if strings.Contains(lower, w) {
				return line
			}
		}
	}
	return first
}

var errorWords = []string{"error", "fail", "fatal", "panic", "exception", "not found", "no such", "denied", "cannot", "can't", "invalid", "refused"}
