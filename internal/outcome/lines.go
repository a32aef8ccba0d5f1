package outcome

import (
	"iter"
	"strings"
)

// Kind is what a line that matters says.
type Kind uint8

// The kinds of lines, from the table in rules.go.
const (
	None      Kind = iota // an ordinary line
	Error                 // an error message: a compiler's, a runtime's, an exception, a shell's, git's, npm's
	Failure               // a failing test: --- FAIL, FAILED, ✕, ExUnit's "1) test"
	Assertion             // what an assertion compared: AssertionError, expected:/actual:, pytest's E lines
	Crash                 // a panic, a fatal runtime error, a signal: segmentation fault, Killed, out of memory
	Trace                 // where it happened: a traceback's start, last frame and source line; Caused by; Rust's -->
	Summary               // a test or build summary: "2 failed, 45 passed", "ok pkg", "BUILD FAILED"
	Exit                  // an exit status: "exit status 1", "Process exited with code 2", <returncode>
)

var kindNames = [...]string{"none", "error", "failure", "assertion", "crash", "trace", "summary", "exit"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "none"
}

// IsError reports whether lines of this kind say what went wrong (Error,
// Failure, Assertion, Crash, Trace), as opposed to a summary or an exit
// status, which report how a run ended whether it went well or not. These
// are the lines a failed call's output must keep.
func (k Kind) IsError() bool { return k >= Error && k <= Trace }

// Line is a line that matters.
type Line struct {
	N     int    // its 1-based number in the text
	Start int    // the byte offset where it starts
	Text  string // the line, without its newline (and carriage return)
	Kind  Kind
	At    int // the byte offset in Text where its wording was found; 0 for a line found by its context
}

// Classify says what one line is, by the table alone: without the lines
// around it, a traceback's frames are not told apart (Lines does that).
func Classify(line string) (Kind, bool) {
	k, _ := classify(line)
	return k, k != None
}

// classify runs the rules the line's keywords call for; the first that
// matches classes it, and gives where.
func classify(line string) (Kind, int) {
	i, at := ruleOf(line)
	if i < 0 {
		return None, 0
	}
	return rules[i].kind, at
}

// ruleOf returns the index of the rule that classes line and where its
// pattern matched, or -1.
func ruleOf(line string) (int, int) {
	mask := candidates(line)
	for i := 0; mask != 0; i++ {
		if mask&(1<<i) == 0 {
			continue
		}
		mask &^= 1 << i
		if loc := rules[i].re.FindStringIndex(line); loc != nil {
			return i, loc[0]
		}
	}
	return -1, 0
}

// Lines yields the lines of text that matter, in order. Beyond the table it
// follows the lines around: in a Python traceback the frames are passed
// over and the last one and its source line are yielded when the traceback
// ends, with the exception line that ends it (an Error); the location line
// under a Rust compiler error is a Trace; and a message of go test -v
// ("    x_test.go:12: …") is an Assertion unless the test it was printed
// in then passes: t.Log prints the same way as t.Errorf.
func Lines(text string) iter.Seq[Line] { return LinesFrom(text, 0) }

// LinesFrom is Lines for the lines that start at or after byte from: those
// before it are read only for the context they give (a traceback that
// started there, the go test that runs), which costs less than finding the
// lines that matter.
func LinesFrom(text string, from int) iter.Seq[Line] {
	return func(yield func(Line) bool) {
		var (
			e                    emitter
			inTraceback          bool
			frame, code          Line // the last frame of the open traceback, and its source line
			afterCompilerMessage bool
			test                 string // the go test that runs, from its === RUN line
		)
		e.yield, e.from = yield, from
		closeTraceback := func() {
			if frame.Kind != None {
				e.emit(frame, "")
				if code.Kind != None {
					e.emit(code, "")
				}
			}
			inTraceback, frame, code = false, Line{}, Line{}
		}
		n, off := 0, 0
		for rest := text; rest != "" && !e.stopped; {
			line, start := rest, off
			if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
				line, rest, off = rest[:nl], rest[nl+1:], off+nl+1
			} else {
				rest, off = "", len(text)
			}
			line = strings.TrimSuffix(line, "\r")
			n++
			if inTraceback {
				if line != "" && (line[0] == ' ' || line[0] == '\t') {
					if tracebackFrame.MatchString(line) {
						frame, code = Line{N: n, Start: start, Text: line, Kind: Trace}, Line{}
					} else if frame.Kind != None && code.Kind == None {
						code = Line{N: n, Start: start, Text: line, Kind: Trace}
					}
					continue
				}
				closeTraceback()
				if line != "" && !tracebackStart.MatchString(line) {
					// The exception that ended the traceback.
					e.emit(Line{N: n, Start: start, Text: line, Kind: Error}, "")
					continue
				}
			}
			if afterCompilerMessage && rustLocation.MatchString(line) {
				afterCompilerMessage = false
				e.emit(Line{N: n, Start: start, Text: line, Kind: Trace}, "")
				continue
			}
			afterCompilerMessage = false
			if name, ok := goTestStart(line); ok {
				test = name
			}
			if start < from {
				// Context only: what opens a traceback or a compiler message.
				inTraceback = strings.HasPrefix(line, "Traceback") && tracebackStart.MatchString(line)
				afterCompilerMessage = strings.HasPrefix(line, "error") && compilerError.MatchString(line)
				continue
			}
			k, at := classify(line)
			if k != None {
				held := ""
				if k == Assertion && test != "" && goTestMessage.MatchString(line) {
					held = test
				}
				e.emit(Line{N: n, Start: start, Text: line, Kind: k, At: at}, held)
				inTraceback = tracebackStart.MatchString(line)
				afterCompilerMessage = compilerError.MatchString(line)
			}
			if len(e.held) > 0 {
				if name, failed, ok := goTestEnd(line); ok {
					e.verdict(name, failed)
				}
			}
		}
		if inTraceback {
			closeTraceback()
		}
		e.flush(true)
	}
}

