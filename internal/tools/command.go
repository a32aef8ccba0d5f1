package tools

import (
	"path"
	"strconv"
	"strings"
)

// Classified is what ClassifyCommand makes of a shell command.
type Classified struct {
	Kind Kind
	Args Args
}

// ClassifyCommand tells what a shell command line does: a read of one file
// (cat, sed -n 'a,bp', head, tail, nl), a write (cat > F, tee F), an edit
// (apply_patch, patch, sed -i), a listing (ls, find, tree, fd, rg --files),
// a search (grep, rg, ag, git grep), git (status, diff, log, show), a fetch
// (curl, wget), or plain shell. Wrappers such as bash -lc '...' are
// unwrapped, and leading cd DIR, export and echo steps are looked past.
func ClassifyCommand(cmd string) Classified {
	return classifyScript(cmd, 0)
}

func classifyScript(src string, depth int) Classified {
	pl, dir, ok := mainPipeline(src, depth)
	if !ok {
		return Classified{Kind: Shell, Args: Args{Dir: dir}}
	}
	c := classifyPipeline(pl)
	if (c.Kind == Read || c.Kind == Write) && c.Args.Path == "" {
		c = Classified{Kind: Shell} // cat '', tee "": nothing to name
	}
	if c.Args.Dir == "" {
		c.Args.Dir = dir
	}
	return c
}

// Step is the command a shell command line comes down to, as
// ClassifyCommand sees it: the first command of its one pipeline, once
// wrappers (bash -lc '...'), cd, export and echo steps are looked past.
// What a write or an edit through the shell changes is in it: the text
// that cat <<EOF > F writes, the patch that apply_patch <<EOF applies, the
// script of sed -i.
type Step struct {
	Words   []string // after quote removal, without prefixes such as sudo or env
	Heredoc string   // the body of its << heredoc; "" when it has none
	Piped   bool     // more commands follow it in the pipeline
}

// MainStep returns the step a command line comes down to; false when it
// runs several steps or a compound command (if, for, a subshell).
func MainStep(cmd string) (Step, bool) {
	pl, _, ok := mainPipeline(cmd, 0)
	if !ok || pl[0].compound {
		return Step{}, false
	}
	return Step{Words: stripPrefixes(pl[0].words), Heredoc: pl[0].heredoc, Piped: len(pl) > 1}, true
}

// mainPipeline finds the one pipeline of a script that does the work, and
// the directory a leading cd moved to; false when there is not exactly one.
func mainPipeline(src string, depth int) (pipeline, string, bool) {
	script := parseScript(src)
	var dir string
	var steps []pipeline
	for _, pl := range script {
		if len(pl) == 1 && !pl[0].compound && len(pl[0].words) > 0 {
			words := stripPrefixes(pl[0].words)
			if inner, ok := shellWrapped(words); ok && len(script) == 1 && depth < 4 {
				return mainPipeline(inner, depth+1)
			}
			if len(words) > 0 && words[0] == "cd" || len(words) > 0 && words[0] == "pushd" {
				if len(words) > 1 {
					dir = words[1]
				}
				continue
			}
			if len(words) > 0 && isSetup(words[0], pl[0]) {
				continue
			}
		}
		steps = append(steps, pl)
	}
	if len(steps) != 1 {
		return nil, dir, false
	}
	return steps[0], dir, true
}

// shellWrapped returns the script of bash -c SCRIPT and its kin.
func shellWrapped(words []string) (string, bool) {
	if len(words) < 3 {
		return "", false
	}
	switch path.Base(words[0]) {
	case "bash", "sh", "zsh", "dash", "ksh":
	default:
		return "", false
	}
	for i := 1; i < len(words)-1; i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			return "", false
		}
		if strings.Contains(w, "c") && !strings.HasPrefix(w, "--") {
			return words[i+1], true
		}
	}
	return "", false
}

// isSetup reports whether a command only prepares the ones after it.
func isSetup(prog string, c simpleCommand) bool {
	switch prog {
	case "export", "set", "source", ".", "true", ":", "unset", "alias", "ulimit", "umask", "popd", "shopt":
		return true
	case "echo", "printf":
		// A separator line; one that writes a file is not.
		return stdoutTarget(c) == ""
	}
	return false
}

// stripPrefixes drops the commands that run another command: sudo, time,
// timeout 30, env A=b, nice, nohup, command, exec.
func stripPrefixes(words []string) []string {
	for len(words) > 0 {
		switch path.Base(words[0]) {
		case "sudo", "time", "nice", "nohup", "command", "exec", "stdbuf":
			words = skipFlags(words[1:])
		case "timeout":
			words = skipFlags(words[1:])
			if len(words) > 0 {
				words = words[1:] // the duration
			}
		case "env":
			words = skipFlags(words[1:])
			for len(words) > 0 && isAssignment(words[0]) {
				words = words[1:]
			}
		default:
			return words
		}
	}
	return words
}

