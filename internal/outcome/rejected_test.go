package outcome

import "testing"

func TestRejected(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true},
		{"Error: The user doesn't want to proceed with this tool use. The tool use was rejected", true},
		{"exec command rejected by user", true},
		{"patch rejected by user", true},
		{"Command blocked by PreToolUse hook: [ctx-loops] Call not run: it would repeat an error loop.", false}, // a hook's: Blocked
		{"  exec command rejected by user\n", true},
		{"ok\nexec command rejected by user", false}, // printed by the command, not the agent's answer
		{"bash: ./run.sh: Permission denied", false},
		{"Exit code 1\nThe user doesn't want to proceed with this tool use.", false},
		{"", false},
	}
	for _, c := range cases {
		if got := Rejected(c.text); got != c.want {
			t.Errorf("Rejected(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
