package outcome

import "testing"

// TestEnds: the agents' words for a call that was not run, and the tools'
// for an input they refused, give the call its end whatever else the
// format says of it (Claude Code marks all of them is_error).
func TestEnds(t *testing.T) {
	cases := []struct {
		name string
		text string
		hint Hint
		want End
	}{
		{"Claude Code, refused", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", Hint{IsError: true}, Denied},
		{"after Error:", "Error: The user doesn't want to proceed with this tool use. The tool use was rejected", Hint{}, Denied},
		{"Codex, exec refused", "exec command rejected by user", Hint{}, Denied},
		{"Codex, patch refused", "  patch rejected by user\n", Hint{}, Denied},
		{"Claude Code -p, not allowed", "Claude requested permissions to use mcp__ctx-recall__memory_query, but you haven't granted it yet.", Hint{IsError: true}, Denied},
		{"Codex, a hook", "Command blocked by PreToolUse hook: [ctx-loops] Call not run: it would repeat an error loop. Command: cat x", Hint{}, Denied},
		{"Claude Code, ctx-loops' hook", LoopsDenial + "\nThe same Bash call has already failed 2 times", Hint{IsError: true}, Denied},
		{"Claude Code, a sibling failed", "<tool_use_error>Sibling tool call errored</tool_use_error>", Hint{IsError: true}, Cancelled},
		{"Claude Code, interrupted", "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.", Hint{IsError: true}, Cancelled},
		{"Claude Code, interrupted while running", "[Request interrupted by user for tool use]", Hint{IsError: true}, Cancelled},
		{"Codex, aborted", "aborted", Hint{}, Cancelled},
		{"aborted, and more", "aborted\nretrying", Hint{}, OK},
		{"SWE-agent's linter", "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched ']'\n", Hint{}, Failed},
		{"SWE-agent's edit, text not found", "Your edit was not applied (file not modified): Text 'x' not found in displayed lines.", Hint{}, Failed},
		{"str_replace_editor, no match", "No replacement was performed, old_str `x` did not appear verbatim in /a.py.", Hint{}, Failed},
		{"SWE-agent, no file open", "No file opened. Use the `open` command first.", Hint{}, Failed},
		{"a real failure", "<tool_use_error>File does not exist.</tool_use_error>", Hint{IsError: true}, Failed},
		{"printed by the command", "ok\nexec command rejected by user", Hint{}, OK},
		{"after an exit code", "Exit code 1\nThe user doesn't want to proceed with this tool use.", Hint{IsError: true}, Failed},
		{"permission denied is a failure", "bash: ./run.sh: Permission denied", Hint{IsError: true}, Failed},
	}
	for _, c := range cases {
		o := Read(c.text, c.hint)
		if o.End != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, o.End, o.Reason, c.want)
		}
		if o.Failed() != (c.want == Failed) {
			t.Errorf("%s: Failed() = %v", c.name, o.Failed())
		}
	}
}

func TestEndMessage(t *testing.T) {
	cases := []struct{ text, want string }{
		{"<tool_use_error>Sibling tool call errored</tool_use_error>", "cancelled: Sibling tool call errored"},
		{"exec command rejected by user", "denied: exec command rejected by user"},
		{"Your proposed edit has introduced new syntax error(s). Please retry.\n\nERRORS:\n- E999 SyntaxError: unmatched ']'\n", "not applied: E999 SyntaxError: unmatched ']'"},
	}
	for _, c := range cases {
		if got := Read(c.text, Hint{IsError: true}).Message(c.text); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestEndStrings(t *testing.T) {
	for e, want := range map[End]string{OK: "ok", Failed: "failed", Denied: "denied", Cancelled: "cancelled", NoResult: "no result"} {
		got, _ := e.MarshalText()
		var back End
		if err := back.UnmarshalText(got); e.String() != want || string(got) != want || err != nil || back != e {
			t.Errorf("%d: %q, %q, back %v (%v); want %q", e, e.String(), got, back, err, want)
		}
	}
}

func TestRefusal(t *testing.T) {
	lint := "Your proposed edit has introduced new syntax error(s). Please retry.\n\nERRORS:\n- E999 SyntaxError: unmatched ')'\n\nThis is how your edit would have looked if applied\n"
	if first, ok := Refusal(lint); !ok || first != "Your proposed edit has introduced new syntax error(s). Please retry." {
		t.Errorf("Refusal = %q, %v", first, ok)
	}
	for _, text := range []string{"Error: Text not found", "<tool_use_error>Sibling tool call errored</tool_use_error>", "ok", ""} {
		if first, ok := Refusal(text); ok {
			t.Errorf("Refusal(%q) = %q, a refusal", text, first)
		}
	}
}

func TestEndUnknown(t *testing.T) {
	var e End
	if err := e.UnmarshalText([]byte("maybe")); err == nil {
		t.Error("an unknown end read without an error")
	}
}
