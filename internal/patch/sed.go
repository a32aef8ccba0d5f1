package patch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Sed is a sed -i command line: its script and the files it edits.
type Sed struct {
	Files    []string
	quiet    bool
	commands []sedCommand
}

type sedCommand struct {
	from, to sedAddr // to.kind == 0: a single address
	cmd      byte    // 's' or 'd'
	re       *regexp.Regexp
	repl     string
	global   bool
	nth      int // replace the nth match only (0: the first, or all with global)
	print    bool
}

type sedAddr struct {
	kind byte // 0 none, 'n' a line number, '$' the last line, '/' a regexp
	line int
	re   *regexp.Regexp
}

// ParseSed reads the arguments of sed (after the program's name) as GNU sed
// does: -i[SUFFIX], -e SCRIPT, -E or -r, -n, and the files. The script may
// hold s and d commands, each with an optional address or range (N, $,
// /RE/). Other commands and options are errors: a change that cannot be
// replayed is said to be unknown rather than guessed.
func ParseSed(args []string) (*Sed, error) {
	var scripts []string
	extended, inPlace := false, false
	s := &Sed{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			s.Files = append(s.Files, args[i+1:]...)
			i = len(args)
		case a == "-e" || a == "--expression":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("-e without a script")
			}
			scripts = append(scripts, args[i+1])
			i++
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, a[len("--expression="):])
		case a == "-E" || a == "-r" || a == "--regexp-extended":
			extended = true
		case a == "-n" || a == "--quiet" || a == "--silent":
			s.quiet = true
		case a == "-i" || a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			inPlace = true
			if a == "-i" && i+1 < len(args) && args[i+1] == "" {
				i++ // BSD sed's -i '': no backup suffix
			}
		case strings.HasPrefix(a, "-i") && !strings.ContainsAny(a[2:], "enrEf"):
			inPlace = true // -i.bak
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Trim(a[1:], "inrEs") == "":
			// A cluster such as -ni or -Ei.
			inPlace = inPlace || strings.Contains(a, "i")
			s.quiet = s.quiet || strings.Contains(a, "n")
			extended = extended || strings.ContainsAny(a, "rE")
		case len(a) > 1 && a[0] == '-':
			return nil, fmt.Errorf("option %s not supported", a)
		case len(scripts) == 0:
			scripts = append(scripts, a)
		default:
			s.Files = append(s.Files, a)
		}
	}
	if !inPlace {
		return nil, fmt.Errorf("not sed -i: no file is changed")
	}
	if len(scripts) == 0 {
		return nil, fmt.Errorf("no script")
	}
	for _, script := range scripts {
		cmds, err := parseSedScript(script, extended)
		if err != nil {
			return nil, err
		}
		s.commands = append(s.commands, cmds...)
	}
	return s, nil
}

// Apply runs the script over content, line by line.
func (s *Sed) Apply(content string) (string, error) {
	lines := strings.Split(content, "\n")
	trailing := strings.HasSuffix(content, "\n")
	if trailing || content == "" {
		lines = lines[:len(lines)-1]
	}
	active := make([]bool, len(s.commands)) // ranges in progress
	var out []string
	endsWithLast := false // the input's last line is the output's last
	for n, line := range lines {
		last := n == len(lines)-1
		deleted := false
		for i, c := range s.commands {
			if !c.matches(&active[i], n+1, last, line) {
				continue
			}
			if c.cmd == 'd' {
				deleted = true
				break
			}
			var changed bool
			line, changed = c.substitute(line)
			if changed && c.print {
				out = append(out, line)
			}
		}
		if !deleted && !s.quiet {
			out = append(out, line)
			endsWithLast = last
		}
	}
	text := strings.Join(out, "\n")
	// Like sed, a last line without a newline stays without one.
	if len(out) > 0 && (trailing || !endsWithLast) {
		text += "\n"
	}
	return text, nil
}

