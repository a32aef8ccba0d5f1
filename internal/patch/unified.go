package patch

import (
	"fmt"
	"github.com/ctxkit/ctxkit/internal/lazyre"
	"strconv"
	"strings"
)

// hunkHeader is a unified diff's @@ -a,b +c,d @@ [section] line.
var hunkHeader = lazyre.New(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$`)

// ParseUnified reads a unified diff (diff -u, git diff): for each file its
// --- and +++ headers and its hunks. /dev/null on one side makes the file
// an Add or a Delete; git's rename headers make a move. Lines outside
// files and hunks (diff --git, index, mode lines, commentary) are skipped.
func ParseUnified(text string) ([]File, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []File
	var renameFrom, renameTo string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "diff --git "):
			renameFrom, renameTo = "", ""
		case strings.HasPrefix(line, "rename from "):
			renameFrom = line[len("rename from "):]
		case strings.HasPrefix(line, "rename to "):
			renameTo = line[len("rename to "):]
		case strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			from, to := HeaderPath(line[4:]), HeaderPath(lines[i+1][4:])
			renameFrom, renameTo = "", ""
			f := File{Op: Update, Path: from}
			switch {
			case from == "/dev/null":
				f.Op, f.Path = Add, to
			case to == "/dev/null":
				f.Op = Delete
			case to != from:
				f.MoveTo = to
			}
			i += 2
			hunks, next, err := unifiedHunks(lines, i)
			if err != nil {
				return nil, err
			}
			i = next - 1
			if f.Op == Add {
				// The new file's text is its one hunk's added lines.
				f.Content = applyAdd(hunks)
			} else if f.Op == Update {
				f.Hunks = hunks
			}
			out = append(out, f)
		case renameFrom != "" && renameTo != "" && (line == "" || strings.HasPrefix(line, "diff --git ")):
			// A pure rename: git prints no --- and +++ for it.
			out = append(out, File{Op: Update, Path: renameFrom, MoveTo: renameTo})
			renameFrom, renameTo = "", ""
			if line != "" {
				i--
			}
		}
	}
	if renameFrom != "" && renameTo != "" {
		out = append(out, File{Op: Update, Path: renameFrom, MoveTo: renameTo})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no file headers (--- and +++) in the diff")
	}
	return out, nil
}

// HeaderPath is the path of a unified diff's --- or +++ header: without
// its a/ or b/ prefix and its timestamp.
func HeaderPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// unifiedHunks reads the hunks that start at lines[i]; it returns them and
// the index of the first line after them.
func unifiedHunks(lines []string, i int) ([]Hunk, int, error) {
	var out []Hunk
	for i < len(lines) {
		m := hunkHeader.FindStringSubmatch(lines[i])
		if m == nil {
			break
		}
		oldStart, _ := strconv.Atoi(m[1])
		oldCount, newCount := 1, 1
		if m[2] != "" {
			oldCount, _ = strconv.Atoi(m[2])
		}
		if m[4] != "" {
			newCount, _ = strconv.Atoi(m[4])
		}
		h := Hunk{Pos: max(oldStart-1, 0)}
		if oldCount == 0 {
			h.Pos = oldStart // an addition goes after line oldStart
		}
		if s := strings.TrimSpace(m[5]); s != "" {
			h.Context = []string{s}
		}
		i++
		for oldCount > 0 || newCount > 0 {
			if i >= len(lines) {
				return nil, i, fmt.Errorf("line %d: hunk ends early: %d old and %d new lines missing", i, oldCount, newCount)
			}
			l := lines[i]
			kind := byte(' ')
			if l != "" {
				kind = l[0]
				l = l[1:]
			}
			switch kind {
			case ' ':
				oldCount--
				newCount--
			case '-':
				oldCount--
			case '+':
				newCount--
			case '\\':
				i++
				continue
			default:
				return nil, i, fmt.Errorf("line %d: unexpected %s in a hunk", i+1, quoteShort(lines[i]))
			}
			h.Lines = append(h.Lines, Line{Kind: kind, Text: l})
			i++
		}
		// "\ No newline at end of file" after the new side's last line.
		if i < len(lines) && strings.HasPrefix(lines[i], `\`) {
			if last := h.Lines[len(h.Lines)-1]; last.Kind != '-' {
				h.NoNewline = true
			}
			i++
		}
		out = append(out, h)
	}
	return out, i, nil
}

// applyAdd is the text of a new file: its hunks' added lines.
func applyAdd(hunks []Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		b.WriteString(h.New())
	}
	s := b.String()
	if len(hunks) > 0 && hunks[len(hunks)-1].NoNewline {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}
