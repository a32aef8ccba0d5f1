package loops

import (
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// tool is the name in the markers this package writes: [ctx-loops].
const tool = "loops"

// bannerEnd closes the banner; the output as it was follows it, whole.
const bannerEnd = "--- the output as it was ---\n"

// Banner is the header that --banner puts above a failed result, so that
// the failure stands out in the history and the model does not read past
// it, the odincode way:
//
//	[ctx-loops] Bash failed (exit code 1).
//	Error: cat: missing.txt: No such file or directory
//	Do not repeat this call unchanged: change the command, its input or the code first, or try another way.
//	--- the output as it was ---
//
// Only the first line is the marker, and it names no call, so no filter
// reads it as a pointer.
func Banner(s Step) string {
	var b strings.Builder
	b.WriteString(marker.Line(tool, s.Tool+" failed"))
	if s.ExitCode != nil {
		b.WriteString(" (exit code " + strconv.Itoa(*s.ExitCode) + ")")
	}
	b.WriteString(".\n")
	if s.Error != "" {
		b.WriteString("Error: " + s.Error + "\n")
	}
	b.WriteString("Do not repeat this call unchanged: change the command, its input or the code first, or try another way.\n")
	b.WriteString(bannerEnd)
	return b.String()
}

// Unbanner gives back the output that a banner was put above, and whether
// text had one: the banner is reversible without an archive.
func Unbanner(text string) (string, bool) {
	if !marker.Is(text, tool) {
		return text, false
	}
	_, rest, ok := strings.Cut(text, "\n"+bannerEnd)
	if !ok {
		return text, false
	}
	return rest, true
}

// BannerReport says what ApplyBanner did.
type BannerReport struct {
	Results int // tool results in the transcript
	Failed  int // failed results
	Changed int // results given a banner
}

// ApplyBanner puts a banner above every failed result of t that has a call
// and no marker yet (a second run changes nothing; a result another filter
// replaced keeps its own marker first). Mirrors of the output (Claude Code's
// toolUseResult) are left as they are: the model is not sent them. A banner
// adds a few dozen tokens to each failed result: the one filter that makes
// a transcript longer, on purpose.
func ApplyBanner(t *transcript.Transcript) BannerReport {
	rep := BannerReport{Results: len(t.Results)}
	for _, r := range t.Results {
		if r.Call == nil || !r.Failed() {
			continue
		}
		rep.Failed++
		if r.HasPrefix("[ctx-") && marker.Is(r.Text(), "") {
			continue
		}
		s := NewStep(r.Call, t.Cwd)
		t.SetText(r, Banner(s)+r.Text())
		rep.Changed++
	}
	return rep
}
