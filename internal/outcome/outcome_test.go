package outcome

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	cases := []struct {
		name string
		text string
		hint Hint
		want Outcome
	}{
		{"Claude Code's Bash", "Exit code 1\nFAIL", Hint{IsError: true}, Outcome{End: Failed, Reason: "exit code 1", ExitCode: ExitCode(1)}},
		{"a large exit code", "Exit code 128\nfatal: no upstream", Hint{}, Outcome{End: Failed, Reason: "exit code 128", ExitCode: ExitCode(128)}},
		{"mini-swe-agent ok", "<returncode>0</returncode>\n<output>\nok\n</output>", Hint{}, Outcome{ExitCode: ExitCode(0)}},
		{"mini-swe-agent killed", "<returncode>-9</returncode>", Hint{}, Outcome{End: Failed, Reason: "exit code -9", ExitCode: ExitCode(-9)}},
		{"Codex unified exec", "Chunk ID: 4bdf6f\nWall time: 1.2 seconds\nProcess exited with code 2\nOutput:\n", Hint{}, Outcome{End: Failed, Reason: "exit code 2", ExitCode: ExitCode(2)}},
		{"Codex shell", "Exit code: 3\nWall time: 0.1 seconds\nOutput:\n", Hint{}, Outcome{End: Failed, Reason: "exit code 3", ExitCode: ExitCode(3)}},
		{"Codex session", "Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 48230\nOriginal token count: 0\nOutput:\nBuilding...\n", Hint{}, Outcome{Session: 48230}},
		{"an exit code in the output is not the header's", "Output:\nExit code: 4\nok\n", Hint{}, Outcome{}},
		{"Claude Code's form is the first line only", "ok\nExit code 5\nmore\n", Hint{}, Outcome{}},
		{"not a number alone", "Exit code 1 and more", Hint{}, Outcome{}},
		{"not a number", "<returncode>x</returncode>", Hint{}, Outcome{}},
		{"empty", "", Hint{}, Outcome{}},
		{"past the head", strings.Repeat("Wall time: 1\n", 100) + "Exit code: 6\nmore\n", Hint{}, Outcome{}},
		{"a number cut at the head's end", strings.Repeat("Wall time: 1\n", 38) + "Exit code: 123456789\noutput\n", Hint{}, Outcome{}},
		{"the format's exit code wins", "Process exited with code 0\nOutput:\n", Hint{ExitCode: ExitCode(1)}, Outcome{End: Failed, Reason: "exit code 1", ExitCode: ExitCode(1)}},
		{"is_error", "String to replace not found in file.", Hint{IsError: true}, Outcome{End: Failed, Reason: "is_error"}},
		{"is_error with exit 0", "Exit code 0", Hint{IsError: true}, Outcome{End: Failed, Reason: "is_error", ExitCode: ExitCode(0)}},
		{"an Error: first line", "Error: file not found: a.go", Hint{}, Outcome{End: Failed, Reason: "starts with Error:"}},
		{"error: in any case", "error: pathspec 'x' did not match", Hint{}, Outcome{End: Failed, Reason: "starts with Error:"}},
		{"a tool_use_error", "<tool_use_error>File does not exist.</tool_use_error>", Hint{}, Outcome{End: Failed, Reason: "starts with Error:"}},
		{"exit 0 beats an Error: line", "<returncode>0</returncode>\nError: printed on purpose", Hint{}, Outcome{ExitCode: ExitCode(0)}},
		{"Error: later is not the first line", "ok\nError: x", Hint{}, Outcome{}},
		{"an exit code on the last line", "--- FAIL: TestRun (0.00s)\nFAIL\nExit code: 1\n", Hint{}, Outcome{End: Failed, Reason: "exit code 1", ExitCode: ExitCode(1)}},
		{"OpenHands' trailer", "x\n[The command completed with exit code 2.]\n[Current working directory: /w]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 2]", Hint{}, Outcome{End: Failed, Reason: "exit code 2", ExitCode: ExitCode(2)}},
		{"an exit code above the last line is output", "output\nExit code: 1\nmore output\n", Hint{}, Outcome{}},
		{"a running session has no exit code yet", "Chunk ID: a\nProcess running with session ID 3\nOutput:\nExit code 1\n", Hint{}, Outcome{Session: 3}},
		// The exit code of exec_command_end is the command's, which this
		// output did not see end: a later poll's output shows it.
		{"a marker that replaced a running session's output", "[ctx-summarize] exec_command `go test ./...`: still running, session 48230; output cleared: 105 lines (3,416 chars), 1,286 tokens, not shown here.", Hint{}, Outcome{Session: 48230}},
		{"a marker whose target is on its next line", "[ctx-summarize] exec_command:\n`echo call x`: still running, session 7; output cleared: 2 lines.", Hint{}, Outcome{Session: 7}},
		{"a marker of a poll", "[ctx-summarize] write_stdin `go test ./...` (session 48230): still running; output cleared: 5 lines.", Hint{}, Outcome{}},
		{"a marker whose command says it", "[ctx-summarize] exec_command `echo still running, session 9;`: exit 0; 1 line.", Hint{}, Outcome{}},
		{"a running session, and the command's exit code", "Chunk ID: a\nProcess running with session ID 3\nOutput:\nBuilding...\n", Hint{ExitCode: ExitCode(1)}, Outcome{Session: 3}},
	}
	for _, c := range cases {
		if got := Read(c.text, c.hint); got != c.want {
			t.Errorf("%s: Read = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestReadEnds: Read gives the same answer on a long text as ReadEnds on
// its first HeadBytes+1 and last TailBytes+1 bytes, as the model passes
// them.
func TestReadEnds(t *testing.T) {
	for _, text := range []string{
		"Chunk ID: x\nProcess exited with code 7\nOutput:\n" + strings.Repeat("line of output\n", 100),
		strings.Repeat("Wall time: 1\n", 38) + "Exit code: 123456789\n",
		"Error: " + strings.Repeat("x", 2000),
		strings.Repeat("output\n", 300) + "Process exited with code 9\n",
		strings.Repeat("output\n", 300) + "Exit code: 123456789" + strings.Repeat("\n", 500),
	} {
		if a, b := Read(text, Hint{}), ReadEnds(text[:HeadBytes+1], text[len(text)-TailBytes-1:], Hint{}); a != b {
			t.Errorf("whole %+v, ends %+v", a, b)
		}
	}
}

func TestMessage(t *testing.T) {
	cases := []struct {
		text string
		hint Hint
		want string
	}{
		{"<returncode>2</returncode>\n<output>\nsed: can't read x.go: No such file or directory\n</output>", Hint{}, "failed, exit 2: sed: can't read x.go: No such file or directory"},
		{"<returncode>2</returncode>\n<output>\n</output>", Hint{}, "failed, exit 2"},
		{"<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>", Hint{IsError: true}, "String to replace not found in file."},
		{"Exit code 1\nbuilding\nError: boom\n", Hint{IsError: true}, "failed, exit 1: Error: boom"},
		{"", Hint{IsError: true}, "failed"},
		{"all good", Hint{}, ""},
	}
	for _, c := range cases {
		if got := Read(c.text, c.hint).Message(c.text); got != c.want {
			t.Errorf("Message(%.40q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestBody(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"mini-swe-agent", "<returncode>0</returncode>\n<output>\na\nb\n</output>", "a\nb\n"},
		{"mini-swe-agent, long", "<returncode>0</returncode>\n<warning>\nToo long.\n</warning><output_head>\na\n</output_head>", "<output_head>\na\n</output_head>"},
		{"codex", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nhello\n", "hello\n"},
		{"codex session", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess running with session ID 4\nOutput:\nhello\n", "hello\n"},
		{"codex, long", "Exit code: 0\nWall time: 1 seconds\nOutput:\nTotal output lines: 734\n\nhello\n", "hello\n"},
		{"codex header without output", "Wall time: 1 seconds\nsomething", "Wall time: 1 seconds\nsomething"},
		{"claude code read", "     1→a\n     2→b\n\n<system-reminder>\nWhenever you read a file…\n</system-reminder>\n", "     1→a\n     2→b"},
		{"claude code error", "<tool_use_error>File does not exist.</tool_use_error>", "File does not exist."},
		{"plain", "plain\n", "plain\n"},
	}
	for _, c := range cases {
		if got := Body(c.in); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTests(t *testing.T) {
	cases := []struct {
		name, in string
		want     TestCounts
		str      string
	}{
		{"pytest", "....F.\n=================== 1 failed, 45 passed, 2 warnings in 0.12s ===================\n",
			TestCounts{Failed: 1, Passed: 45}, "45 passed, 1 failed"},
		{"pytest -q", "F.\n2 failed, 45 passed in 1.02s\n", TestCounts{Failed: 2, Passed: 45}, "45 passed, 2 failed"},
		{"pytest with the time in minutes", "=== 3 passed in 75.10s (0:01:15) ===\n", TestCounts{Passed: 3}, "3 passed"},
		{"go test -v", "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.01s)\n    --- PASS: TestB/sub (0.00s)\n--- SKIP: TestC (0.00s)\nFAIL\nFAIL\texample.com/a\t0.02s\nok  \texample.com/b\t0.01s\n?   \texample.com/c\t[no test files]\n",
			TestCounts{Passed: 2, Failed: 1, Skipped: 1, Packages: 2, PackagesFailed: 1}, "2 passed, 1 failed, 1 skipped; 2 packages, 1 failed"},
		{"cargo, two crates", "test result: ok. 45 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\ntest result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n",
			TestCounts{Passed: 48, Failed: 2, Skipped: 1}, "48 passed, 2 failed, 1 skipped"},
		{"jest", "Test Suites: 1 failed, 3 passed, 4 total\nTests:       2 failed, 45 passed, 47 total\nSnapshots:   0 total\n",
			TestCounts{Tests: 47, Failed: 2, Passed: 45}, "47 tests, 45 passed, 2 failed"},
		{"vitest", " Test Files  1 failed | 2 passed (3)\n      Tests  2 failed | 45 passed (47)\n", TestCounts{Failed: 2, Passed: 45}, "45 passed, 2 failed"},
		{"mocha", "  45 passing (2s)\n  1 pending\n  2 failing\n", TestCounts{Passed: 45, Skipped: 1, Failed: 2}, "45 passed, 2 failed, 1 skipped"},
		{"ExUnit", "Finished in 0.7 seconds (0.4s async, 0.3s sync)\n12 doctests, 43 tests, 0 failures, 1 skipped\n", TestCounts{Tests: 43, Skipped: 1}, "43 tests, 1 skipped"},
		{"ExUnit, excluded", "120 tests, 2 failures (3 excluded)\n", TestCounts{Tests: 120, Failed: 2, Skipped: 3}, "120 tests, 2 failed, 3 skipped"},
		{"unittest ok", "..\n----------------------------------------------------------------------\nRan 45 tests in 0.123s\n\nOK (skipped=3)\n", TestCounts{Tests: 45, Skipped: 3}, "45 tests, 3 skipped"},
		{"Django failed", "Ran 12 tests in 0.5s\n\nFAILED (failures=2, errors=1)\n", TestCounts{Tests: 12, Failed: 2, Errors: 1}, "12 tests, 2 failed, 1 errors"},
		{"no test run", "Compiling 3 files (.ex)\nGenerated spotter app\n", TestCounts{}, ""},
		{"numbers that are not counts", "Listening on :4000, pid 1234\nprocessed 45 items\n", TestCounts{}, ""},
	}
	for _, c := range cases {
		got := Tests(c.in)
		if got != c.want || got.String() != c.str || (got != TestCounts{}) != (c.str != "") {
			t.Errorf("%s: %+v %q, want %+v %q", c.name, got, got.String(), c.want, c.str)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{"Exit code 1\nx", "<returncode>-1</returncode>", "Chunk ID: a\nProcess running with session ID 9\nOutput:\n", "Error: x", "",
		"     1→a\n     2→b\n<system-reminder>x</system-reminder>", "x\n[The command completed with exit code 3.]"} {
		f.Add(s, false)
	}
	for _, n := range notRun {
		f.Add(n.line, true)
	}
	f.Fuzz(func(t *testing.T, s string, isError bool) {
		o := Read(s, Hint{IsError: isError})
		notOK := o.End != OK
		if notOK != (o.Reason != "") || isError && !notOK || notOK != (o.Message(s) != "") || o.End == NoResult {
			t.Fatalf("Read(%q, %v) = %+v, message %q", s, isError, o, o.Message(s))
		}
		if o.Session < 0 {
			t.Fatalf("session %d", o.Session)
		}
		if body := Body(s); !strings.Contains(s, body) {
			t.Fatalf("Body(%q) = %q, not part of the input", s, body)
		}
		c := Tests(s)
		for _, n := range []int{c.Tests, c.Passed, c.Failed, c.Errors, c.Skipped, c.Packages, c.PackagesFailed} {
			if n < 0 {
				t.Fatalf("Tests(%q) = %+v", s, c)
			}
		}
		if (c != TestCounts{}) != (c.String() != "") && c.Packages == 0 {
			t.Fatalf("Tests(%q) = %+v, %q", s, c, c.String())
		}
		if n, ok := SplitNumbered(s); ok && renumber(n) != s {
			t.Fatalf("SplitNumbered(%q) = %+v, which numbers back as %q", s, n, renumber(n))
		}
		if content, numbered, _ := ReadContent(s); numbered && !strings.Contains(s, strings.SplitN(content, "\n", 2)[0]) {
			t.Fatalf("ReadContent(%q) = %q: its first line is not in the input", s, content)
		}
	})
}
