package patch

import (
	"fmt"
	"strings"
)

// IsEnvelope reports whether text is an apply_patch envelope.
func IsEnvelope(text string) bool {
	return strings.Contains(text, "*** Begin Patch")
}

// ParseEnvelope reads Codex's apply_patch envelope:
//
//	*** Begin Patch
//	*** Add File: PATH      then the file's lines, each prefixed with +
//	*** Delete File: PATH
//	*** Update File: PATH   optionally *** Move to: PATH, then hunks:
//	@@ [context line]       then lines prefixed with ' ', - or +;
//	                        *** End of File ends a hunk at the file's end
//	*** End Patch
//
// as Codex reads it: a heredoc wrapper (<<'EOF' ... EOF) around it and
// white space around the markers are allowed, and an Update's first hunk
// may go without its @@ line.
func ParseEnvelope(text string) ([]File, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	if n := len(lines); n >= 2 && strings.HasPrefix(strings.TrimSpace(lines[0]), "<<") {
		lines = lines[1 : n-1] // apply_patch <<'EOF' ... EOF, passed as one argument
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "*** Begin Patch" {
		return nil, fmt.Errorf("line 1: want *** Begin Patch")
	}
	last := len(lines) - 1
	if strings.TrimSpace(lines[last]) != "*** End Patch" {
		return nil, fmt.Errorf("line %d: want *** End Patch", len(lines))
	}
	p := envelopeParser{lines: lines[:last], i: 1}
	return p.files()
}

type envelopeParser struct {
	lines []string
	i     int
}

func (p *envelopeParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *envelopeParser) files() ([]File, error) {
	var out []File
	for p.i < len(p.lines) {
		line := strings.TrimSpace(p.lines[p.i])
		switch {
		case line == "":
			p.i++
		case strings.HasPrefix(line, "*** Add File: "):
			f := File{Op: Add, Path: strings.TrimSpace(line[len("*** Add File: "):])}
			p.i++
			var b strings.Builder
			for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "+") {
				b.WriteString(p.lines[p.i][1:])
				b.WriteByte('\n')
				p.i++
			}
			f.Content = b.String()
			out = append(out, f)
		case strings.HasPrefix(line, "*** Delete File: "):
			out = append(out, File{Op: Delete, Path: strings.TrimSpace(line[len("*** Delete File: "):])})
			p.i++
		case strings.HasPrefix(line, "*** Update File: "):
			f := File{Op: Update, Path: strings.TrimSpace(line[len("*** Update File: "):])}
			p.i++
			if p.i < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), "*** Move to: ") {
				f.MoveTo = strings.TrimSpace(strings.TrimSpace(p.lines[p.i])[len("*** Move to: "):])
				p.i++
			}
			hunks, err := p.hunks()
			if err != nil {
				return nil, err
			}
			if len(hunks) == 0 && f.MoveTo == "" {
				return nil, p.errorf("update of %s has no hunks", f.Path)
			}
			f.Hunks = hunks
			out = append(out, f)
		default:
			return nil, p.errorf("unexpected %s: want *** Add File, *** Delete File or *** Update File", quoteShort(line))
		}
	}
	return out, nil
}

// hunks reads an Update's hunks, up to the next file or the end.
func (p *envelopeParser) hunks() ([]Hunk, error) {
	var out []Hunk
	h := Hunk{Pos: -1}
	flush := func() {
		if len(h.Lines) > 0 {
			out = append(out, h)
		}
		h = Hunk{Pos: -1}
	}
	for p.i < len(p.lines) {
		raw := p.lines[p.i]
		trimmed := strings.TrimSpace(raw)
		switch {
		case trimmed == "*** End of File":
			h.EndOfFile = true
			flush()
			p.i++
			continue
		case strings.HasPrefix(trimmed, "*** "):
			flush()
			return out, nil
		case trimmed == "@@" || strings.HasPrefix(trimmed, "@@ "):
			if len(h.Lines) > 0 {
				flush()
			}
			if ctx := strings.TrimSpace(strings.TrimPrefix(trimmed, "@@")); ctx != "" {
				h.Context = append(h.Context, ctx)
			}
		case raw == "":
			h.Lines = append(h.Lines, Line{Kind: ' '}) // an empty context line
		case raw[0] == ' ' || raw[0] == '-' || raw[0] == '+':
			h.Lines = append(h.Lines, Line{Kind: raw[0], Text: raw[1:]})
		default:
			return nil, p.errorf("unexpected %s in a hunk: want a line starting with ' ', - or +", quoteShort(raw))
		}
		p.i++
	}
	flush()
	return out, nil
}
