// Package shellwrap rewrites a shell command line so that what it prints
// reaches a filter before the agent, when that changes nothing else the
// command does, and reads such a line back.
//
// Claude Code's PreToolUse hook may replace a Bash call's command
// (updatedInput): ctx-truncate's hook uses it so that a long output, a
// failing one too, reaches the model already cut. The rewritten line is
//
//	set -o pipefail; ORIGINAL 2>&1 | FILTER
//
// or, where more than one command prints (make && make test),
//
//	set -o pipefail; SETUP { COMMANDS; } 2>&1 | FILTER
//
// The original line runs in the agent's own shell, so a cd before the
// commands that print still moves the next call; those run whole, stdout
// and stderr in the order they wrote them (as Claude Code merges them);
// pipefail gives the line their exit status, the filter exiting 0. Claude Code checks the rewritten line against the user's
// permission rules part by part: the original's parts meet the same
// rules as before, and the two added parts need allow rules of their own
// (Rules), which ctx-setup writes. A line whose output or behaviour the
// rewrite could change is left alone (Why says why).
package shellwrap

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Pipefail is the first part of every rewritten line: Claude Code asks
// before running a line with a part no rule allows, so the user's
// settings allow it (Rules).
const Pipefail = "set -o pipefail"

const (
	prefix = Pipefail + "; "
	join   = " 2>&1 | "
)

// Rules are the permission rules that let a rewritten line run where the
// original would: its added parts, for the filter run as name with
// --output-of.
func Rules(name string) []string {
	return []string{"Bash(" + Pipefail + ")", "Bash(" + name + " " + OutputOf + ":*)"}
}

// OutputOf is the filter's flag that names the call whose output it reads.
const OutputOf = "--output-of"

// plainID reports whether a call id can be written into a command line as
// it is: 1 to 128 letters, digits, _ and -.
func plainID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Filter is the command a rewritten line pipes into: name (the filter's
// command as the hook was run: ctx-truncate, or its path), OutputOf and
// the call id, then args, each quoted for the shell. false when the id or
// a word cannot be written safely.
func Filter(name, callID string, args ...string) (string, bool) {
	if !plainID(callID) {
		return "", false
	}
	words := append([]string{name, OutputOf, callID}, args...)
	for i, w := range words {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", false
		}
		words[i] = q
	}
	return strings.Join(words, " "), true
}

// Wrap returns line rewritten so that its output goes through filter (a
// command made by Filter), or "" and the reason it is left alone. Several
// commands that print are put in braces only when groups is set: Claude
// Code asks before it runs a compound statement, unless its permissions
// are bypassed (hook.Payload.Bypassed).
func Wrap(line, filter string, groups bool) (string, string) {
	line = strings.TrimSpace(line)
	if _, ok := Unwrap(line); ok {
		return "", "already rewritten"
	}
	f, err := parse(line)
	if err != nil {
		return "", "not a command line this reader follows: " + err.Error()
	}
	why, group := check(f, line)
	if why != "" {
		return "", why
	}
	out := prefix + line + join + filter
	if group >= 0 && !groups {
		return "", "more than one command prints, and Claude Code would ask before it runs them in braces"
	}
	if group >= 0 {
		out = prefix + line[:group] + groupOpen + line[group:] + groupClose + join + filter
	}
	if got, ok := Unwrap(out); !ok || got != line {
		return "", "the rewritten line would not read back"
	}
	return out, ""
}

// Unwrap returns the original of a line that Wrap rewrote.
func Unwrap(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, prefix)
	i := strings.LastIndex(rest, join)
	if !ok || i < 0 {
		return "", false
	}
	original, filter := rest[:i], rest[i+len(join):]
	f, err := parse(filter)
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 3 || call.Args[1].Lit() != OutputOf || !plainID(call.Args[2].Lit()) {
		return "", false
	}
	return ungroup(original), true
}

// The braces around the commands that print, where there are several.
const (
	groupOpen  = "{ "
	groupClose = "; }"
)

// ungroup returns a rewritten line's original with the braces Wrap put
// around its commands that print taken out. A group is never the last
// command of a line Wrap rewrites as it is (plain), so one there is Wrap's.
func ungroup(line string) string {
	f, err := parse(line)
	if err != nil || len(f.Stmts) == 0 {
		return line
	}
	last, ok := flatten(nil, f.Stmts[len(f.Stmts)-1])
	if !ok {
		return line
	}
	b, ok := last[len(last)-1].Cmd.(*syntax.Block)
	if !ok {
		return line
	}
	at := int(b.Pos().Offset())
	if !strings.HasPrefix(line[at:], groupOpen) || !strings.HasSuffix(line, groupClose) || at+len(groupOpen) > len(line)-len(groupClose) {
		return line
	}
	return line[:at] + line[at+len(groupOpen):len(line)-len(groupClose)]
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// check says why a parsed line cannot be rewritten, or "" when it can: a
// list of statements joined by ; or && (or new lines), of which the first
// may only set up the shell (cd, export, source, assignments) and the
// rest are plain commands whose output goes where the line's does. group
// is where those start when there are more than one (they go in braces,
// which run in the pipe's subshell), or -1.
func check(f *syntax.File, line string) (why string, group int) {
	if why := anywhere(f); why != "" {
		return why, -1
	}
	var stmts []*syntax.Stmt
	for _, s := range f.Stmts {
		var ok bool
		if stmts, ok = flatten(stmts, s); !ok {
			return "a list with || or a pipeline: the output of each part is not the line's", -1
		}
	}
	if len(stmts) == 0 {
		return "no command", -1
	}
	last := stmts[len(stmts)-1]
	if last.Semicolon.IsValid() || int(last.End().Offset()) != len(line) {
		return "something after the last command (a ; or a comment)", -1
	}
	first := 0
	for first < len(stmts)-1 && setup(stmts[first]) {
		first++
	}
	for _, s := range stmts[first:] {
		if setup(s) && s != last {
			return "a cd, export or source after a command that prints: in the pipe it would not move the next call", -1
		}
		if why := plain(s); why != "" {
			return why, -1
		}
	}
	if first == len(stmts)-1 {
		return "", -1
	}
	return "", int(stmts[first].Pos().Offset())
}

// anywhere says why a line holds what is never rewritten, wherever it is:
// a command substitution or process substitution (what it reads must stay
// the command's real output), a here-document, a background job, a
// function, a coprocess.
func anywhere(f *syntax.File) string {
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			why = "a command substitution"
		case *syntax.ProcSubst:
			why = "a process substitution"
		case *syntax.Redirect:
			if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
				why = "a here-document"
			}
		case *syntax.Stmt:
			if n.Background || n.Coprocess || n.Disown {
				why = "a background job"
			}
		case *syntax.FuncDecl, *syntax.CoprocClause:
			why = "a function or coprocess"
		}
		return why == ""
	})
	return why
}

