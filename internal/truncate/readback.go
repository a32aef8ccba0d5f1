package truncate

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pathlist"
)

// groupedAt marks the marker line of a listing's or a search's cut.
const groupedAt = ") grouped here: "

// Grouped reads back the output of a listing's or a search's cut (body,
// within the format's wrapper, as outcome.Body gives it): head, the lines
// above its marker line (the output as it was printed), and the paths
// its grouped lines name, with the directory they share: a listing's
// entries, or a search's files (those its lines count by directory
// included, when they name them). ok is false for any other text. A
// summary of the cut would name no more than its lines do; the paths
// are what a clear keeps.
func Grouped(body string) (head string, paths []string, ok bool) {
	line, ok := marker.CutLine(body)
	if !ok || !strings.Contains(line, groupedAt) {
		return "", nil, false
	}
	at := strings.Index(body, "\n"+line) + 1 // the head ends with a newline; an empty one does not
	head = body[:at]
	_, what, _ := strings.Cut(line, groupedAt)
	what, _, _ = strings.Cut(what, "; kept the first ")
	under := ""
	if _, after, found := strings.Cut(what, " under "); found {
		under = after[:strings.LastIndex(after, ", ")]
	}
	search := strings.Contains(what, " match")
	rest := body[at+len(line):]
	kept := true // the numbered lines under the marker come first
	for _, l := range strings.Split(rest, "\n") {
		switch {
		case l == "":
		case kept && strings.HasPrefix(l, "  "):
		case strings.HasPrefix(l, "  ") || search && strings.HasPrefix(l, "lines "):
			kept = false // a match's text; the line numbers of a search of one file
		case search && !isCountLine(l):
			kept = false
			if name := fileOf(l); name != "" {
				paths = append(paths, under+name)
			}
		default:
			kept = false
			for _, p := range pathlist.Expand(l) {
				paths = append(paths, under+p)
			}
		}
	}
	return head, paths, true
}

func isCountLine(l string) bool {
	_, ok := pathlist.Counts(l)
	return ok
}

// fileOf is the file a search's grouped line names ("a.go: 3, 12-14",
// "a.go:", "a.go (3 matches)"), or "" for a match of a search of one file
// ("12: text").
func fileOf(l string) string {
	if i := strings.LastIndex(l, " ("); i > 0 && (strings.HasSuffix(l, " matches)") || strings.HasSuffix(l, " match)")) {
		return l[:i]
	}
	if name, ok := strings.CutSuffix(l, ":"); ok {
		return name
	}
	if name, _, ok := strings.Cut(l, ": "); ok && !isDigitsOnly(name) {
		return name
	}
	return ""
}

func isDigitsOnly(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
