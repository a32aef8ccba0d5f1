package marker

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// cutShape is the shape of the marker line that ctx-truncate's cut writes in
// place of the middle of a text (truncate.Cut), for IsCut.
var cutShape = func() *lazyre.Regexp {
	const n = `\d{1,3}(?:,\d{3})*`
	// What a listing's or a search's cut keeps of what stood after its
	// head (truncate's group).
	const grouped = n + ` (?:paths?|match(?:es)?)(?: in ` + n + ` files?)?(?: under .+)?, (?:` +
		`every one named below by directory` +
		`|counted below by (?:directory|their directories of the first ` + n + ` levels?) with ` + n + ` of their names` +
		`|every file named below with (?:the line numbers of its matches|its count of matches) and the text of ` + n + ` of them` +
		`|the files counted below by directory with ` + n + ` of their names` +
		`|the line number of every one below and the text of ` + n + ` of them)`
	return lazyre.New(`^\[ctx-truncate\] (` + n + `) chars?, ` + n + ` lines?; ` + n + ` chars? (?:` +
		`\(` + n + ` lines?\) cut here; kept the first ` + n + ` and last ` + n + ` lines?` +
		`|cut here, (?:inside line ` + n + `|from (?:inside )?line ` + n + ` to (?:inside )?line ` + n + `); kept the first ` + n + ` and last ` + n + ` chars?` +
		`|\(` + n + ` lines?\) grouped here: ` + grouped + `; kept the first ` + n + ` lines?` +
		`)(?: and ` + n + ` lines? that matters? \(numbered\))?(?:` + CitationPattern + `)?\.$`)
}()

// CutPrefix starts every marker line of a cut.
var CutPrefix = Line("truncate", "")

// IsCut reports whether text is the output of a cut: one of its lines is a
// ctx-truncate marker line, in the exact shape Cut writes, that says the
// text had more chars than it has now. A cut's output always holds its own
// marker line (and only it: a text that held one was not cut), so Cut of
// its output changes nothing; a log that merely quotes a marker line of a
// longer text is recognised too, and left whole, which is safe.
func IsCut(text string) bool {
	_, ok := CutLine(text)
	return ok
}

// CitedCut returns the handle that the marker line of a cut cites, or "":
// the archive gives the whole output back by it.
func CitedCut(text string) string {
	line, _ := CutLine(text)
	return Cited(line)
}

// CutLine returns the marker line of a cut, and whether text is the
// output of one (IsCut).
func CutLine(text string) (string, bool) {
	for off := 0; off < len(text); {
		i := strings.Index(text[off:], CutPrefix)
		if i < 0 {
			return "", false
		}
		i += off
		off = i + len(CutPrefix)
		if i > 0 && text[i-1] != '\n' {
			continue
		}
		line := text[i:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		m := cutShape.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		total, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err == nil && total > textfmt.RuneCount(text) {
			return line, true
		}
	}
	return "", false
}
