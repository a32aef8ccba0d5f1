package truncate

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// The lines that matter, in the order they claim the --keep-matches slots:
// the user's patterns, then errors, then results.
type class int

const (
	none class = iota
	userLine
	errorLine
	resultLine
)

// A rule is one pattern of lines that matter. It runs only on lines that
// hold one of its keys (in any case), found in one pass over the line: a log
// has many lines and most hold none, and Go's regexp is fast only on small
// patterns. Keys starting with ^ are looked for at the line's start, after
// its indentation; keys starting with = match in their own case only. The
// rules run in order; the first that matches classes the line.
type rule struct {
	class class
	keys  []string
	re    *regexp.Regexp
}

var rules = []rule{
	// Errors: compiler and runtime errors, failing tests, panics,
	// exceptions, assertion messages. Every one of them is kept from the
	// output of a failed call.
	// error: / Error: / ERROR: / error[E0425]: / error TS2345: / fatal error:
	{errorLine, []string{"error"}, regexp.MustCompile(`(?:^|[^\w-])(?:error|Error|ERROR)(?:\[[A-Za-z]*\d+\])?(?: [A-Z]+\d+)?:|^ERROR\b`)},
	// exceptions and errors by class name: ValueError, TypeError: x, java.io.IOException
	{errorLine, []string{"error", "exception"}, regexp.MustCompile(`\b[A-Z][A-Za-z0-9_]*(?:Error|Exception)\b`)},
	{errorLine, []string{"^caused by: "}, regexp.MustCompile(`^Caused by: `)},
	{errorLine, []string{"npm "}, regexp.MustCompile(`\bnpm (?:ERR!|error) `)},
	// go test, unittest, pytest, cargo
	{errorLine, []string{"=FAIL"}, regexp.MustCompile(`^\s*--- FAIL\b|^FAIL\b|\bFAILED\b`)},
	{errorLine, []string{"^e "}, regexp.MustCompile(`^E {2,}\S`)},
	{errorLine, []string{".go:"}, regexp.MustCompile(`^\s+[\w./-]+_test\.go:\d+: |^\S+\.go:\d+:\d+: `)},
	// panics and crashes
	{errorLine, []string{"panic"}, regexp.MustCompile(`^panic: |\bpanicked at\b`)},
	{errorLine, []string{"^fatal error"}, regexp.MustCompile(`^[Ff]atal error\b`)},
	{errorLine, []string{"segmentation fault", "core dumped", "^killed", "abort", "out of memory"},
		regexp.MustCompile(`\bSegmentation fault\b|\bcore dumped\b|^Killed\b|\bAborted\b|\bout of memory\b`)},
	{errorLine, []string{"^traceback"}, regexp.MustCompile(`^Traceback \(most recent call last\):`)},
	// assertions
	{errorLine, []string{"assert"}, regexp.MustCompile(`(?i)\bassertion\b.*\bfailed\b`)},
	{errorLine, []string{"^expect", "^receiv", "^actual", "^left", "^right"},
		regexp.MustCompile(`(?i)^\s*(?:expected|received|actual|left|right)(?: value)?\s*:\s`)},
	// ExUnit's numbered failures: "  1) test renders the page (MyApp.PageTest)"
	{errorLine, []string{") test"}, regexp.MustCompile(`^\s*\d+\) test\b`)},
	// jest and others: ✕ failing test, ● failure heading
	{errorLine, []string{"^✕", "^✗", "^✘", "^×", "^●"}, regexp.MustCompile(`^\s*(?:✕|✗|✘|×|●) `)},
	// make, linkers, shells
	{errorLine, []string{"***"}, regexp.MustCompile(`\*\*\* .*\bError \d+`)},
	{errorLine, []string{"undefined reference", "command not found", "no such file", "permission denied"},
		regexp.MustCompile(`\bundefined reference to\b|\bcommand not found\b|\bNo such file or directory\b|\bPermission denied\b`)},

	// Results: test summaries, package results, exit codes.
	{resultLine, []string{"^ok", "^pass"}, regexp.MustCompile(`^ok\s+\S|^(?:PASS|OK)\b`)},
	{resultLine, []string{"=passed", "=failed", "=error", "=skipped", "=xfailed", "=xpassed", "=deselected", "=warning", "=passing", "=failing", "=pending"},
		regexp.MustCompile(`\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|passing|failing|pending)\b`)},
	{resultLine, []string{"^test result: ", "^test: ", "^tests: ", "^test suites:", "^snapshots:"},
		regexp.MustCompile(`^test result: |^Tests?:\s+\d|^Test Suites:\s|^Snapshots:\s`)},
	{resultLine, []string{"^# ", "^ℹ "}, regexp.MustCompile(`^(?:# |ℹ )(?:tests|suites|pass|fail|cancelled|skipped|todo) \d`)},
	{resultLine, []string{"^ran "}, regexp.MustCompile(`^Ran \d+ tests? in `)},
	{resultLine, []string{"tests run: "}, regexp.MustCompile(`Tests run: \d+, Failures: \d+`)},
	{resultLine, []string{"build "}, regexp.MustCompile(`\bBUILD (?:SUCCESS(?:FUL)?|FAIL(?:ED|URE))\b`)},
	{resultLine, []string{"example", "tests, ", "test, "}, regexp.MustCompile(`^\d+ examples?, \d+ failures?|^\d+ tests?, \d+ failures?`)},
	{resultLine, []string{"exit"}, regexp.MustCompile(`(?i)\bexit(?:ed)?(?: with)? (?:code|status)\b`)},
	{resultLine, []string{"returncode"}, regexp.MustCompile(`<returncode>-?\d+</returncode>`)},
}

