package outcome

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lineKinds is the table's test: a line and what it says. Every rule of
// rules.go classes at least one of these lines (TestEveryRuleHasALine), and
// the lines that the filters once disagreed on are here (the first group).
var lineKinds = []struct {
	Text string
	Kind Kind
}{
	// Lines on which ctx-truncate and ctx-summarize once gave different
	// verdicts.
	{"fatal: not a git repository (or any of the parent directories): .git", Error},
	{"failures: 2", Summary},
	{"npm ERR! missing script: test", Error},
	{"Segmentation fault (core dumped)", Crash},
	{"bash: line 1: pytest: command not found", Error},
	{"E       assert 1 == 2", Assertion},
	{"2 failed, 3 passed", Summary},
	{"FAIL\texample.com/pkg\t0.1s", Failure},

	// Errors.
	{"Error: boom", Error},
	{"error[E0308]: mismatched types", Error},
	{"src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.", Error},
	{"ERROR: Could not find a version that satisfies the requirement foo", Error},
	{"ERROR", Error},
	{"ModuleNotFoundError: No module named 'requests'", Error},
	{"java.lang.NullPointerException", Error},
	{"     ** (RuntimeError) no key", Error},
	{"./main.go:12:5: undefined: foo", Error},
	{"npm error code E404", Error},
	{"make: *** [Makefile:12: all] Error 2", Error},
	{"ld: undefined reference to `main'", Error},
	{"cat: missing.txt: No such file or directory", Error},
	{"rg: src/nope: No such file or directory (os error 2)", Error},
	{"bash: ./run.sh: Permission denied", Error},

	// Failing tests.
	{"--- FAIL: TestMul (0.00s)", Failure},
	{"    --- FAIL: TestMul/case_007 (0.00s)", Failure},
	{"FAILED tests/test_a.py::test_b - assert 1 == 2", Failure},
	{"FAIL", Failure},
	{"  1) test renders the page (MyApp.PageTest)", Failure},
	{"  ✕ adds numbers (3 ms)", Failure},
	{"  ● Calculator › adds numbers", Failure},

	// Assertions.
	{"AssertionError: expected 3, got 4", Assertion},
	{"Assertion `x > 0' failed.", Assertion},
	{"    Expected: 3", Assertion},
	{"Received: 4", Assertion},
	{"  left: `1`,", Assertion},
	{"    calc_test.go:22: Mul(7, 3) = 22, want 21", Assertion},

	// Crashes.
	{"panic: runtime error: index out of range [3] with length 3", Crash},
	{"thread 'main' panicked at src/main.rs:4:5:", Crash},
	{"fatal error: all goroutines are asleep - deadlock!", Crash},
	{"Killed", Crash},
	{"Aborted (core dumped)", Crash},
	{"java.lang.OutOfMemoryError: Java heap space", Error},
	{"FATAL: out of memory", Crash},

	// Traces.
	{"Traceback (most recent call last):", Trace},
	{"Caused by: java.io.IOException: broken pipe", Trace},

	// Summaries.
	{"ok  \texample.com/pkg\t0.1s", Summary},
	{"PASS", Summary},
	{"OK (skipped=3)", Summary},
	{"0 failed, 3 passed", Summary},
	{"=========== 1 failed, 45 passed, 2 warnings in 0.12s ===========", Summary},
	{"  45 passing (2s)", Summary},
	{"test result: ok. 45 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out", Summary},
	{"Tests:       2 failed, 45 passed, 47 total", Summary},
	{"Test Suites: 1 failed, 3 passed, 4 total", Summary},
	{"Snapshots:   0 total", Summary},
	{"# tests 12", Summary},
	{"ℹ pass 11", Summary},
	{"Ran 45 tests in 0.123s", Summary},
	{"Tests run: 12, Failures: 1, Errors: 0, Skipped: 0", Summary},
	{"[INFO] BUILD SUCCESS", Summary},
	{"12 examples, 0 failures", Summary},
	{"43 tests, 0 failures", Summary},
	{"Tests: 0 failures", Summary},
	{"Failures: 0", Summary},

	// Exit codes.
	{"exit status 1", Exit},
	{"Process exited with code 2", Exit},
	{"Exit code 1", Exit},
	{"<returncode>1</returncode>", Exit},

	// Lines that do not matter.
	{"stderr redirected", None},
	{"terrors of the deep", None},
	{"all good", None},
	{"error handling is covered in docs/errors.md", None},
	{"the failure mode is documented", None},
	{"Compiling 3 files (.ex)", None},
	{"", None},
}

