package tools

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Canonical is a call's arguments in one spelling, so that two calls that
// ask for the same thing compare equal whatever the model's key order and
// spacing: JSON with sorted keys and no insignificant space, the command
// line's runs of white space made one space. A custom tool's free-form input
// (isText) and arguments that are not valid JSON keep their text, trimmed.
// The archive stores it, the loop detector compares it.
func Canonical(input string, isText bool) string {
	if isText {
		return strings.TrimSpace(input)
	}
	dec := json.NewDecoder(strings.NewReader(input))
	dec.UseNumber() // 1.0 and 1 stay as written; no float rounding
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return strings.TrimSpace(input)
	}
	if obj, ok := v.(map[string]any); ok {
		for _, k := range commandKeys {
			switch c := obj[k].(type) {
			case string:
				obj[k] = CanonicalCommand(c)
			case []any:
				for i, w := range c {
					if s, ok := w.(string); ok {
						c[i] = CanonicalCommand(s)
					}
				}
			}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // <, > and & are common in commands
	if err := enc.Encode(v); err != nil {
		return strings.TrimSpace(input)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// CanonicalCommand is a command line in Canonical's spelling: its runs of
// white space made one space. The loop detector keys shell calls by it, since
// agents spell the same command in different argument shapes (Claude Code's
// Bash {"command"}, Codex's exec_command {"cmd", "workdir", ...}).
func CanonicalCommand(s string) string { return strings.Join(strings.Fields(s), " ") }