func (c *sedCommand) matches(active *bool, n int, last bool, line string) bool {
	if c.from.kind == 0 {
		return true
	}
	if c.to.kind == 0 {
		return c.from.match(n, last, line)
	}
	if *active {
		if c.to.match(n, last, line) || c.to.kind == 'n' && n >= c.to.line {
			*active = false
		}
		return true
	}
	if c.from.match(n, last, line) {
		// A line-number end at or before the start ends the range at once.
		*active = !(c.to.kind == 'n' && c.to.line <= n)
		return true
	}
	return false
}

func (a sedAddr) match(n int, last bool, line string) bool {
	switch a.kind {
	case 'n':
		return n == a.line
	case '$':
		return last
	case '/':
		return a.re.MatchString(line)
	}
	return false
}

func (c *sedCommand) substitute(line string) (string, bool) {
	matches := c.re.FindAllStringSubmatchIndex(line, -1)
	if len(matches) == 0 {
		return line, false
	}
	var b strings.Builder
	prev, changed := 0, false
	for i, m := range matches {
		switch {
		case c.nth > 0 && i+1 < c.nth, c.nth > 0 && i+1 > c.nth && !c.global, c.nth == 0 && !c.global && i > 0:
			continue
		}
		b.WriteString(line[prev:m[0]])
		b.WriteString(expandRepl(c.repl, line, m))
		prev, changed = m[1], true
	}
	b.WriteString(line[prev:])
	return b.String(), changed
}