var (
	tracebackStart = regexp.MustCompile(`^Traceback \(most recent call last\):`)
	tracebackFrame = regexp.MustCompile(`^\s+File "`)
	compilerError  = regexp.MustCompile(`^error(?:\[\w+\])?: `)
	rustLocation   = regexp.MustCompile(`^\s*--> \S`)
)

// key is a keyword and the rules (a bit each) that it runs.
type key struct {
	text  string // lower case, unless exact
	exact bool   // match in this case only
	rules uint64
}

func (k key) at(s string) bool {
	if k.exact {
		return strings.HasPrefix(s, k.text)
	}
	return hasPrefixFold(s, k.text)
}

// keysAt lists the keys by their first byte (lower case): those looked for
// anywhere, and those looked for at the line's start.
var keysAt, startKeysAt = func() (anywhere, start [256][]key) {
	if len(rules) > 64 {
		panic("truncate: more than 64 rules")
	}
	for i, r := range rules {
		for _, k := range r.keys {
			table := &anywhere
			if strings.HasPrefix(k, "^") {
				k, table = k[1:], &start
			}
			exact := strings.HasPrefix(k, "=")
			if exact {
				k = k[1:]
			}
			list := &table[lower(k[0])]
			found := false
			for j := range *list {
				if (*list)[j].text == k && (*list)[j].exact == exact {
					(*list)[j].rules |= 1 << i
					found = true
				}
			}
			if !found {
				*list = append(*list, key{text: k, exact: exact, rules: 1 << i})
			}
		}
	}
	return anywhere, start
}()

// candidates returns the rules that a line's keywords call for.
func candidates(line string) uint64 {
	var mask uint64
	if t := strings.TrimLeft(line, " \t"); t != "" {
		for _, k := range startKeysAt[lower(t[0])] {
			if k.at(t) {
				mask |= k.rules
			}
		}
	}
	prevLetter, prevSmall := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		f := byteClass[c]
		// Keys start words: after a non-letter, or a capital after a
		// small letter (TypeError).
		start := f&keyFirst != 0 && (f&isLetterByte == 0 || !prevLetter || f&isCapital != 0 && prevSmall)
		prevLetter, prevSmall = f&isLetterByte != 0, f&isSmall != 0
		if !start || i+1 < len(line) && !keyPairs.has(lower(c), lower(line[i+1])) {
			continue
		}
		for _, k := range keysAt[lower(c)] {
			if k.at(line[i:]) {
				mask |= k.rules
			}
		}
	}
	return mask
}