func skipFlags(words []string) []string {
	for len(words) > 0 && strings.HasPrefix(words[0], "-") {
		words = words[1:]
	}
	return words
}

// stdoutTarget is the file a command's standard output goes to, or "".
func stdoutTarget(c simpleCommand) string {
	t := ""
	for _, r := range c.redirs {
		switch {
		case (r.op == ">" || r.op == ">>" || r.op == ">|") && (r.fd == "" || r.fd == "1"), r.op == "&>" || r.op == "&>>":
			t = r.target
		}
	}
	if t == "/dev/null" {
		return ""
	}
	return t
}

func appends(c simpleCommand) bool {
	for _, r := range c.redirs {
		if r.op == ">>" || r.op == "&>>" {
			return true
		}
	}
	return false
}

// teeFile is the one file a later command of a pipeline tees its input
// to (... | tee F), and whether it appends.
func teeFile(pl pipeline) (file string, appending, ok bool) {
	for _, c := range pl[1:] {
		if w := stripPrefixes(c.words); len(w) > 0 && path.Base(w[0]) == "tee" {
			if files := operands(w[1:], nil); len(files) == 1 {
				return files[0], hasFlag(w[1:], "a", "append"), true
			}
		}
	}
	return "", false, false
}

func classifyPipeline(pl pipeline) Classified {
	first := pl[0]
	if first.compound {
		return Classified{Kind: Shell}
	}
	words := stripPrefixes(first.words)
	if len(words) == 0 {
		return Classified{Kind: Shell}
	}
	prog := path.Base(words[0])
	args := words[1:]

	// Writes: cat > F <<EOF, echo ... > F, printf ... >> F, ... | tee F.
	if target := stdoutTarget(first); target != "" && len(pl) == 1 {
		switch prog {
		case "cat", "echo", "printf":
			if prog != "cat" || len(operands(args, nil)) == 0 {
				kind := Write
				if appends(first) {
					kind = Edit
				}
				return Classified{Kind: kind, Args: Args{Path: target, Paths: []string{target}}}
			}
		}
	}
	if file, appending, ok := teeFile(pl); ok {
		kind := Write
		if appending {
			kind = Edit
		}
		return Classified{Kind: kind, Args: Args{Path: file, Paths: []string{file}}}
	}

	c := classifySimple(prog, args, first)
	switch c.Kind {
	case Read:
		return followRead(c, pl[1:])
	case List, Search, Git, Web:
		return followOutput(c, pl[1:])
	}
	return c
}

// followOutput keeps a listing's, search's, git's or fetch's kind when the
// commands after it only pick lines of its output (head, tail, sort, uniq,
// grep, cat); anything else (xargs cat, jq, wc, awk) makes the call plain
// shell, since what it prints is no longer the listing:
// find . -name '*.json' | xargs cat | jq . prints JSON, not paths.
func followOutput(c Classified, rest pipeline) Classified {
	for _, cmd := range rest {
		words := stripPrefixes(cmd.words)
		if cmd.compound || len(words) == 0 {
			return Classified{Kind: Shell, Args: Args{Dir: c.Args.Dir}}
		}
		switch path.Base(words[0]) {
		case "head", "tail", "sort", "uniq", "grep", "egrep", "fgrep", "rg", "cat", "less", "more":
			if path.Base(words[0]) == "cat" && len(operands(words[1:], nil)) > 0 {
				return Classified{Kind: Shell, Args: Args{Dir: c.Args.Dir}}
			}
		default:
			return Classified{Kind: Shell, Args: Args{Dir: c.Args.Dir}}
		}
	}
	return c
}

