package tools

import (
	"reflect"
	"testing"
)

// FuzzClassifyCommand: any command line classifies without panicking, and
// a read or a write always names its file.
func FuzzClassifyCommand(f *testing.F) {
	for _, s := range []string{
		"cat a.go", "sed -n '1,20p' x | head -3", "cd /r && git -C . diff", "cat > f <<'EOF'\nx\nEOF",
		"bash -lc \"echo $(date) `x` 'q'\" 2>&1 | tee -a log", "for i in 1 2; do ls; done", "a\\\nb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		c := ClassifyCommand(cmd)
		if (c.Kind == Read || c.Kind == Write) && c.Args.Path == "" {
			t.Fatalf("ClassifyCommand(%q) = %s without a path", cmd, c.Kind)
		}
	})
}

// FuzzJoinArgv: an argv joined into a command line parses back to itself.
func FuzzJoinArgv(f *testing.F) {
	f.Add("bash", "-lc", "sed -n '1,20p' 'a b.go'")
	f.Add("echo", "", "it's")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		argv := []string{a, b, c}
		for _, w := range argv {
			for _, r := range w {
				if r == 0 || r == '\n' || r == '\r' {
					return // not something an argv from a transcript holds
				}
			}
		}
		got := parseScript(JoinArgv(argv))
		if len(got) != 1 || len(got[0]) != 1 || !reflect.DeepEqual(got[0][0].words, argv) {
			t.Fatalf("JoinArgv(%q) = %q parses back as %+v", argv, JoinArgv(argv), got)
		}
	})
}
