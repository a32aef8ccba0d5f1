package dedupe

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// The marker lines of docs/markers.md, section ctx-dedupe.

// tool is the name in the markers: [ctx-dedupe].
const tool = "dedupe"

// pointerLine is the marker of a re-read identical to the result of call
// id, above it, or below it with KeepLatest (latest).
func pointerLine(file string, rng tools.Range, text, id string, latest bool) string {
	return marker.Line(tool, readOf(latest)+about(file, rng, text)+
		": identical to the result of call "+id+where(latest)+"; content not repeated here.")
}

// coveredLine is the marker of a read whose n lines, from line first of the
// file (0: unknown), are in the result of call id, the same.
func coveredLine(file string, rng tools.Range, text, id string, first, n int, latest bool) string {
	lines := "the last " + textfmt.Plural(n, "line", "lines")
	if first > 0 {
		lines = "lines " + strconv.Itoa(first) + "-" + strconv.Itoa(first+n-1) + " of the file"
	}
	return marker.Line(tool, readOf(latest)+about(file, rng, text)+
		": the same text as "+lines+" in the result of call "+id+where(latest)+"; content not repeated here.")
}

// diffLine is the marker of a re-read that changed since the result of call
// id (before it, with KeepLatest); the diff follows on the next lines.
func diffLine(file string, rng tools.Range, text, id string, stripped, latest bool) string {
	how := "."
	if stripped {
		how = " (line numbers stripped)."
	}
	changed := ": changed since the result of call "
	if latest {
		changed = ": changed before the result of call "
	}
	return marker.Line(tool, readOf(latest)+about(file, rng, text)+
		changed+id+where(latest)+"; content not repeated here, only a unified diff against it follows"+how)
}

// readOf starts a read's marker: a re-read points up, an earlier read (with
// KeepLatest) down.
func readOf(latest bool) string {
	if latest {
		return "Earlier read of "
	}
	return "Re-read of "
}

// where says where the result a marker points at is.
func where(latest bool) string {
	if latest {
		return " below"
	}
	return " above"
}

// repeatLine is the marker of a call repeated with the same arguments and
// the same output as call id (--all-tools), above it, or below it with
// KeepLatest.
func repeatLine(name, target, text, id string, latest bool) string {
	what := "Repeated " + marker.Text(name, 40) + " call"
	if target != "" {
		what += " (" + marker.Text(target, 80) + ")"
	}
	return marker.Line(tool, what+", "+size(text)+" of output: identical to the result of call "+id+where(latest)+"; not repeated here.")
}

// about names a read: the file, its range and the size of what it returned.
func about(file string, rng tools.Range, text string) string {
	s := marker.Text(file, 160) + " ("
	if !rng.Whole() {
		s += rng.String() + "; "
	}
	return s + size(text) + ")"
}

// size is a text's size in chars and lines: "5,328 chars, 120 lines".
func size(text string) string {
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	unit := " lines"
	if lines == 1 {
		unit = " line"
	}
	return textfmt.Int(utf8.RuneCountInString(text)) + " chars, " + textfmt.Int(lines) + unit
}