// pairs is a set of two-byte prefixes (lower case).
type pairs [1 << 16 / 64]uint64

func (p *pairs) add(a, b byte) { p[(int(a)<<8|int(b))/64] |= 1 << ((int(a)<<8 | int(b)) % 64) }
func (p *pairs) has(a, b byte) bool {
	return p[(int(a)<<8|int(b))/64]&(1<<((int(a)<<8|int(b))%64)) != 0
}

// keyPairs holds the first two bytes of every key looked for anywhere: most
// word starts are not one, and are passed over without trying the keys.
var keyPairs = func() (p pairs) {
	for c := range keysAt {
		for _, k := range keysAt[c] {
			if len(k.text) >= 2 {
				p.add(lower(k.text[0]), lower(k.text[1]))
			}
		}
	}
	return p
}()

// byteClass says what a byte is, for the scan of candidates.
var byteClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= isLetterByte | isSmall
		t[c-'a'+'A'] |= isLetterByte | isCapital
	}
	for c := range keysAt {
		if len(keysAt[c]) > 0 {
			t[c] |= keyFirst
			if 'a' <= c && c <= 'z' {
				t[c-'a'+'A'] |= keyFirst
			}
		}
	}
	return t
}()

const (
	isLetterByte = 1 << iota // an ASCII letter
	isSmall                  // a small ASCII letter
	isCapital                // a capital ASCII letter
	keyFirst                 // the first byte of a key, in either case
)

// matchRules runs the rules a line calls for; the first that matches
// classes it.
func matchRules(line string) match {
	mask := candidates(line)
	for i := 0; mask != 0; i++ {
		if mask&(1<<i) == 0 {
			continue
		}
		mask &^= 1 << i
		if loc := rules[i].re.FindStringIndex(line); loc != nil {
			return match{line: line, pos: loc[0], class: rules[i].class}
		}
	}
	return match{}
}

// isErrorLine reports whether a line matches an error rule.
func isErrorLine(line string) bool { return matchRules(line).class == errorLine }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with kw (lower case) in any case.
func hasPrefixFold(s, kw string) bool {
	if len(s) < len(kw) {
		return false
	}
	for j := 0; j < len(kw); j++ {
		if lower(s[j]) != kw[j] {
			return false
		}
	}
	return true
}

// match is a line of the middle that matters.
type match struct {
	n     int    // its line number in the text
	line  string // the line, without its newline
	pos   int    // where in the line the pattern matched
	class class
}

// keptLine is a line shown under the marker: its number and text.
type keptLine struct {
	n    int
	text string
}