// goTestStart reads go test -v's "=== RUN   TestX" and "=== CONT  TestX":
// the test that prints next.
func goTestStart(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "=== ")
	if !ok {
		return "", false
	}
	for _, w := range []string{"RUN ", "CONT "} {
		if name, ok := strings.CutPrefix(rest, w); ok {
			name, _, _ = strings.Cut(strings.TrimLeft(name, " \t"), " ")
			return name, name != ""
		}
	}
	return "", false
}

// goTestEnd reads go test's "--- PASS: TestX (0.00s)" (or FAIL, SKIP),
// indented for a subtest: the test that ended, and whether it failed.
func goTestEnd(line string) (name string, failed, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), "--- ")
	if !ok {
		return "", false, false
	}
	for _, v := range []string{"PASS: ", "FAIL: ", "SKIP: "} {
		if name, ok := strings.CutPrefix(rest, v); ok {
			name, _, _ = strings.Cut(name, " ")
			return name, v == "FAIL: ", name != ""
		}
	}
	return "", false, false
}

// emitter yields lines in order, holding go test's messages (and the lines
// after them) until the test they were printed in ends: a message of a test
// that passes is dropped.
type emitter struct {
	yield   func(Line) bool
	from    int // lines that start before it are not yielded
	stopped bool
	held    []heldLine     // in order; the first is a message that awaits its verdict
	waiting map[string]int // how many held messages await each test's verdict
}

type heldLine struct {
	Line
	test string // the test whose verdict it awaits; "" when it has none
}

// maxHeld bounds what waits for a verdict: past it the held lines are
// yielded, as if their tests had failed.
const maxHeld = 1000

func (e *emitter) emit(l Line, test string) {
	if e.stopped || l.Start < e.from {
		return
	}
	if len(e.held) == 0 && test == "" {
		e.stopped = !e.yield(l)
		return
	}
	e.held = append(e.held, heldLine{l, test})
	if test != "" {
		if e.waiting == nil {
			e.waiting = map[string]int{}
		}
		e.waiting[test]++
	}
	if len(e.held) > maxHeld {
		e.flush(true)
	}
}

// verdict settles the held messages of a test: dropped when it passed or
// was skipped, yielded when it failed.
func (e *emitter) verdict(test string, failed bool) {
	if e.waiting[test] == 0 {
		return
	}
	delete(e.waiting, test)
	kept := e.held[:0]
	for _, h := range e.held {
		switch {
		case h.test != test:
			kept = append(kept, h)
		case failed:
			h.test = ""
			kept = append(kept, h)
		}
	}
	e.held = kept
	e.flush(false)
}

// flush yields the held lines up to the first that still awaits a verdict,
// or all of them.
func (e *emitter) flush(all bool) {
	if all {
		clear(e.waiting)
	}
	i := 0
	for ; i < len(e.held) && !e.stopped && (all || e.held[i].test == ""); i++ {
		e.stopped = !e.yield(e.held[i].Line)
	}
	e.held = e.held[:copy(e.held, e.held[i:])]
}

// The keys of the rules, found in one pass over a line.

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
		panic("outcome: more than 64 rules")
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

// ErrorLines returns the distinct lines of text that say what went wrong
// (Kind.IsError), each once, where it last appears, in order: a message
// repeated for every failed test is one error line.
func ErrorLines(text string) []Line {
	var out []Line
	at := map[string]int{} // a line's text, and where it is in out
	for l := range Lines(text) {
		if !l.Kind.IsError() || strings.TrimSpace(l.Text) == "" {
			continue
		}
		if i, ok := at[l.Text]; ok {
			out = append(out[:i], out[i+1:]...)
			for j := i; j < len(out); j++ {
				at[out[j].Text] = j
			}
		}
		at[l.Text] = len(out)
		out = append(out, l)
	}
	return out
}
