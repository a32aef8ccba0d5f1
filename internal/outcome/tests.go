package outcome

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// TestCounts are the counts of a test run, added up over every summary line
// of an output (runs of several packages or crates add up). Each runner's
// words are read into the same fields: passing and ok are Passed, failing
// and failures Failed, ignored, pending, todo and excluded Skipped.
type TestCounts struct {
	Tests   int // tests run, where the runner says so: "Ran 45 tests", "47 total", "120 tests"
	Passed  int
	Failed  int
	Errors  int
	Skipped int
	// Packages and PackagesFailed are go test's package lines ("ok  pkg",
	// "FAIL pkg").
	Packages, PackagesFailed int
}

// String is the counts for a summary: "47 tests, 45 passed, 2 failed; 3
// packages, 1 failed"; "" when there are none.
func (c TestCounts) String() string {
	var parts []string
	for _, f := range []struct {
		n    int
		word string
	}{{c.Tests, "tests"}, {c.Passed, "passed"}, {c.Failed, "failed"}, {c.Errors, "errors"}, {c.Skipped, "skipped"}} {
		if f.n > 0 {
			parts = append(parts, textfmt.Int(f.n)+" "+f.word)
		}
	}
	s := strings.Join(parts, ", ")
	if c.Packages > 0 {
		if s != "" {
			s += "; "
		}
		s += textfmt.Plural(c.Packages, "package", "packages")
		if c.PackagesFailed > 0 {
			s += ", " + textfmt.Int(c.PackagesFailed) + " failed"
		}
	}
	return s
}

// The summary lines of test runners, and the counts in them.
var (
	// pytest: "===== 2 failed, 45 passed in 0.12s =====", "-q": "2 failed, 45 passed in 0.12s".
	pytestLine = lazyre.New(`^=*\s*(\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, \d+ \w+)*) in [\d.]+s\b`)
	// jest: "Tests:       2 failed, 45 passed, 47 total"; vitest: "Tests  2 failed | 45 passed (47)".
	jestLine = lazyre.New(`^\s*Tests:?\s+(\d+ \w+(?:(?:, | \| )\d+ \w+)*)`)
	// cargo: "test result: ok. 45 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; …"
	cargoLine = lazyre.New(`^test result: \w+\. (\d+ passed; \d+ failed; \d+ ignored)`)
	// ExUnit: "12 doctests, 120 tests, 2 failures, 1 skipped", "120 tests, 0 failures (3 excluded)".
	exunitLine = lazyre.New(`^((?:\d+ doctests?, )?(?:\d+ properties, )?\d+ tests?, \d+ failures?(?:, \d+ \w+)*(?: \(\d+ excluded\))?)`)
	// mocha: "45 passing (2s)", "2 failing", "1 pending".
	mochaLine = lazyre.New(`^\s*(\d+ (?:passing|failing|pending))\b`)
	// unittest and Django: "Ran 45 tests in 0.123s", then "OK", "OK (skipped=3)" or "FAILED (failures=2, errors=1)".
	unittestRan    = lazyre.New(`^Ran (\d+) tests? in `)
	unittestResult = lazyre.New(`^(?:OK|FAILED) \(((?:\w+=\d+(?:, )?)+)\)$`)
	// go test: "ok  	pkg	0.01s", "FAIL	pkg	0.01s", "--- PASS: TestX", "--- FAIL: TestX", "--- SKIP: TestX".
	goPkg  = lazyre.New(`^(ok|FAIL)\s+\S+\s`)
	goTest = lazyre.New(`^\s*--- (PASS|FAIL|SKIP): `)
	// a count and its word: "45 passed", "failures=2"
	countWord = lazyre.New(`(\d+) ([a-z]+)|([a-z]+)=(\d+)`)
)

// field returns the count a runner's word adds to, or nil for words that
// are not counted (warnings, doctests, measured, xfailed...).
func (c *TestCounts) field(word string) *int {
	switch word {
	case "tests", "test", "total":
		return &c.Tests
	case "passed", "passing":
		return &c.Passed
	case "failed", "failing", "failures", "failure":
		return &c.Failed
	case "errors", "error":
		return &c.Errors
	case "skipped", "skip", "ignored", "pending", "todo", "excluded":
		return &c.Skipped
	}
	return nil
}

// addLine adds every "N word" and "word=N" of a summary line.
func (c *TestCounts) addLine(s string) {
	for _, m := range countWord.FindAllStringSubmatch(s, -1) {
		word, num := m[2], m[1]
		if num == "" {
			word, num = m[3], m[4]
		}
		if f := c.field(word); f != nil {
			n, _ := strconv.Atoi(num)
			*f += n
		}
	}
}

// maySummarizeTests reports whether a line can be one of the summary lines
// above, by its first character and a digit in it: most lines of an output
// are not, and are spared the expressions.
func maySummarizeTests(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t != "" && strings.IndexByte("=0123456789TtROFo-", t[0]) >= 0 && strings.ContainsAny(t, "0123456789")
}

// Tests reads the counts of a test run from an output: pytest, go test,
// cargo test, jest and vitest, mocha, ExUnit, unittest and Django.
func Tests(text string) TestCounts {
	var c TestCounts
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if !maySummarizeTests(line) {
			continue
		}
		c.readLine(line)
	}
	return c
}

// readLine adds what one line reports.
func (c *TestCounts) readLine(line string) {
	for _, re := range []*lazyre.Regexp{pytestLine, jestLine, cargoLine, exunitLine, mochaLine, unittestResult} {
		if m := re.FindStringSubmatch(line); m != nil {
			c.addLine(m[1])
			return
		}
	}
	if m := unittestRan.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		c.Tests += n
	} else if m := goTest.FindStringSubmatch(line); m != nil {
		*c.field(map[string]string{"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[m[1]])++
	} else if m := goPkg.FindStringSubmatch(line); m != nil {
		c.Packages++
		if m[1] == "FAIL" {
			c.PackagesFailed++
		}
	}
}