// keep finds the lines of the cut middle text[h:t] that matter and chooses
// those to keep: the user's first, then (for a failed call) every error
// line, then errors and results while there is room among KeepMatches. A
// class with more lines than room gives its first and last ones. A line cut
// inside by the head or tail is looked at, and kept, whole.
func (r Rules) keep(text string, h, t int) []keptLine {
	if r.KeepMatches <= 0 && !r.Failed {
		return nil
	}
	start := strings.LastIndexByte(text[:h], '\n') + 1
	end := t
	if t < len(text) && text[t-1] != '\n' {
		if nl := strings.IndexByte(text[t:], '\n'); nl >= 0 {
			end = t + nl + 1
		} else {
			end = len(text)
		}
	}
	mid, first := text[start:end], 1+strings.Count(text[:start], "\n")
	var found [4][]match
	add := func(m match) { found[m.class] = append(found[m.class], m) }
	var (
		inTraceback          bool
		frame, code          match // the last frame of the open traceback, and its source line
		afterCompilerMessage bool
	)
	closeTraceback := func() {
		if frame.line != "" {
			add(frame)
			if code.line != "" {
				add(code)
			}
		}
		inTraceback, frame, code = false, match{}, match{}
	}
	inTraceback = insideTraceback(text[:start])
	n := first
	for rest := mid; rest != ""; n++ {
		line := rest
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if inTraceback {
			if line != "" && (line[0] == ' ' || line[0] == '\t') {
				if tracebackFrame.MatchString(line) {
					frame, code = match{n: n, line: line, class: errorLine}, match{}
				} else if frame.line != "" && code.line == "" {
					code = match{n: n, line: line, class: errorLine}
				}
				continue
			}
			closeTraceback()
			if line != "" && !tracebackStart.MatchString(line) {
				// The exception that ended the traceback.
				add(match{n: n, line: line, class: errorLine})
				continue
			}
		}
		if afterCompilerMessage && rustLocation.MatchString(line) {
			add(match{n: n, line: line, class: errorLine})
			afterCompilerMessage = false
			continue
		}
		afterCompilerMessage = false
		m := r.classify(line)
		if m.class == none {
			continue
		}
		m.n = n
		add(m)
		if tracebackStart.MatchString(line) {
			inTraceback = true
		}
		afterCompilerMessage = compilerError.MatchString(line)
	}
	if inTraceback {
		closeTraceback()
	}

	var chosen []match
	chosen = append(chosen, spread(found[userLine], r.KeepMatches)...)
	if r.Failed {
		chosen = append(chosen, found[errorLine]...)
	} else {
		chosen = append(chosen, spread(found[errorLine], r.KeepMatches-len(chosen))...)
	}
	chosen = append(chosen, spread(found[resultLine], r.KeepMatches-len(chosen))...)
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].n < chosen[j].n })
	out := make([]keptLine, 0, len(chosen))
	for i, m := range chosen {
		if i > 0 && m.n == chosen[i-1].n {
			continue
		}
		out = append(out, keptLine{n: m.n, text: window(m.line, m.pos)})
	}
	return out
}

// insideTraceback reports whether head ends inside a Python traceback: its
// last lines are indented, and the line above them starts a traceback.
func insideTraceback(head string) bool {
	end := len(head)
	for end > 0 {
		start := strings.LastIndexByte(head[:end-1], '\n') + 1
		line := head[start:end]
		if line == "" || line[0] != ' ' && line[0] != '\t' {
			return tracebackStart.MatchString(line)
		}
		end = start
	}
	return false
}

// classify says whether a line matters, and where its pattern matched.
func (r Rules) classify(line string) match {
	for _, re := range r.Keep {
		if loc := re.FindStringIndex(line); loc != nil {
			return match{line: line, pos: loc[0], class: userLine}
		}
	}
	return matchRules(line)
}

// spread returns ms when it has at most room lines, else its first and last
// lines, room in all.
func spread(ms []match, room int) []match {
	if room <= 0 {
		return nil
	}
	if len(ms) <= room {
		return ms
	}
	first := (room + 1) / 2
	out := append([]match{}, ms[:first]...)
	return append(out, ms[len(ms)-(room-first):]...)
}

// window returns a line as it is kept: whole when short, else keptLineMax
// chars around where its pattern matched, with … where it was cut.
func window(line string, pos int) string {
	if utf8.RuneCountInString(line) <= keptLineMax {
		return line
	}
	// Start a little before the match, on a character boundary.
	start := pos - runeSuffix(line[:pos], keptLineMax/4)
	end := start + textfmt.RuneOffset(line[start:], keptLineMax)
	if end == len(line) {
		start = len(line) - runeSuffix(line, keptLineMax)
	}
	out := line[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}
