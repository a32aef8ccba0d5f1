package tools

import (
	"path"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// heredocWrite is a heredoc whose text a command writes to a file.
type heredocWrite struct {
	span [2]int // the body's bytes in the command line
	file string
}

// heredocWrites lists the heredocs of a command line whose text cat writes
// to a file (cat > F <<EOF, cat <<EOF | tee F), whatever steps come before
// and after it (cd DIR && cat > F <<EOF ... EOF && python F).
func heredocWrites(src string) []heredocWrite {
	p := parse(src)
	var out []heredocWrite
	for _, pl := range p.out {
		first := pl[0]
		words := stripPrefixes(first.words)
		if first.compound || len(words) == 0 || path.Base(words[0]) != "cat" || len(operands(words[1:], nil)) > 0 {
			continue
		}
		body := -1
		for _, r := range first.redirs {
			if r.body >= 0 {
				body = r.body
			}
		}
		file := ""
		if len(pl) == 1 {
			file = stdoutTarget(first)
		} else if f, _, ok := teeFile(pl); ok {
			file = f
		}
		if body >= 0 && file != "" && p.spans[body][1] > p.spans[body][0] {
			out = append(out, heredocWrite{span: p.spans[body], file: file})
		}
	}
	return out
}

// StubHeredocs returns a shell call's arguments without the text that its
// command writes to files through heredocs (cat > F <<EOF, cat <<EOF | tee
// F): each body becomes one line that says how many lines it had, and
// note(files written) goes under StubKey, as Stub leaves an edit's text
// out. The command line is read under the command keys (command, cmd,
// script) as a string. false when it holds no such heredoc, or the
// arguments are not a JSON object or are a stub already.
func StubHeredocs(input string, note func(files []string) string) (string, bool) {
	in := gjson.Parse(input)
	if !in.IsObject() || !jsonscan.Valid(input) || IsStub(input) {
		return "", false
	}
	for _, key := range commandKeys {
		cmd := in.Get(key)
		if cmd.Type != gjson.String {
			continue
		}
		writes := heredocWrites(cmd.Str)
		if len(writes) == 0 {
			return "", false
		}
		var b strings.Builder
		var files []string
		at := 0
		for _, w := range writes {
			body := cmd.Str[w.span[0]:w.span[1]]
			b.WriteString(cmd.Str[at:w.span[0]])
			b.WriteString("(" + textfmt.Plural(strings.Count(strings.TrimSuffix(body, "\n"), "\n")+1, "line", "lines") + " not shown here)\n")
			at = w.span[1]
			files = append(files, w.file)
		}
		b.WriteString(cmd.Str[at:])
		out, err := sjson.SetRaw(input, key, jsonscan.Quote(b.String()))
		if err != nil {
			return "", false
		}
		if out, err = sjson.SetRaw(out, StubKey, jsonscan.Quote(note(files))); err != nil {
			return "", false
		}
		return out, true
	}
	return "", false
}
