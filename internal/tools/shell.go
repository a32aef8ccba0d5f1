package tools

import (
	"strings"
)

// A small reader of POSIX shell command lines: enough to tell what a command
// an agent ran does (which program, which arguments, where output goes),
// not to run it. Quotes, escapes, $(...), heredocs, pipes, lists and
// redirections are understood; anything it cannot follow ends up as words,
// and the caller classifies such a command as plain shell.

// simpleCommand is one command of a pipeline.
type simpleCommand struct {
	words   []string // after quote removal; leading VAR=value assignments dropped
	redirs  []redirect
	heredoc string // the body of a << heredoc, if any
	// compound is set when the command is not a simple command (if, for,
	// while, a subshell, a group): it is never classified by its words.
	compound bool
}

type redirect struct {
	op     string // ">", ">>", "<", "<<", "<<<", ">&", "&>", "&>>"
	fd     string // the file descriptor before the operator, "" for the default
	target string
	body   int // for <<: index of the heredoc body in the parser; -1 otherwise
}

// pipeline is commands joined by |.
type pipeline []simpleCommand

// parseScript splits a command line into the pipelines of its list
// (separated by ;, &&, ||, & and newlines).
func parseScript(src string) []pipeline {
	return parse(src).out
}

// parse reads a command line.
func parse(src string) *shellParser {
	p := &shellParser{src: src, quoteAt: -1}
	p.run()
	return p
}

type shellParser struct {
	src string
	i   int

	out     []pipeline
	pipe    pipeline
	cmd     simpleCommand
	word    strings.Builder
	inWord  bool
	quoteAt int // where the current word's first quoted text starts, or -1
	// Heredocs: a << redirect takes the next index of bodies; the body is
	// read at the next newline, once the command line is over.
	bodies []string
	spans  [][2]int       // where each body is in src: from its first line to its delimiter line
	delims []heredocDelim // those whose bodies are still to be read
}

type heredocDelim struct {
	word      string
	stripTabs bool
	body      int
}

func (p *shellParser) run() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.endWord()
			p.i++
		case c == '\\':
			if p.i+1 < len(p.src) {
				if p.src[p.i+1] != '\n' { // backslash-newline continues the line
					p.quoted()
					p.add(p.src[p.i+1 : p.i+2])
				}
				p.i += 2
			} else {
				p.i++
			}
		case c == '\'':
			p.quoted()
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				p.add(p.src[p.i+1:])
				p.i = len(p.src)
			} else {
				p.add(p.src[p.i+1 : p.i+1+end])
				p.i += end + 2
			}
		case c == '"':
			p.doubleQuoted()
		case c == '$' && p.i+1 < len(p.src) && p.src[p.i+1] == '(':
			p.balanced('(', ')', 1)
		case c == '`':
			end := strings.IndexByte(p.src[p.i+1:], '`')
			if end < 0 {
				end = len(p.src) - p.i - 1
			}
			p.add(p.src[p.i:min(len(p.src), p.i+end+2)])
			p.i += end + 2
		case c == '#' && !p.inWord:
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '\n':
			p.i++
			p.endPipeline()
			p.readHeredocs()
		case c == ';' || c == '&' || c == '|':
			p.operator()
		case c == '(' || c == ')':
			p.endWord()
			p.cmd.compound = true
			p.i++
		case c == '>' || c == '<':
			p.redirect()
		default:
			p.add(p.src[p.i : p.i+1])
			p.i++
		}
	}
	p.endPipeline()
	p.readHeredocs() // a body that runs to the end of the input without its delimiter
	for _, pl := range p.out {
		for i := range pl {
			for _, r := range pl[i].redirs {
				if r.body >= 0 {
					pl[i].heredoc = p.bodies[r.body]
				}
			}
		}
	}
}