// classifySimple classifies the first command of a pipeline.
func classifySimple(prog string, args []string, cmd simpleCommand) Classified {
	switch prog {
	case "cat", "nl", "less", "more", "bat", "batcat":
		if files := operands(args, nil); len(files) == 1 && files[0] != "-" {
			return Classified{Kind: Read, Args: Args{Path: files[0]}}
		}
	case "head":
		n, files, ok := countArg(args, 10)
		if ok && len(files) == 1 && n > 0 {
			return Classified{Kind: Read, Args: Args{Path: files[0], Range: Range{Start: 1, End: n}}}
		}
	case "tail":
		if hasFlag(args, "f", "follow") || hasFlag(args, "F", "") {
			break
		}
		if r, files, ok := tailArgs(args); ok && len(files) == 1 {
			return Classified{Kind: Read, Args: Args{Path: files[0], Range: r}}
		}
	case "sed":
		return classifySed(args)
	case "ls", "tree", "exa", "eza", "dir":
		files := operands(args, map[string]bool{"I": true, "L": true, "P": true, "-ignore": true})
		a := Args{Path: "."}
		if len(files) > 0 {
			a.Path = files[0]
		}
		return Classified{Kind: List, Args: a}
	case "find":
		a := Args{Path: "."}
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "(" && args[0] != "!" {
			a.Path = args[0]
		}
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-name" || args[i] == "-iname" || args[i] == "-path" {
				a.Pattern = args[i+1]
				break
			}
		}
		return Classified{Kind: List, Args: a}
	case "fd", "fdfind":
		ops := operands(args, fdValueFlags)
		a := Args{Path: "."}
		if len(ops) > 0 {
			a.Pattern = ops[0]
		}
		if len(ops) > 1 {
			a.Path = ops[1]
		}
		return Classified{Kind: List, Args: a}
	case "rg", "grep", "egrep", "fgrep", "ag", "ack":
		if prog == "rg" && hasFlag(args, "", "files") {
			ops := operands(args, searchValueFlags)
			a := Args{Path: "."}
			if len(ops) > 0 {
				a.Path = ops[0]
			}
			return Classified{Kind: List, Args: a}
		}
		return Classified{Kind: Search, Args: searchArgs(args)}
	case "git":
		return classifyGit(args)
	case "apply_patch", "applypatch":
		text := cmd.heredoc
		if text == "" && len(args) > 0 {
			text = args[0]
		}
		paths := patchPaths(text)
		return Classified{Kind: Edit, Args: withPaths(Args{}, paths)}
	case "patch":
		paths := patchPaths(cmd.heredoc)
		if len(paths) == 0 {
			if ops := operands(args, map[string]bool{"p": true, "i": true, "d": true, "o": true, "r": true}); len(ops) > 0 {
				paths = ops[:1]
			}
		}
		return Classified{Kind: Edit, Args: withPaths(Args{}, paths)}
	case "curl", "wget", "http", "https", "xh":
		for _, a := range args {
			if strings.Contains(a, "://") || strings.HasPrefix(a, "www.") {
				return Classified{Kind: Web, Args: Args{URL: a}}
			}
		}
		return Classified{Kind: Web}
	}
	return Classified{Kind: Shell}
}

func withPaths(a Args, paths []string) Args {
	a.Paths = paths
	if len(paths) > 0 {
		a.Path = paths[0]
	}
	return a
}

var (
	// Flags of grep, rg, ag and ack that take a value, so that the value is
	// not taken for the pattern or a path.
	searchValueFlags = map[string]bool{"e": true, "f": true, "A": true, "B": true, "C": true, "m": true, "g": true, "t": true, "T": true, "M": true, "j": true,
		"-include": true, "-exclude": true, "-exclude-dir": true, "-max-count": true, "-regexp": true, "-file": true, "-context": true,
		"-after-context": true, "-before-context": true, "-glob": true, "-iglob": true, "-type": true, "-type-not": true,
		"-max-columns": true, "-max-depth": true, "-sort": true, "-threads": true}
	fdValueFlags = map[string]bool{"e": true, "t": true, "E": true, "d": true, "-extension": true, "-type": true, "-exclude": true, "-max-depth": true}
)

func searchArgs(args []string) Args {
	var a Args
	// -e PATTERN names the pattern explicitly; then every operand is a path.
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-e" || args[i] == "--regexp" {
			a.Pattern = args[i+1]
			break
		}
	}
	ops := operands(args, searchValueFlags)
	if a.Pattern == "" && len(ops) > 0 {
		a.Pattern, ops = ops[0], ops[1:]
	}
	if len(ops) > 0 {
		a.Path = ops[0]
	}
	return a
}

func classifyGit(args []string) Classified {
	// Global options before the subcommand: -C DIR, -c k=v, --no-pager ...
	var dir string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-C" && len(args) > 1:
			dir = args[1]
			args = args[2:]
		case args[0] == "-c" && len(args) > 1:
			args = args[2:]
		default:
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return Classified{Kind: Shell}
	}
	switch args[0] {
	case "status", "diff", "log", "show", "blame", "shortlog", "reflog":
		a := Args{Dir: dir, Subcommand: args[0]}
		if ops := operands(args[1:], nil); len(ops) > 0 {
			a.Path = ops[len(ops)-1]
		}
		return Classified{Kind: Git, Args: a}
	case "grep":
		a := searchArgs(args[1:])
		a.Dir = dir
		return Classified{Kind: Search, Args: a}
	case "ls-files", "ls-tree":
		return Classified{Kind: List, Args: Args{Dir: dir, Path: "."}}
	}
	return Classified{Kind: Shell, Args: Args{Dir: dir}}
}

