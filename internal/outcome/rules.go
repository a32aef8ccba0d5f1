package outcome

import "github.com/ctxkit/ctxkit/internal/lazyre"

// A rule is one wording of a line that matters. It runs only on lines that
// hold one of its keys (in any case), found in one pass over the line: a log
// has many lines and most hold none, and Go's regexp is fast only on small
// patterns. Keys starting with ^ are looked for at the line's start, after
// its indentation; keys starting with = match in their own case only. The
// rules run in order; the first that matches classes the line.
//
// The table is data: every row has at least one line in lines_test.go that
// it classes (TestEveryRuleHasALine).
type rule struct {
	kind Kind
	keys []string
	re   *lazyre.Regexp
}

var rules = []rule{
	// Assertions first: an AssertionError is an assertion before it is an
	// exception; crashes next: "panic: runtime error: …" is a panic before
	// it is an error.
	{Assertion, []string{"assert"}, lazyre.New(`\bAssertionError\b|(?i)\bassertion\b.*\bfailed\b`)},
	{Assertion, []string{"^expect", "^receiv", "^actual", "^left", "^right"},
		lazyre.New(`(?i)^\s*(?:expected|received|actual|left|right)(?: value)?\s*:\s`)},
	// pytest's explanation lines: "E       assert 1 == 2"
	{Assertion, []string{"^e "}, lazyre.New(`^E {2,}\S`)},
	// go test's t.Errorf: "    calc_test.go:22: Mul(7, 3) = 22, want 21"
	// (Lines drops those of a test that then passes: t.Log's.)
	{Assertion, []string{".go:"}, goTestMessage},

	// Crashes: panics, fatal runtime errors, signals.
	{Crash, []string{"panic"}, lazyre.New(`^panic: |\bpanicked at\b`)},
	{Crash, []string{"^fatal error"}, lazyre.New(`^[Ff]atal error\b`)},
	{Crash, []string{"segmentation fault", "core dumped", "^killed", "abort", "out of memory"},
		lazyre.New(`\bSegmentation fault\b|\bcore dumped\b|^Killed\b|\bAborted\b|\bout of memory\b`)},

	// Errors: compilers, runtimes, shells, package managers, git.
	// error: / Error: / ERROR: / error[E0425]: / error TS2345: / ERROR
	{Error, []string{"error"}, lazyre.New(`(?:^|[^\w-])(?:error|Error|ERROR)(?:\[[A-Za-z]*\d+\])?(?: [A-Z]+\d+)?:|^ERROR\b`)},
	// exceptions and errors by class name: ValueError, TypeError: x, java.io.IOException
	{Error, []string{"error", "exception"}, lazyre.New(`\b[A-Z][A-Za-z0-9_]*(?:Error|Exception)\b`)},
	// a Go compiler's file:line:col: message
	{Error, []string{".go:"}, lazyre.New(`^\S+\.go:\d+:\d+: `)},
	{Error, []string{"npm "}, lazyre.New(`\bnpm (?:ERR!|error) `)},
	// git and others: "fatal: not a git repository"
	{Error, []string{"^fatal:"}, lazyre.New(`^fatal: `)},
	// make: "make: *** [Makefile:12: all] Error 2"
	{Error, []string{"***"}, lazyre.New(`\*\*\* .*\bError \d+`)},
	{Error, []string{"undefined reference", "command not found", "no such file", "permission denied"},
		lazyre.New(`\bundefined reference to\b|\bcommand not found\b|\bNo such file or directory\b|\bPermission denied\b`)},

	// Failing tests: go test, unittest, pytest, cargo; ExUnit; jest and others.
	{Failure, []string{"=FAIL"}, lazyre.New(`^\s*--- FAIL\b|^FAIL\b|\bFAILED\b`)},
	// ExUnit's numbered failures: "  1) test renders the page (MyApp.PageTest)"
	{Failure, []string{") test"}, lazyre.New(`^\s*\d+\) test\b`)},
	// ✕ failing test, ● failure heading
	{Failure, []string{"^✕", "^✗", "^✘", "^×", "^●"}, lazyre.New(`^\s*(?:✕|✗|✘|×|●) `)},

	// Traces: where an error happened. A traceback's last frame and the
	// exception that ends it are found by Lines, which sees the lines around.
	{Trace, []string{"^traceback"}, lazyre.New(`^Traceback \(most recent call last\):`)},
	{Trace, []string{"^caused by: "}, lazyre.New(`^Caused by: `)},

	// Summaries: test and build results.
	{Summary, []string{"^ok", "^pass"}, lazyre.New(`^ok\s+\S|^(?:PASS|OK)\b`)},
	{Summary, []string{"=passed", "=failed", "=error", "=skipped", "=xfailed", "=xpassed", "=deselected", "=warning", "=passing", "=failing", "=pending"},
		lazyre.New(`\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|passing|failing|pending)\b`)},
	{Summary, []string{"^test result: ", "^test: ", "^tests: ", "^test suites:", "^snapshots:"},
		lazyre.New(`^test result: |^Tests?:\s+\d|^Test Suites:\s|^Snapshots:\s`)},
	{Summary, []string{"^# ", "^ℹ "}, lazyre.New(`^(?:# |ℹ )(?:tests|suites|pass|fail|cancelled|skipped|todo) \d`)},
	{Summary, []string{"^ran "}, lazyre.New(`^Ran \d+ tests? in `)},
	{Summary, []string{"tests run: "}, lazyre.New(`Tests run: \d+, Failures: \d+`)},
	{Summary, []string{"build "}, lazyre.New(`\bBUILD (?:SUCCESS(?:FUL)?|FAIL(?:ED|URE))\b`)},
	{Summary, []string{"example", "tests, ", "test, "}, lazyre.New(`^\d+ examples?, \d+ failures?|^\d+ tests?, \d+ failures?`)},
	// a count of failures on its own: "failures: 2", "Failures: 0"
	{Summary, []string{"^failure"}, lazyre.New(`(?i)^failures?:\s*\d+\s*$`)},

	// Exit codes.
	{Exit, []string{"exit"}, lazyre.New(`(?i)\bexit(?:ed)?(?: with)? (?:code|status)\b`)},
	{Exit, []string{"returncode"}, lazyre.New(`<returncode>-?\d+</returncode>`)},
}

// Lines tracks these around the rules: a Python traceback, its frames, the
// location line under a Rust compiler error, and which test go test's
// messages belong to.
var (
	goTestMessage  = lazyre.New(`^\s+[\w./-]+_test\.go:\d+: `)
	tracebackStart = lazyre.New(`^Traceback \(most recent call last\):`)
	tracebackFrame = lazyre.New(`^\s+File "`)
	compilerError  = lazyre.New(`^error(?:\[\w+\])?: `)
	rustLocation   = lazyre.New(`^\s*--> \S`)
)
