package loops

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// tool is the name in the markers this package writes: [ctx-loops].
const tool = "loops"

// bannerEnd closes the banner; the output as it was follows it, whole.
const bannerEnd = "--- the output as it was ---\n"

// Header is the banner that --banner puts above a failed result, so that
// the failure stands out in the history and the model does not read past
// it, the odincode way:
//
//	[ctx-loops] Bash failed (exit code 1).
//	Error: cat: missing.txt: No such file or directory
//	Do not repeat this call unchanged: change the command, its input or the code first, or try another way.
//	--- the output as it was ---
//
// Only the first line is the marker, and it names no call, so no filter
// reads it as a pointer. With an archive's handle, it ends by citing it
// (marker.Cite), as every filter's marker does.
func Header(s Step, handle string) string {
	var b strings.Builder
	line := marker.Line(tool, s.Tool+" failed")
	if s.ExitCode.Known() {
		line += " (exit code " + s.ExitCode.String() + ")"
	}
	b.WriteString(marker.Cite(line+".", handle) + "\n")
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

// BannerOptions are --banner's settings.
type BannerOptions struct {
	// Measure fills the Report's token counts, with Counter: it costs a
	// count of the whole transcript, so it is only done for --stats.
	Measure bool
	Counter tokens.Counter
	// Handle gives the archive's handle of a result about to get a banner,
	// which its marker line cites; nil when there is no archive.
	Handle marker.Handles
}

// Banner is the --banner filter, its options checked.
type Banner struct{ opts BannerOptions }

// NewBanner checks the options once.
func NewBanner(opts BannerOptions) (*Banner, error) {
	if opts.Measure && opts.Counter == nil {
		return nil, errors.New("banner: no token counter")
	}
	return &Banner{opts: opts}, nil
}

// Apply puts a banner above every failed result of t that has a call and no
// marker yet (a second run changes nothing; a result another filter
// replaced keeps its own marker first). Mirrors of the output (Claude Code's
// toolUseResult) are left as they are: the model is not sent them. A banner
// adds a few dozen tokens to each failed result: the one filter that makes
// a transcript longer, on purpose.
func (f *Banner) Apply(t *transcript.Transcript) stats.Report {
	failed := 0
	var todo []*transcript.Result
	var handles []string // each handle found before any result changes
	for _, r := range t.Results {
		if r.Call == nil || !r.Failed() {
			continue
		}
		failed++
		if marker.OnResult(r) {
			continue
		}
		todo = append(todo, r)
		handles = append(handles, f.opts.Handle.Of(t, r))
	}
	run := stats.Start(t)
	for i, r := range todo {
		run.SetText(r, Header(NewStep(r.Call, t.Cwd), handles[i])+r.Text())
	}
	var ctr tokens.Counter
	if f.opts.Measure {
		ctr = f.opts.Counter
	}
	return run.Report(ctr, textfmt.Plural(failed, "failed result", "failed results"))
}

// DenyReason tells the model what failed, how often, and what to do
// instead. The loop holds the call about to be made as its last step. The
// call is quoted as it was made (its white space too: a command that
// differs in it differs), clipped. No final period: Codex adds its own text
// after the reason.
func DenyReason(l Loop, next Step) string {
	before := textfmt.Int(len(l.Steps) - 1)
	what := next.Tool
	if next.What != "" {
		what += " (" + textfmt.Clip(next.What, 200) + ")"
	}
	errText := ""
	if l.Error != "" {
		errText = ", each time with: " + textfmt.Clip(l.Error, 200)
	}
	var b strings.Builder
	// The first line is the marker the transcript will hold as the call's
	// result, with nothing of the call in it (a command could read as
	// "call ID" to the other filters), by which internal/outcome knows the
	// call was denied; what failed follows on the next.
	b.WriteString(outcome.LoopsDenial + "\n")
	switch l.Kind {
	case Repeat:
		fmt.Fprintf(&b, "%s has already failed %s times with these arguments and no successful edit or write in between%s. ", what, before, errText)
		b.WriteString("Running it unchanged will fail the same way. Read the error, change the code, the input or the command first, or try another approach")
	case SameError:
		fmt.Fprintf(&b, "%s %s calls with different arguments have already failed with the same error and no successful edit or write in between%s; this call, %s, repeats one of them. ", before, l.Tool, errText, what)
		b.WriteString("Changing the arguments has not helped: look for the cause elsewhere (re-read the file, check the path, the environment or the assumption behind the call) before trying again")
	default:
		fmt.Fprintf(&b, "%s would go round a cycle of %d calls (%s) that has already come round with the same failures%s. ", what, l.Period, l.Tool, errText)
		b.WriteString("Going round again will not help: stop, say what is failing and why, and take a different approach")
	}
	return b.String()
}
