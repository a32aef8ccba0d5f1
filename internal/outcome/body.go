package outcome

import "strings"

// Body is what the tool itself printed: the text without the wrapper some
// formats put around a command's output (mini-swe-agent's
// <returncode>/<output>, Codex's "Chunk ID: … Output:" header, Claude Code's
// <tool_use_error> tags) and without the <system-reminder> notes that Claude
// Code appends to reads. Body of a text without a wrapper is the
// text.
func Body(text string) string {
	switch {
	case strings.HasPrefix(text, "<returncode>"):
		// mini-swe-agent: <returncode>N</returncode>\n<output>\n…</output>
		_, rest, _ := strings.Cut(text, "\n")
		rest = strings.TrimLeft(rest, "\n")
		if strings.HasPrefix(rest, "<warning>") {
			// Advice to the model about a long output, not the output.
			if _, after, ok := strings.Cut(rest, "</warning>"); ok {
				rest = strings.TrimLeft(after, "\n")
			}
		}
		if inner, ok := strings.CutPrefix(rest, "<output>\n"); ok {
			if body, ok := strings.CutSuffix(strings.TrimRight(inner, "\n"), "</output>"); ok {
				return body
			}
		}
		return rest
	case strings.HasPrefix(text, "<tool_use_error>"):
		inner := strings.TrimPrefix(text, "<tool_use_error>")
		if body, ok := strings.CutSuffix(strings.TrimRight(inner, "\n"), "</tool_use_error>"); ok {
			return body
		}
		return inner
	}
	if _, ok := codexHeader(firstLine(text)); ok {
		for rest := text; rest != ""; {
			var line string
			line, rest, _ = strings.Cut(rest, "\n")
			h, ok := codexHeader(strings.TrimSuffix(line, "\r"))
			if !ok {
				break
			}
			if h == "Output:" {
				// A long output starts with its own count of lines.
				if first, after, _ := strings.Cut(rest, "\n"); strings.HasPrefix(first, "Total output lines: ") {
					rest = strings.TrimLeft(after, "\n")
				}
				return rest
			}
		}
		return text
	}
	body, _ := stripReminders(text)
	return body
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r")
}