// classifySed: sed -n 'a,bp' F is a read of lines a-b; sed -i is an edit.
func classifySed(args []string) Classified {
	quiet, inPlace := false, false
	var script string
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" || a == "--quiet" || a == "--silent":
			quiet = true
		case a == "-i" || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place"):
			inPlace = true
		case a == "-e" && i+1 < len(args):
			if script != "" {
				return Classified{Kind: Shell}
			}
			script = args[i+1]
			i++
		case a == "-E" || a == "-r" || a == "--regexp-extended" || a == "-u":
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if strings.Contains(a, "i") {
				inPlace = true
			}
			if strings.Contains(a, "n") {
				quiet = true
			}
		case script == "":
			script = a
		default:
			files = append(files, a)
		}
	}
	if inPlace {
		return Classified{Kind: Edit, Args: withPaths(Args{}, files)}
	}
	if quiet && len(files) == 1 {
		if r, ok := sedRange(script); ok {
			return Classified{Kind: Read, Args: Args{Path: files[0], Range: r}}
		}
	}
	return Classified{Kind: Shell}
}

// sedRange parses the print scripts 'Np', 'N,Mp' and 'N,$p'.
func sedRange(script string) (Range, bool) {
	s := strings.TrimSpace(script)
	if !strings.HasSuffix(s, "p") {
		return Range{}, false
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, "p"))
	from, to, hasTo := strings.Cut(s, ",")
	a, err := strconv.Atoi(strings.TrimSpace(from))
	if err != nil || a < 1 {
		return Range{}, false
	}
	if !hasTo {
		return Range{Start: a, End: a}, true
	}
	to = strings.TrimSpace(to)
	if to == "$" {
		return normalize(Range{Start: a}), true
	}
	b, err := strconv.Atoi(to)
	if err != nil || b < a {
		return Range{}, false
	}
	return normalize(Range{Start: a, End: b}), true
}

// lineSpec reads the line count of head and tail: -n N, -nN, -N (and +K
// for tail), --lines=N, --lines N; def when there is none. A byte count
// (-c) is not a line range.
func lineSpec(args []string, def string) (string, []string, bool) {
	spec := def
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" || a == "--lines":
			if i+1 >= len(args) {
				return "", nil, false
			}
			spec = args[i+1]
			i++
		case strings.HasPrefix(a, "--lines="):
			spec = strings.TrimPrefix(a, "--lines=")
		case strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--bytes"):
			return "", nil, false
		case a == "-q" || a == "-v" || a == "--quiet" || a == "--silent" || a == "--verbose":
		case strings.HasPrefix(a, "-n"):
			spec = a[2:]
		case len(a) > 1 && a[0] == '-':
			spec = a[1:]
		case len(a) > 1 && a[0] == '+':
			spec = a
		default:
			files = append(files, a)
		}
	}
	return spec, files, true
}

// countArg reads head's line count.
func countArg(args []string, def int) (int, []string, bool) {
	spec, files, ok := lineSpec(args, strconv.Itoa(def))
	n, err := strconv.Atoi(spec)
	if !ok || err != nil {
		return 0, nil, false
	}
	return n, files, true
}