func TestClassify(t *testing.T) {
	for _, c := range lineKinds {
		k, ok := Classify(c.Text)
		if k != c.Kind || ok != (c.Kind != None) {
			t.Errorf("Classify(%q) = %v, %v; want %v", c.Text, k, ok, c.Kind)
		}
	}
}

// TestEveryRuleHasALine: each row of the table classes one of the lines of
// lineKinds, so that a rule cannot go untested or dead.
func TestEveryRuleHasALine(t *testing.T) {
	used := make([]bool, len(rules))
	for _, c := range lineKinds {
		if i, _ := ruleOf(c.Text); i >= 0 {
			used[i] = true
		}
	}
	for i, u := range used {
		if !u {
			t.Errorf("rule %d (%v, %s) classes none of the test lines", i, rules[i].kind, rules[i].re)
		}
	}
}

func TestKindIsError(t *testing.T) {
	var errs []Kind
	for k := None; k <= Exit; k++ {
		if k.IsError() {
			errs = append(errs, k)
		}
	}
	if want := []Kind{Error, Failure, Assertion, Crash, Trace}; !slices.Equal(errs, want) {
		t.Errorf("error kinds %v, want %v", errs, want)
	}
}

func TestLines(t *testing.T) {
	text := strings.Join([]string{
		"collected 3 items",                   // 1
		"Traceback (most recent call last):",  // 2
		`  File "a.py", line 3, in <module>`,  // 3
		"    main()",                          // 4
		`  File "a.py", line 2, in main`,      // 5
		"    raise ValueError('bad')",         // 6
		"ValueError: bad",                     // 7
		"error[E0425]: cannot find value `x`", // 8
		" --> src/main.rs:2:13",               // 9
		"  |",                                 // 10
		"--- FAIL: TestX (0.00s)\r",           // 11
		"Traceback (most recent call last):",  // 12
		`  File "b.py", line 1, in <module>`,  // 13
		"    import nope",                     // 14
	}, "\n")
	type got struct {
		n    int
		kind Kind
		text string
	}
	var lines []got
	for l := range Lines(text) {
		if !strings.HasPrefix(text[l.Start:], l.Text) {
			t.Errorf("line %d: Start %d does not start %q", l.N, l.Start, l.Text)
		}
		lines = append(lines, got{l.N, l.Kind, l.Text})
	}
	want := []got{
		{2, Trace, "Traceback (most recent call last):"},
		{5, Trace, `  File "a.py", line 2, in main`},
		{6, Trace, "    raise ValueError('bad')"},
		{7, Error, "ValueError: bad"},
		{8, Error, "error[E0425]: cannot find value `x`"},
		{9, Trace, " --> src/main.rs:2:13"},
		{11, Failure, "--- FAIL: TestX (0.00s)"},
		{12, Trace, "Traceback (most recent call last):"},
		{13, Trace, `  File "b.py", line 1, in <module>`},
		{14, Trace, "    import nope"},
	}
	if !slices.Equal(lines, want) {
		t.Errorf("Lines:\n got %v\nwant %v", lines, want)
	}
	// A caller may stop early.
	n := 0
	for range Lines(text) {
		n++
		if n == 3 {
			break
		}
	}
}

