package truncate

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
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

// errorPattern finds the lines that carry a failure: compiler and runtime
// errors, failing tests, panics, exceptions and assertion messages. Every
// one of them is kept from the output of a failed call.
var errorPattern = regexp.MustCompile(strings.Join([]string{
	// error: / Error: / ERROR: / error[E0425]: / error TS2345: / fatal error:
	`(?:^|[^\w-])(?:error|Error|ERROR)(?:\[[A-Za-z]*\d+\])?(?: [A-Z]+\d+)?:`,
	// exceptions and errors by class name: ValueError, TypeError: x, java.io.IOException
	`\b[A-Z][A-Za-z0-9_]*(?:Error|Exception)\b`,
	`^Caused by: `,
	`\bnpm (?:ERR!|error) `,
	// go test, unittest, pytest, cargo
	`^\s*--- FAIL\b`, `^FAIL\b`, `\bFAILED\b`, `^ERROR\b`, `^E {2,}\S`,
	`^\s+[\w./-]+_test\.go:\d+: `,
	// panics and crashes
	`^panic: `, `\bpanicked at\b`, `^fatal error: `, `^Fatal error\b`, `\bSegmentation fault\b`,
	`\bcore dumped\b`, `^Killed\b`, `\bAborted\b`, `\bout of memory\b`,
	`^Traceback \(most recent call last\):`,
	// assertions
	`(?i)\bassertion\b.*\bfailed\b`, `(?i)^\s*(?:expected|received|actual|left|right)(?: value)?\s*:\s`,
	// ExUnit's numbered failures: "  1) test renders the page (MyApp.PageTest)"
	`^\s*\d+\) test\b`,
	`^\s*(?:✕|✗|✘|×) `, `^\s*● `,
	// compilers and shells: go's file:line:col, make, missing things
	`^\S+\.go:\d+:\d+: `, `\*\*\* .*\bError \d+`, `\bundefined reference to\b`,
	`\bcommand not found\b`, `\bNo such file or directory\b`, `\bPermission denied\b`,
}, "|"))

// resultPattern finds test summaries, package results and exit codes.
var resultPattern = regexp.MustCompile(strings.Join([]string{
	`^ok\s+\S`, `^(?:PASS|OK)\b`,
	`\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|passing|failing|pending)\b`,
	`^test result: `, `^Tests?:\s+\d`, `^Test Suites:\s`, `^Snapshots:\s`,
	`^(?:# |ℹ )(?:tests|suites|pass|fail|cancelled|skipped|todo) \d`,
	`^Ran \d+ tests? in `, `Tests run: \d+, Failures: \d+`, `\bBUILD (?:SUCCESS(?:FUL)?|FAIL(?:ED|URE))\b`,
	`^\d+ examples?, \d+ failures?`, `^\d+ tests?, \d+ failures?`,
	`(?i)\bexit(?:ed)?(?: with)? (?:code|status)\b`, `<returncode>-?\d+</returncode>`,
}, "|"))

var (
	tracebackStart = regexp.MustCompile(`^Traceback \(most recent call last\):`)
	tracebackFrame = regexp.MustCompile(`^\s+File "`)
	compilerError  = regexp.MustCompile(`^error(?:\[\w+\])?: `)
	rustLocation   = regexp.MustCompile(`^\s*--> \S`)
)

// keywords are what a line must hold (in any case) before the patterns run
// on it: the patterns are many, and most lines of a log hold none of these.
// Each is looked for where its first letter is.
var keywords = map[byte][]string{
	'a': {"assert", "abort", "actual"},
	'b': {"build"},
	'c': {"caused", "core dumped"},
	'd': {"denied", "deselected"},
	'e': {"err", "exit", "exception", "expect", "example"},
	'f': {"fail", "fatal"},
	'k': {"killed"},
	'l': {"left"},
	'n': {"not found", "no such", "npm "},
	'o': {"out of memory"},
	'p': {"panic", "pass", "pending"},
	'r': {"ran ", "receive", "returncode", "right"},
	's': {"segmentation", "skipped", "snapshots"},
	't': {"test r", "tests", "test s", "traceback"},
	'u': {"undefined"},
	'w': {"warning"},
	'.': {".go:"},
	'*': {"***"},
}

// candidate reports whether a line may match the patterns.
func candidate(line string) bool {
	if len(line) >= 2 {
		switch {
		case (line[0] == 'E' && line[1] == ' ') || (line[0]|0x20 == 'o' && line[1]|0x20 == 'k') || (line[0] == '#' && line[1] == ' '):
			return true
		}
	}
	if t := strings.TrimLeft(line, " \t"); t != "" && '0' <= t[0] && t[0] <= '9' && strings.Contains(t[:min(len(t), 12)], ") test") {
		return true
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c >= utf8.RuneSelf {
			// ✕ ✗ ✘ ● ℹ (E2 …) and × (C3 97).
			if c == 0xE2 || c == 0xC3 {
				return true
			}
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		for _, kw := range keywords[c] {
			if hasPrefixFold(line[i:], kw) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with kw (lower case) in any case.
func hasPrefixFold(s, kw string) bool {
	if len(s) < len(kw) {
		return false
	}
	for j := 0; j < len(kw); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[j] {
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
	if !candidate(line) {
		return match{}
	}
	if loc := errorPattern.FindStringIndex(line); loc != nil {
		return match{line: line, pos: loc[0], class: errorLine}
	}
	if loc := resultPattern.FindStringIndex(line); loc != nil {
		return match{line: line, pos: loc[0], class: resultLine}
	}
	return match{}
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
	end := start + runePrefix(line[start:], keptLineMax)
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