// expandRepl expands a sed replacement: & is the match, \1-\9 its groups,
// \n a newline, \& and \\ themselves.
func expandRepl(repl, line string, m []int) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '&':
			b.WriteString(line[m[0]:m[1]])
		case c == '\\' && i+1 < len(repl):
			i++
			d := repl[i]
			switch {
			case d >= '1' && d <= '9':
				if g := int(d - '0'); 2*g+1 < len(m) && m[2*g] >= 0 {
					b.WriteString(line[m[2*g]:m[2*g+1]])
				}
			case d == 'n':
				b.WriteByte('\n')
			case d == 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(d)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parseSedScript reads commands separated by ; or newlines.
func parseSedScript(script string, extended bool) ([]sedCommand, error) {
	var out []sedCommand
	i := 0
	for {
		for i < len(script) && strings.IndexByte(" \t\n;", script[i]) >= 0 {
			i++
		}
		if i >= len(script) {
			return out, nil
		}
		var c sedCommand
		var err error
		if c.from, i, err = parseSedAddr(script, i, extended); err != nil {
			return nil, err
		}
		if c.from.kind != 0 && i < len(script) && script[i] == ',' {
			if c.to, i, err = parseSedAddr(script, i+1, extended); err != nil {
				return nil, err
			}
			if c.to.kind == 0 {
				return nil, fmt.Errorf("range without an end address")
			}
		}
		for i < len(script) && script[i] == ' ' {
			i++
		}
		if i >= len(script) {
			return nil, fmt.Errorf("missing command")
		}
		switch c.cmd = script[i]; c.cmd {
		case 'd':
			i++
		case 's':
			if i, err = c.parseSubst(script, i+1, extended); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("command %q not supported", c.cmd)
		}
		out = append(out, c)
		for i < len(script) && script[i] == ' ' {
			i++
		}
		if i < len(script) && strings.IndexByte(";\n}", script[i]) < 0 {
			return nil, fmt.Errorf("unexpected %q after a command", script[i])
		}
	}
}

func parseSedAddr(script string, i int, extended bool) (sedAddr, int, error) {
	switch {
	case i >= len(script):
		return sedAddr{}, i, nil
	case script[i] == '$':
		return sedAddr{kind: '$'}, i + 1, nil
	case script[i] >= '0' && script[i] <= '9':
		j := i
		for j < len(script) && script[j] >= '0' && script[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(script[i:j])
		return sedAddr{kind: 'n', line: n}, j, err
	case script[i] == '/' || script[i] == '\\' && i+1 < len(script):
		if script[i] == '\\' {
			i++
		}
		pat, next, err := sedDelimited(script, i+1, script[i])
		if err != nil {
			return sedAddr{}, i, err
		}
		re, err := compileSed(pat, extended, false)
		return sedAddr{kind: '/', re: re}, next, err
	}
	return sedAddr{}, i, nil
}

func (c *sedCommand) parseSubst(script string, i int, extended bool) (int, error) {
	if i >= len(script) {
		return i, fmt.Errorf("s without a delimiter")
	}
	delim := script[i]
	pat, i, err := sedDelimited(script, i+1, delim)
	if err != nil {
		return i, err
	}
	repl, i, err := sedDelimited(script, i, delim)
	if err != nil {
		return i, err
	}
	c.repl = repl
	fold := false
	for ; i < len(script) && strings.IndexByte("; \n}", script[i]) < 0; i++ {
		switch f := script[i]; {
		case f == 'g':
			c.global = true
		case f == 'p':
			c.print = true
		case f == 'i' || f == 'I':
			fold = true
		case f >= '0' && f <= '9':
			c.nth = c.nth*10 + int(f-'0')
		default:
			return i, fmt.Errorf("s flag %q not supported", f)
		}
	}
	c.re, err = compileSed(pat, extended, fold)
	return i, err
}

// sedDelimited reads up to an unescaped delim; an escaped delim stands for
// itself.
func sedDelimited(s string, i int, delim byte) (string, int, error) {
	var b strings.Builder
	for ; i < len(s); i++ {
		switch {
		case s[i] == delim:
			return b.String(), i + 1, nil
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == delim:
			b.WriteByte(delim)
			i++
		case s[i] == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return "", i, fmt.Errorf("unterminated s command or address")
}

// compileSed turns a POSIX basic (or, extended, ERE) regular expression
// with GNU's extensions into Go's syntax.
func compileSed(pat string, extended, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '[':
			j := bracketEnd(pat, i)
			if j < 0 {
				return nil, fmt.Errorf("unterminated [ in %q", pat)
			}
			b.WriteString(pat[i : j+1])
			i = j
		case c == '\\' && i+1 < len(pat):
			i++
			d := pat[i]
			switch {
			case d >= '1' && d <= '9':
				return nil, fmt.Errorf("back-reference \\%c not supported", d)
			case !extended && strings.IndexByte("(){}+?|", d) >= 0:
				b.WriteByte(d) // \( is a group in a basic expression
			case d == '<' || d == '>':
				b.WriteString(`\b`)
			case d == 'n':
				b.WriteString(`\n`)
			case d == 't':
				b.WriteString(`\t`)
			case strings.IndexByte("wWsSb.*[]^$\\/", d) >= 0:
				b.WriteByte('\\')
				b.WriteByte(d)
			default:
				b.WriteString(regexp.QuoteMeta(string(d)))
			}
		case !extended && strings.IndexByte("(){}+?|", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c) // a literal in a basic expression
		case c == '*' && (i == 0 || !extended && pat[i-1] == '^' && i == 1):
			b.WriteString(`\*`) // a leading * is a literal
		default:
			b.WriteByte(c)
		}
	}
	return regexp.Compile(b.String())
}

// bracketEnd finds the ] that closes the bracket expression at pat[i].
func bracketEnd(pat string, i int) int {
	j := i + 1
	if j < len(pat) && pat[j] == '^' {
		j++
	}
	if j < len(pat) && pat[j] == ']' {
		j++
	}
	for ; j < len(pat); j++ {
		switch {
		case pat[j] == '[' && j+1 < len(pat) && strings.IndexByte(":.=", pat[j+1]) >= 0:
			end := strings.Index(pat[j+2:], string(pat[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += end + 3
		case pat[j] == ']':
			return j
		}
	}
	return -1
}
