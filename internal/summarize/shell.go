package summarize

import (
	"regexp"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

const (
	shellTail   = 3 // last lines kept of a command's output
	shellErrors = 5 // error lines kept, the last ones
)

// shell keeps a command's key numbers (test counts), its last error lines
// and its last lines. The command and how it ended are on the marker line.
func shell(o output) ([]string, string, bool) {
	total := countLines(o.body)
	errs := errorLines(o.body, shellErrors)
	last := tail(o.body, shellTail, total)
	kept := merge(errs, last)
	shown := "the last " + plural(len(last), "line", "lines") + " shown"
	if n := len(kept) - len(last); n > 0 {
		shown = plural(n, "error line", "error lines") + " and " + shown
	}
	tests := testNumbers(o.body)
	o.must.facts = append(o.must.facts, tests)
	for _, e := range errs {
		o.must.errors = append(o.must.errors, e.text)
	}
	return []string{tests, size(o.body) + ", " + shown}, excerpt(o.body, total, kept), true
}

// errorLines returns the last n distinct lines that report an error or a
// failure: a message repeated for every failed test is kept once, where it
// last appears.
func errorLines(body string, n int) []piece {
	var out []piece
	eachLine(body, func(i int, line string) bool {
		if !isErrorLine(line) {
			return true
		}
		for j, p := range out {
			if p.text == line {
				out = append(out[:j], out[j+1:]...)
				break
			}
		}
		if len(out) == n {
			out = out[1:]
		}
		out = append(out, piece{i, line})
		return true
	})
	return out
}

// errorWords start the words that mark an error line, lower-cased.
var errorWords = []string{"error", "fail", "panic", "exception", "fatal", "traceback"}

// isErrorLine reports whether a line reports an error: it holds a word, or
// the capitalised part of a word, starting with one of errorWords, in any
// case ("Error:", "FAILED", "--- FAIL", "panic:", "RuntimeError",
// "NullPointerException"). Lines that only count failures ("0 failed",
// "0 errors") are not error lines.
func isErrorLine(line string) bool {
	for i := 0; i < len(line); i++ {
		c := line[i] | 0x20 // lower case for letters
		if c < 'a' || c > 'z' || i > 0 && isWordByte(line[i-1]) && !isCamelStart(line, i) {
			continue
		}
		for _, w := range errorWords {
			if len(line)-i >= len(w) && strings.EqualFold(line[i:i+len(w)], w) && !countsZero(line[:i]) {
				return true
			}
		}
	}
	return false
}

// isCamelStart reports whether line[i] starts the capitalised part of a
// word: an upper-case letter after a lower-case one.
func isCamelStart(line string, i int) bool {
	return line[i] >= 'A' && line[i] <= 'Z' && line[i-1] >= 'a' && line[i-1] <= 'z'
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// countsZero reports whether the text before a word ends with the count 0,
// as in "0 failed" or "failures=0"-free summaries.
func countsZero(before string) bool {
	before = strings.TrimRight(before, " ")
	return strings.HasSuffix(before, " 0") || before == "0"
}

// The summary lines of test runners, and the counts in them.
var (
	// pytest: "===== 2 failed, 45 passed in 0.12s =====", "-q": "2 failed, 45 passed in 0.12s".
	pytestLine = regexp.MustCompile(`^=*\s*(\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, \d+ \w+)*) in [\d.]+s\b`)
	// jest: "Tests:       2 failed, 45 passed, 47 total"; vitest: "Tests  2 failed | 45 passed (47)".
	jestLine = regexp.MustCompile(`^\s*Tests:?\s+(\d+ \w+(?:(?:, | \| )\d+ \w+)*)`)
	// cargo: "test result: ok. 45 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; …"
	cargoLine = regexp.MustCompile(`^test result: \w+\. (\d+ passed; \d+ failed; \d+ ignored)`)
	// ExUnit: "12 doctests, 120 tests, 2 failures, 1 skipped", "120 tests, 0 failures (3 excluded)".
	exunitLine = regexp.MustCompile(`^((?:\d+ doctests?, )?(?:\d+ properties, )?\d+ tests?, \d+ failures?(?:, \d+ \w+)*)`)
	// mocha: "45 passing (2s)", "2 failing", "1 pending".
	mochaLine = regexp.MustCompile(`^\s*(\d+ (?:passing|failing|pending))\b`)
	// unittest and Django: "Ran 45 tests in 0.123s", then "OK", "OK (skipped=3)" or "FAILED (failures=2, errors=1)".
	unittestRan    = regexp.MustCompile(`^Ran (\d+) tests? in `)
	unittestResult = regexp.MustCompile(`^(?:OK|FAILED) \(((?:\w+=\d+(?:, )?)+)\)$`)
	// go test: "ok  	pkg	0.01s", "FAIL	pkg	0.01s", "--- PASS: TestX", "--- FAIL: TestX", "--- SKIP: TestX".
	goPkg  = regexp.MustCompile(`^(ok|FAIL)\s+\S+\s`)
	goTest = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): `)
	// a count and its word: "45 passed", "failures=2"
	countWord = regexp.MustCompile(`(\d+) ([a-z]+(?: out)?)|([a-z]+)=(\d+)`)
)

// tally adds counts by word, in the order the words are first seen.
type tally struct {
	words  []string
	counts map[string]int
}

func (t *tally) add(word string, n int) {
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	if _, ok := t.counts[word]; !ok {
		t.words = append(t.words, word)
	}
	t.counts[word] += n
}

// addLine adds every "N word" and "word=N" of a summary line.
func (t *tally) addLine(s string) {
	for _, m := range countWord.FindAllStringSubmatch(s, -1) {
		if m[1] != "" {
			t.add(m[2], atoi(m[1]))
		} else {
			t.add(m[3], atoi(m[4]))
		}
	}
}

func (t *tally) String() string {
	parts := make([]string, len(t.words))
	for i, w := range t.words {
		parts[i] = textfmt.Int(t.counts[w]) + " " + w
	}
	return strings.Join(parts, ", ")
}

// maySummarizeTests reports whether a line can be one of the summary lines
// below, by its first character and a digit in it: most lines of an output
// are not, and are spared the expressions.
func maySummarizeTests(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t != "" && strings.IndexByte("=0123456789TtROFo-", t[0]) >= 0 && strings.ContainsAny(t, "0123456789")
}

// testNumbers finds the counts of a test run in a command's output: pytest,
// go test, cargo test, jest and vitest, mocha, ExUnit, unittest and
// Django. "" when there are none. Runs of several packages or crates are
// added up.
func testNumbers(body string) string {
	var t, goPkgs, goTests tally
	eachLine(body, func(_ int, line string) bool {
		if !maySummarizeTests(line) {
			return true
		}
		for _, re := range []*regexp.Regexp{pytestLine, jestLine, cargoLine, exunitLine, mochaLine, unittestResult} {
			if m := re.FindStringSubmatch(line); m != nil {
				t.addLine(m[1])
				return true
			}
		}
		if m := unittestRan.FindStringSubmatch(line); m != nil {
			t.add("tests", atoi(m[1]))
		} else if m := goTest.FindStringSubmatch(line); m != nil {
			goTests.add(map[string]string{"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[m[1]], 1)
		} else if m := goPkg.FindStringSubmatch(line); m != nil {
			goPkgs.add(map[string]string{"ok": "packages ok", "FAIL": "packages failed"}[m[1]], 1)
		}
		return true
	})
	var parts []string
	for _, x := range []*tally{&t, &goTests, &goPkgs} {
		if s := x.String(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}
