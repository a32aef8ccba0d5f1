package compact

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/lazyre"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// tool is ctx-compact's name in its markers.
const tool = "compact"

// summaryText is the text that replaces a result: ctx-compact's marker,
// which says how many tokens the result had, then the summary's own line
// (the summary's marker tag gives way to ctx-compact's, its note kept) and
// what follows it:
//
//	[ctx-compact] 4,210 tokens summarized: Read internal/x.go: 329 lines, …
func summaryText(summary string, replaced int) string {
	head := "[ctx-" + tool + "] "
	rest := " " + summary
	if _, _, ok := marker.Parse(summary); ok {
		end := strings.IndexByte(summary, ']')
		if _, note, noted := strings.Cut(summary[1:end], ", "); noted {
			head = marker.LineWith(tool, note, "")
		}
		rest = summary[end+1:]
	}
	return head + textfmt.Int(replaced) + " tokens summarized:" + rest
}

var (
	ownSummary = lazyre.New(`^([0-9][0-9,]*) tokens summarized:`)
	ownStub    = lazyre.New(`^([0-9][0-9,]*) tokens of arguments left out:`)
)

// ownTokens reads back the tokens a ctx-compact summary says it replaced.
func ownTokens(text string) (int, bool) {
	return ownCount(text, ownSummary)
}

// ownStubTokens reads back the tokens a call's arguments had before
// ctx-compact left the text they changed out (stub).
func ownStubTokens(input string) (int, bool) {
	if !tools.IsStub(input) {
		return 0, false
	}
	return ownCount(gjson.Get(input, tools.StubKey).String(), ownStub)
}

func ownCount(line string, pattern *lazyre.Regexp) (int, bool) {
	name, rest, ok := marker.Parse(line)
	if !ok || name != tool {
		return 0, false
	}
	m := pattern.FindStringSubmatch(rest)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	return n, err == nil
}

// stub is an edit's or a write's arguments without the text they changed
// (tools.Stub), with a note that says so, how many tokens they had, and
// where they are kept:
//
//	{"file_path":"/p/a.go","ctx-summarize":"[ctx-compact] 1,204 tokens of arguments left out: the text this edit of a.go changed is not shown here."}
func (l *Loop) stub(u *unit) (string, bool) {
	c := u.c
	if c.Args.Command != "" {
		// A command line: the text its heredocs write to files.
		return tools.StubHeredocs(c.Input, func(files []string) string {
			for i, f := range files {
				files[i] = marker.Text(f, 160)
			}
			return l.note(u, "the text this command wrote to "+strings.Join(files, ", ")+" is not shown here.")
		})
	}
	what := "edit"
	if c.Kind == tools.Write {
		what = "write"
	}
	if file := c.Args.File(l.t.Cwd); file != "" {
		what += " of " + marker.Text(file, 160)
	}
	return tools.Stub(c.Input, l.note(u, "the text this "+what+" changed is not shown here."))
}

// note is the note of a stub: how many tokens the arguments had, what was
// left out, and the handle of the call's record.
func (l *Loop) note(u *unit, what string) string {
	note := marker.Line(tool, textfmt.Int(u.tokens)+" tokens of arguments left out: "+what)
	if l.handle != nil && u.c.Result != nil {
		note = marker.CiteArguments(note, l.handle(u.c.Result))
	}
	return note
}

// editLines is the fewest lines after its first that an edit's result
// must have to be summarized: Claude Code's Edit and Write show a snippet
// of the file as edited, which a later read shows better.
const editLines = 5

// editSummary is the summary of an edit's or a write's result: its first
// line, which says what was done to which file, without the lines after
// it (a snippet of the edited file).
func editSummary(r *transcript.Result, text string, handle func(*transcript.Result) string) (string, bool) {
	first, rest, ok := strings.Cut(text, "\n")
	n := strings.Count(rest, "\n") + 1
	if !ok || n < editLines {
		return "", false
	}
	line := strings.TrimSuffix(marker.Text(first, 300), ":") + "; the " + textfmt.Int(n) + " lines after it are not shown here."
	if handle != nil {
		line = marker.Cite(line, handle(r))
	}
	return line, true
}