// readHeredocs reads the bodies of the heredocs opened on the line that just
// ended, each up to its delimiter line.
func (p *shellParser) readHeredocs() {
	for _, d := range p.delims {
		var body strings.Builder
		start, stop := p.i, p.i
		for p.i < len(p.src) {
			end := strings.IndexByte(p.src[p.i:], '\n')
			line := p.src[p.i:]
			if end >= 0 {
				line = p.src[p.i : p.i+end]
				p.i += end + 1
			} else {
				p.i = len(p.src)
			}
			check := strings.TrimSuffix(line, "\r")
			if d.stripTabs {
				check = strings.TrimLeft(check, "\t")
			}
			if check == d.word {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
			stop = p.i
		}
		p.bodies[d.body] = body.String()
		p.spans[d.body] = [2]int{start, stop}
	}
	p.delims = p.delims[:0]
}

func (p *shellParser) endCommand() {
	p.endWord()
	if len(p.cmd.words) > 0 || len(p.cmd.redirs) > 0 || p.cmd.compound {
		p.pipe = append(p.pipe, p.cmd)
	}
	p.cmd = simpleCommand{}
}

func (p *shellParser) endPipeline() {
	p.endCommand()
	if len(p.pipe) > 0 {
		p.out = append(p.out, p.pipe)
	}
	p.pipe = nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (p *shellParser) add(s string) {
	p.word.WriteString(s)
	p.inWord = true
}

// quoted notes that the current word has quoted text from here on: an
// assignment's name and = must come before any quote ('A=' is a word, A='x'
// an assignment).
func (p *shellParser) quoted() {
	if p.quoteAt < 0 {
		p.quoteAt = p.word.Len()
	}
}

func (p *shellParser) endWord() {
	if !p.inWord {
		return
	}
	w := p.word.String()
	quoteAt := p.quoteAt
	p.word.Reset()
	p.inWord, p.quoteAt = false, -1
	if len(p.cmd.words) == 0 {
		if eq := strings.IndexByte(w, '='); isAssignment(w) && (quoteAt < 0 || eq < quoteAt) {
			return
		}
		switch w {
		case "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "select", "!", "[[", "[", "{", "}":
			p.cmd.compound = true
		}
	}
	p.cmd.words = append(p.cmd.words, w)
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (p *shellParser) doubleQuoted() {
	p.quoted()
	p.inWord = true
	p.i++
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return
		case c == '\\' && p.i+1 < len(p.src) && strings.IndexByte("\"\\$`\n", p.src[p.i+1]) >= 0:
			if p.src[p.i+1] != '\n' {
				p.word.WriteByte(p.src[p.i+1])
			}
			p.i += 2
		case c == '$' && p.i+1 < len(p.src) && p.src[p.i+1] == '(':
			p.balanced('(', ')', 1)
		default:
			p.word.WriteByte(c)
			p.i++
		}
	}
}

// balanced copies $( ... ) verbatim into the current word.
func (p *shellParser) balanced(open, close byte, skip int) {
	start := p.i
	p.i += skip
	depth := 0
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case open:
			depth++
		case close:
			depth--
		case '\'':
			if end := strings.IndexByte(p.src[p.i+1:], '\''); end >= 0 {
				p.i += end + 1
			}
		}
		p.i++
		if depth == 0 {
			break
		}
	}
	p.add(p.src[start:p.i])
}

func (p *shellParser) operator() {
	p.endWord()
	c := p.src[p.i]
	next := byte(0)
	if p.i+1 < len(p.src) {
		next = p.src[p.i+1]
	}
	switch {
	case c == '|' && next == '|', c == '&' && next == '&':
		p.i += 2
		p.endPipeline()
	case c == '|':
		p.i++
		if next == '&' {
			p.i++
		}
		p.endCommand()
	case c == '&' && next == '>':
		p.redirect()
	default: // ; or &
		p.i++
		if c == ';' && next == ';' {
			p.i++
		}
		p.endPipeline()
	}
}

func (p *shellParser) redirect() {
	fd := ""
	if p.inWord && isDigits(p.word.String()) {
		fd = p.word.String()
		p.word.Reset()
		p.inWord, p.quoteAt = false, -1
	}
	p.endWord()
	start := p.i
	for p.i < len(p.src) && strings.IndexByte("<>&|-", p.src[p.i]) >= 0 && p.i-start < 3 {
		p.i++
	}
	op := p.src[start:p.i]
	stripTabs := false
	if op == "<<-" {
		op, stripTabs = "<<", true
	}
	// The target is the next word.
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
	saved := len(p.cmd.words)
	for p.i < len(p.src) && !strings.ContainsRune(" \t\n;|&<>()", rune(p.src[p.i])) {
		switch p.src[p.i] {
		case '\'', '"', '\\', '$', '`':
			p.stepWordChar()
		default:
			p.add(p.src[p.i : p.i+1])
			p.i++
		}
	}
	target := ""
	if p.inWord {
		target = p.word.String()
		p.word.Reset()
		p.inWord, p.quoteAt = false, -1
	}
	p.cmd.words = p.cmd.words[:saved]
	r := redirect{op: op, fd: fd, target: target, body: -1}
	if op == "<<" && target != "" {
		r.body = len(p.bodies)
		p.bodies = append(p.bodies, "")
		p.spans = append(p.spans, [2]int{})
		p.delims = append(p.delims, heredocDelim{word: target, stripTabs: stripTabs, body: r.body})
	}
	p.cmd.redirs = append(p.cmd.redirs, r)
}

// stepWordChar handles one quoting construct inside a redirect target by
// running one step of the main loop's word rules.
func (p *shellParser) stepWordChar() {
	switch c := p.src[p.i]; c {
	case '\'':
		p.quoted()
		end := strings.IndexByte(p.src[p.i+1:], '\'')
		if end < 0 {
			p.add(p.src[p.i+1:])
			p.i = len(p.src)
			return
		}
		p.add(p.src[p.i+1 : p.i+1+end])
		p.i += end + 2
	case '"':
		p.doubleQuoted()
	case '\\':
		if p.i+1 < len(p.src) {
			p.add(p.src[p.i+1 : p.i+2])
		}
		p.i += 2
	case '$':
		if p.i+1 < len(p.src) && p.src[p.i+1] == '(' {
			p.balanced('(', ')', 1)
			return
		}
		p.add("$")
		p.i++
	default:
		p.add(string(c))
		p.i++
	}
}