// linesFrom is LinesFrom, checked against Lines: the same lines, those
// that start at from or after.
func checkLinesFrom(t *testing.T, s string, from int) {
	t.Helper()
	var want, got []Line
	for l := range Lines(s) {
		if l.Start >= from {
			want = append(want, l)
		}
	}
	for l := range LinesFrom(s, from) {
		got = append(got, l)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("LinesFrom(%q, %d):\n got %+v\nwant %+v", s, from, got, want)
	}
}

func TestLinesFrom(t *testing.T) {
	text := "Traceback (most recent call last):\n  File \"a.py\", line 1\n    f()\nValueError: x\n=== RUN   TestA\n    a_test.go:3: log\n--- PASS: TestA\nerror[E1]: e\n --> a.rs:1:1\nok  \tpkg\t0.1s\n"
	for from := 0; from <= len(text); from++ {
		checkLinesFrom(t, text, from)
	}
}

func FuzzLines(f *testing.F) {
	for _, c := range lineKinds {
		f.Add(c.Text + "\n" + c.Text)
	}
	f.Add("Traceback (most recent call last):\n  File \"x\"\n    y\nE: z\n")
	f.Fuzz(func(t *testing.T, s string) {
		last := 0
		for l := range Lines(s) {
			if l.N <= last {
				t.Fatalf("line %d after line %d", l.N, last)
			}
			last = l.N
			if l.Kind == None || l.Start < 0 || l.Start > len(s) || !strings.HasPrefix(s[l.Start:], l.Text) ||
				strings.Contains(l.Text, "\n") || l.At < 0 || l.At > len(l.Text) {
				t.Fatalf("bad line %+v", l)
			}
		}
		checkLinesFrom(t, s, len(s)/3)
	})
}

// TestGoTestMessages: go test -v prints t.Log and t.Errorf alike; a
// message is an Assertion unless its test then passes. Without -v (no ===
// RUN lines) every message is one.
func TestGoTestMessages(t *testing.T) {
	verbose := strings.Join([]string{
		"=== RUN   TestA",
		"=== RUN   TestA/x",
		"    a_test.go:5: connected in 3ms", // TestA/x passes: a log
		"=== RUN   TestA/y",
		"    a_test.go:9: got 1, want 2", // TestA/y fails
		"=== RUN   TestB",
		"    b_test.go:3: skipping on linux", // TestB is skipped
		"--- SKIP: TestB (0.00s)",
		"=== RUN   TestC",
		"    c_test.go:7: never settled", // TestC's verdict is not in the text
		"--- FAIL: TestA (0.00s)",
		"    --- PASS: TestA/x (0.00s)",
		"    --- FAIL: TestA/y (0.00s)",
	}, "\n")
	quiet := "--- FAIL: TestY (0.00s)\n    y_test.go:22: got 1, want 2\nFAIL\n"
	for _, c := range []struct {
		text string
		want []string
	}{
		{verbose, []string{"    a_test.go:9: got 1, want 2", "    c_test.go:7: never settled", "--- FAIL: TestA (0.00s)", "    --- FAIL: TestA/y (0.00s)"}},
		{quiet, []string{"--- FAIL: TestY (0.00s)", "    y_test.go:22: got 1, want 2", "FAIL"}},
	} {
		var got []string
		last := 0
		for l := range Lines(c.text) {
			if l.N <= last {
				t.Errorf("line %d after line %d", l.N, last)
			}
			last = l.N
			got = append(got, l.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Lines:\n got %q\nwant %q", got, c.want)
		}
	}
}

func TestErrorLines(t *testing.T) {
	text := "ok 1\nError: a\n--- FAIL: TestX (0.00s)\nError: b\nError: a\nPASS\n"
	var got []string
	for _, l := range ErrorLines(text) {
		got = append(got, fmt.Sprintf("%d:%s", l.N, l.Text))
	}
	want := "3:--- FAIL: TestX (0.00s) 4:Error: b 5:Error: a"
	if strings.Join(got, " ") != want {
		t.Errorf("ErrorLines = %q, want %q", strings.Join(got, " "), want)
	}
	if ErrorLines("all good\nPASS\n") != nil {
		t.Error("error lines in a passing run")
	}
}
