package dedupe

import (
	"fmt"

	"github.com/ctxkit/ctxkit/internal/count"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Summary is the --stats line for t after Apply: the reads found, what
// became of them, and the transcript's tokens before and after, counted as
// ctx-count counts them.
//
//	42 reads of 9 files; 23 pointers, 4 diffs, 0 repeated calls; 61,020 → 48,400 tokens (−21%)
func (r Report) Summary(t *transcript.Transcript, ctr tokens.Counter) string {
	after := count.Count(t, ctr, 0).Tokens
	var olds, news []string
	for _, c := range r.Changes {
		olds = append(olds, c.Old)
		news = append(news, c.Result.Text())
	}
	before := after
	for _, n := range tokens.CountAll(ctr, olds) {
		before += n
	}
	for _, n := range tokens.CountAll(ctr, news) {
		before -= n
	}
	return fmt.Sprintf("%s of %s; %s, %s, %s; %s",
		plural(r.Reads, "read"), plural(r.Files, "file"),
		plural(r.Count(Pointer), "pointer"), plural(r.Count(Diff), "diff"), plural(r.Count(Repeat), "repeated call"),
		textfmt.Change(before, after, "tokens"))
}

// plural is "1 file", "2 files".
func plural(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return textfmt.Int(n) + " " + noun
}