// tailArgs reads tail's count: -n N (the last N lines) or -n +K (from line K).
func tailArgs(args []string) (Range, []string, bool) {
	spec, files, ok := lineSpec(args, "10")
	if !ok {
		return Range{}, nil, false
	}
	if strings.HasPrefix(spec, "+") {
		k, err := strconv.Atoi(spec[1:])
		if err != nil {
			return Range{}, nil, false
		}
		return normalize(Range{Start: k}), files, true
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n <= 0 {
		return Range{}, nil, false
	}
	return Range{Last: n}, files, true
}

// followRead folds what comes after a read in a pipeline: head, tail and
// sed -n narrow its range, cat -n and nl only number it; a grep makes it a
// search of the file; anything else makes it plain shell.
func followRead(c Classified, rest pipeline) Classified {
	for _, cmd := range rest {
		words := stripPrefixes(cmd.words)
		if cmd.compound || len(words) == 0 {
			return Classified{Kind: Shell, Args: Args{Dir: c.Args.Dir}}
		}
		prog, args := path.Base(words[0]), words[1:]
		r := c.Args.Range
		switch prog {
		case "cat", "nl":
			if len(operands(args, nil)) > 0 {
				return Classified{Kind: Shell}
			}
			continue
		case "head":
			n, files, ok := countArg(args, 10)
			if !ok || len(files) > 0 || r.Last > 0 {
				return Classified{Kind: Shell}
			}
			c.Args.Range = narrow(r, 1, n)
			continue
		case "sed":
			s := classifySed(append(append([]string{}, args...), "-"))
			if s.Kind != Read || r.Last > 0 {
				return Classified{Kind: Shell}
			}
			end := s.Args.Range.End
			if s.Args.Range.Whole() {
				continue
			}
			c.Args.Range = narrow(r, s.Args.Range.Start, end)
			continue
		case "tail":
			t, files, ok := tailArgs(args)
			if !ok || len(files) > 0 || !r.Whole() {
				return Classified{Kind: Shell}
			}
			c.Args.Range = t
			continue
		case "grep", "egrep", "fgrep", "rg":
			a := searchArgs(args)
			a.Path = c.Args.Path
			return Classified{Kind: Search, Args: a}
		}
		return Classified{Kind: Shell}
	}
	return c
}

// narrow takes lines from..to (1-based, to 0 meaning the end) of what range
// r already selected.
func narrow(r Range, from, to int) Range {
	start := r.Start
	if start == 0 {
		start = 1
	}
	out := Range{Start: start + from - 1}
	if to > 0 {
		out.End = start + to - 1
	}
	if r.End > 0 && (out.End == 0 || out.End > r.End) {
		out.End = r.End
	}
	return normalize(out)
}

// operands returns the arguments that are not flags, skipping the values of
// the flags named in valueFlags (keys without their first dash: "n" for -n,
// "-lines" for --lines). Everything after -- is an operand.
func operands(args []string, valueFlags map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case len(a) > 1 && a[0] == '-':
			name := a[1:]
			if strings.Contains(name, "=") {
				continue
			}
			if valueFlags[name] || len(name) > 1 && name[0] != '-' && valueFlags[name[len(name)-1:]] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// hasFlag reports whether args hold the short flag (alone or in a cluster
// such as -af) or the long flag.
func hasFlag(args []string, short, long string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case long != "" && a == "--"+long:
			return true
		case short != "" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a[1:], short):
			return true
		}
	}
	return false
}

// JoinArgv turns an argv array into one command line, quoting words that
// need it, so that an argv and the same command typed in a shell read alike.
func JoinArgv(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == 0 && isAssignment(w) {
			// Unquoted, a first word A=b would read as an assignment.
			b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
			continue
		}
		b.WriteString(quote(w))
	}
	return b.String()
}

func quote(w string) string {
	if w == "" {
		return "''"
	}
	if strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Printed names the files a shell command prints whole or in part, when it
// is not a read of one file: the files cat, head, tail, nl or bat are
// given (cat a.json b.json), or, for a listing piped into xargs cat, the
// listing's command (find . -name '*.json' | xargs cat gives "find . -name
// '*.json'" as lister). Both are empty for any other command.
func Printed(cmd string) (files []string, lister string) {
	pl, _, ok := mainPipeline(cmd, 0)
	if !ok {
		return nil, ""
	}
	for i, c := range pl {
		words := stripPrefixes(c.words)
		if c.compound || len(words) == 0 {
			return nil, ""
		}
		prog, args := path.Base(words[0]), words[1:]
		if prog == "xargs" && i > 0 {
			if prints(operands(args, xargsValueFlags)) {
				var parts []string
				for _, p := range pl[:i] {
					parts = append(parts, JoinArgv(stripPrefixes(p.words)))
				}
				return nil, strings.Join(parts, " | ")
			}
			return nil, ""
		}
		if i == 0 && prints(words) {
			return printedFiles(prog, args), ""
		}
	}
	return nil, ""
}

// prints reports whether a command's words run a program that prints
// files.
func prints(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch path.Base(words[0]) {
	case "cat", "head", "tail", "nl", "bat", "batcat":
		return true
	}
	return false
}

// printedFiles are the files a printing program is given.
func printedFiles(prog string, args []string) []string {
	var files []string
	switch prog {
	case "head", "tail":
		_, files, _ = lineSpec(args, "10")
	default:
		files = operands(args, nil)
	}
	out := files[:0:0]
	for _, f := range files {
		if f != "-" {
			out = append(out, f)
		}
	}
	return out
}

// xargsValueFlags are the flags of xargs that take a value.
var xargsValueFlags = map[string]bool{"I": true, "n": true, "P": true, "L": true, "d": true, "s": true, "E": true, "a": true,
	"-max-args": true, "-max-procs": true, "-delimiter": true, "-arg-file": true, "-replace": true}