// flatten appends the statements of s joined by &&; false for || and for
// a pipeline.
func flatten(out []*syntax.Stmt, s *syntax.Stmt) ([]*syntax.Stmt, bool) {
	b, ok := s.Cmd.(*syntax.BinaryCmd)
	if !ok {
		return append(out, s), true
	}
	if b.Op != syntax.AndStmt || s.Negated || len(s.Redirs) > 0 {
		return nil, false
	}
	if out, ok = flatten(out, b.X); !ok {
		return nil, false
	}
	return flatten(out, b.Y)
}

// setupCommands set up the shell for the command after them and print
// nothing.
var setupCommands = map[string]bool{"cd": true, "export": true, "unset": true, "source": true, ".": true}

func setup(s *syntax.Stmt) bool {
	if s.Negated || len(s.Redirs) > 0 {
		return false
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		return len(c.Args) == 0 || setupCommands[c.Args[0].Lit()]
	case *syntax.DeclClause:
		return c.Variant.Value == "export"
	}
	return false
}

// plain says why a command cannot run with its output piped, or "".
func plain(s *syntax.Stmt) string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	switch {
	case !ok:
		return "a command that prints is not a simple command (a group, a loop, a test)"
	case s.Negated:
		return "a negated command"
	case len(c.Args) == 0:
		return "no command: assignments only"
	}
	for _, r := range s.Redirs {
		if !keeps(r) {
			return "a redirection of its output"
		}
	}
	words := make([]string, len(c.Args))
	for i, w := range c.Args {
		words[i] = w.Lit()
	}
	if words[0] == "" {
		return "a command name that is not a plain word"
	}
	return leftAlone(words)
}

// keeps reports whether a redirection leaves the output where the line's
// goes: input from a file or a string, and 2>&1, which the rewrite adds.
func keeps(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.WordHdoc:
		return r.N == nil || r.N.Value == "0"
	case syntax.DplOut:
		return r.N != nil && r.N.Value == "2" && r.Word.Lit() == "1"
	}
	return false
}

// shellOnly are the builtins that act on the shell they run in (a
// pipeline's command runs in a child of it) or end it.
var shellOnly = words("cd pushd popd exit exec return logout set shopt export unset source . eval alias unalias " +
	"trap wait fg bg jobs disown suspend read readarray mapfile ulimit umask declare typeset local readonly let " +
	"hash history enable kill builtin caller complete compgen compopt")

// interactive are commands that wait on a terminal, or follow a stream
// that never ends: their output is left as it comes.
var interactive = words("vi vim nvim nano emacs pico less more most man top htop btop watch ssh sftp ftp telnet " +
	"tmux screen sudo su passwd fzf")

// repls start an interactive interpreter when given no argument at all.
var repls = words("python python3 ipython node irb ruby bash sh zsh fish psql mysql sqlite3 R julia ghci lua php")

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// leftAlone says why a command is left as it is, by its words ("" where
// a word is not a plain literal), or "".
func leftAlone(w []string) string {
	prog := w[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	has := func(flags ...string) bool {
		for _, a := range w[1:] {
			for _, f := range flags {
				if a == f {
					return true
				}
			}
		}
		return false
	}
	switch {
	case shellOnly[prog]:
		return fmt.Sprintf("%s acts on the shell it runs in", prog)
	case interactive[prog]:
		return fmt.Sprintf("%s is interactive", prog)
	case repls[prog] && len(w) == 1:
		return fmt.Sprintf("%s with no argument is interactive", prog)
	case (prog == "tail" || prog == "journalctl") && has("-f", "-F", "--follow"):
		return "a stream that never ends"
	case (prog == "docker" || prog == "podman" || prog == "kubectl") && has("-f", "--follow", "-i", "-t", "-it", "-ti", "--interactive", "--tty"):
		return "interactive, or a stream that never ends"
	case prog == "git" && len(w) > 1 && (w[1] == "rebase" || w[1] == "add") && has("-i", "--interactive", "-p", "--patch"):
		return "an interactive git command"
	}
	return ""
}
