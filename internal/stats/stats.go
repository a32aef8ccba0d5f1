// Package stats measures transcripts in tokens the way ctx-count counts
// them (what the model is sent), and what a filter did to one: the Report
// that every filter returns and every --stats line prints, so that the
// lines of a pipe add up (one filter's "after" is the next one's
// "before").
package stats

import (
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Tally is a transcript's tokens, text by text.
type Tally struct {
	Blocks  [][]int // per message, each of its blocks: text and thinking counted, an image estimated
	Calls   []int   // per call, its arguments as the model wrote them
	Results []int   // per result, its text and its images
	Images  int     // images in messages and results
}

// Count counts what the model is sent of t: each message's text and
// thinking, each call's arguments, each result's text, and images
// estimated from their size (docs/count.md). The texts are counted in one
// batch (tokens.CountAll).
func Count(t *transcript.Transcript, ctr tokens.Counter) Tally { return CountKnown(t, ctr, Tally{}) }

// CountKnown is Count for a transcript some of whose counts are known
// (the texts an agent's next request sends again, counted for the last):
// the blocks of message i are known.Blocks[i] when that is not nil, and
// the first calls and results are known.Calls' and known.Results'. The
// rest is counted.
func CountKnown(t *transcript.Transcript, ctr tokens.Counter, known Tally) Tally {
	var texts []string
	add := func(s string) int { texts = append(texts, s); return len(texts) - 1 }
	tl := Tally{Blocks: make([][]int, len(t.Messages)), Calls: make([]int, len(t.Calls)), Results: make([]int, len(t.Results))}
	type ref struct{ msg, block int }
	var blocks []ref
	var blockText []int
	for i, m := range t.Messages {
		if i < len(known.Blocks) && known.Blocks[i] != nil {
			tl.Blocks[i] = known.Blocks[i]
			for _, b := range m.Blocks {
				if b.Type == transcript.Image {
					tl.Images++
				}
			}
			continue
		}
		tl.Blocks[i] = make([]int, len(m.Blocks))
		for j, b := range m.Blocks {
			if b.Type == transcript.Image {
				tl.Blocks[i][j] = imageCost(b)
				tl.Images++
				continue
			}
			blocks = append(blocks, ref{i, j})
			blockText = append(blockText, add(b.Text))
		}
	}
	knownCalls, knownResults := min(len(known.Calls), len(t.Calls)), min(len(known.Results), len(t.Results))
	copy(tl.Calls, known.Calls[:knownCalls])
	copy(tl.Results, known.Results[:knownResults])
	callText := make([]int, len(t.Calls))
	for i, c := range t.Calls[knownCalls:] {
		callText[knownCalls+i] = add(c.Input)
	}
	resText := make([]int, len(t.Results))
	for i, r := range t.Results {
		tl.Images += len(r.Images)
		if i < knownResults {
			continue
		}
		resText[i] = add(r.Text())
		for _, b := range r.Images {
			tl.Results[i] += imageCost(b)
		}
	}
	n := tokens.CountAll(ctr, texts)
	for k, b := range blocks {
		tl.Blocks[b.msg][b.block] = n[blockText[k]]
	}
	for i := knownCalls; i < len(t.Calls); i++ {
		tl.Calls[i] = n[callText[i]]
	}
	for i := knownResults; i < len(t.Results); i++ {
		tl.Results[i] += n[resText[i]]
	}
	return tl
}

func imageCost(b transcript.Block) int {
	if b.Data == "" {
		return tokens.MaxImageTokens
	}
	return tokens.Image(b.Data)
}

// Tokens is the whole transcript's tokens.
func (t Tally) Tokens() int {
	n := t.ToolOutput()
	for _, bs := range t.Blocks {
		for _, b := range bs {
			n += b
		}
	}
	for _, c := range t.Calls {
		n += c
	}
	return n
}

// Message is one message's tokens: its blocks, its calls' arguments and
// its results.
func (t Tally) Message(m *transcript.Message) int {
	n := 0
	for _, b := range t.Blocks[m.Index] {
		n += b
	}
	for _, c := range m.Calls {
		n += t.Calls[c.Index]
	}
	for _, r := range m.Results {
		n += t.Results[r.Index]
	}
	return n
}

// ToolOutput is the tokens of the tool results.
func (t Tally) ToolOutput() int {
	n := 0
	for _, r := range t.Results {
		n += r
	}
	return n
}

// Report is what a filter did to one transcript.
type Report struct {
	Results int // tool results in the transcript
	Changed int // results whose text the filter replaced
	// Detail is the filter's own account, shown in parentheses after the
	// counts: "7 reads of 2 files: 1 pointer, 3 diffs".
	Detail string
	// Measured says Tokens and ToolOutput are filled: they cost a count of
	// the whole transcript, which a filter makes only when asked.
	Measured   bool
	Tokens     Change // the transcript's tokens, as ctx-count counts them
	ToolOutput Change // the tool results' tokens
	// Replaced is the results whose text the filter replaced, in the order
	// it replaced them, each with the text it had before, then the results
	// of the calls whose arguments alone it replaced, then the copies of
	// outputs beside the results (mirrors) that it replaced: what an
	// archive keeps so that the markers' handles give it back.
	Replaced []Replaced
}

// Stats is the report itself: a Report is a filter.Report.
func (r Report) Stats() Report { return r }

// Replaced is a result a filter replaced, and the text it had before; or
// the result of a call whose arguments it replaced (SetInput), and the
// arguments the call had; or a copy of a result's output that it replaced
// (SetMirror), and the text the copy had.
type Replaced struct {
	Result *transcript.Result
	Before string
	// Input is the call's arguments before the filter replaced them; ""
	// when it did not.
	Input string
	// Mirror is the field of the copy replaced (transcript.Mirror), and
	// Handle the handle its marker cites (marker.Handles.Mirror), "" when
	// it cites none; Mirror is "" for the result itself.
	Mirror, Handle string
}

// Change is a number of tokens before and after a filter.
type Change struct{ Before, After int }

// String is the --stats line (without the program's name), the same for
// every filter:
//
//	3 of 15 results changed (7 reads of 2 files: 3 diffs); 22,981 → 18,151 tokens (−21%); tool output 22,536 → 17,706 tokens (−21%)
func (r Report) String() string {
	s := textfmt.Int(r.Changed) + " of " + textfmt.Int(r.Results) + " results changed"
	if r.Detail != "" {
		s += " (" + r.Detail + ")"
	}
	if r.Measured {
		s += "; " + textfmt.Change(r.Tokens.Before, r.Tokens.After, "tokens") +
			"; tool output " + textfmt.Change(r.ToolOutput.Before, r.ToolOutput.After, "tokens")
	}
	return s
}

// Run records the results a filter replaces in one transcript, for its
// Report: a filter changes results through Run.SetText instead of the
// transcript's.
type Run struct {
	t     *transcript.Transcript
	old   map[*transcript.Result]string // the text each changed result had first
	order []*transcript.Result
	// inputs are the arguments each changed call had first (SetInput).
	inputs map[*transcript.Call]string
	calls  []*transcript.Call
	// mirrors are the copies replaced (SetMirror), each once.
	mirrors    []Replaced
	mirrorSeen map[mirrorKey]bool
}

type mirrorKey struct {
	r *transcript.Result
	i int
}

// Start begins a filter's run over t.
func Start(t *transcript.Transcript) *Run {
	return &Run{t: t, old: map[*transcript.Result]string{}, inputs: map[*transcript.Call]string{}}
}

// SetInput replaces a call's arguments through the model (transcript's
// SetInput), remembering the arguments it had. Such a change is not a
// result changed, but its tokens count in the report.
func (r *Run) SetInput(c *transcript.Call, input string) {
	if _, ok := r.inputs[c]; !ok {
		r.inputs[c] = c.Input
		r.calls = append(r.calls, c)
	}
	r.t.SetInput(c, input)
}

// SetText replaces a result's text through the model (transcript's
// SetText), remembering the text it had.
func (r *Run) SetText(res *transcript.Result, text string) {
	if _, ok := r.old[res]; !ok {
		r.old[res] = res.Text()
		r.order = append(r.order, res)
	}
	r.t.SetText(res, text)
}

// SetMirror replaces the text of a result's i-th copy of its output through
// the model (transcript's SetMirror), remembering the text it had and the
// handle its marker cites ("" when it cites none, or when text is no
// marker: a copy emptied).
func (r *Run) SetMirror(res *transcript.Result, i int, text, handle string) {
	k := mirrorKey{res, i}
	if !r.mirrorSeen[k] {
		m := res.Mirror(i)
		if m.Text == text {
			return
		}
		if r.mirrorSeen == nil {
			r.mirrorSeen = map[mirrorKey]bool{}
		}
		r.mirrorSeen[k] = true
		r.mirrors = append(r.mirrors, Replaced{Result: res, Before: m.Text, Mirror: m.Field, Handle: handle})
	}
	r.t.SetMirror(res, i, text)
}

// Summarize replaces a result's text with text, a summary whose marker
// cites the result's handle by h (nil without an archive), and the copies
// of the output beside the result (mirrors), unless keepMirrors: the first
// gets the summary too, citing the copy's own handle (h.Mirror), the
// others are emptied. With an archive, the copies of a result that has no
// handle are left: their marker could not say where their text is.
func (r *Run) Summarize(res *transcript.Result, text string, h marker.Handles, keepMirrors bool) {
	var mirrors []transcript.Mirror
	var handle, first string // the result's handle, the first copy's
	if !keepMirrors && res.NumMirrors() > 0 {
		// Before the result changes: a copy's handle compares its text
		// with the result's.
		mirrors, handle = res.Mirrors(), h.Of(r.t, res)
		first = h.Mirror(r.t, res, mirrors[0])
		if handle == "" && h != nil {
			mirrors = nil
		}
	}
	r.SetText(res, text)
	for i := range mirrors {
		if i == 0 {
			r.SetMirror(res, i, marker.Recite(text, handle, first), first)
		} else {
			r.SetMirror(res, i, "", "")
		}
	}
}

// Report ends the run: the results changed of the results seen, with the
// filter's detail. With a counter it measures tokens too: the transcript
// is counted as it is now, and the replaced results' texts before and
// after, which give the counts before the run.
func (r *Run) Report(ctr tokens.Counter, detail string) Report {
	rep := Report{Results: len(r.t.Results), Changed: len(r.order), Detail: detail}
	for _, res := range r.order {
		rep.Replaced = append(rep.Replaced, Replaced{Result: res, Before: r.old[res], Input: r.inputs[res.Call]})
	}
	for _, c := range r.calls {
		if res := c.Result; res != nil {
			if _, ok := r.old[res]; !ok {
				rep.Replaced = append(rep.Replaced, Replaced{Result: res, Before: res.Text(), Input: r.inputs[c]})
			}
		}
	}
	rep.Replaced = append(rep.Replaced, r.mirrors...)
	if ctr == nil {
		return rep
	}
	tl := Count(r.t, ctr)
	rep.Measured = true
	rep.Tokens.After, rep.ToolOutput.After = tl.Tokens(), tl.ToolOutput()
	olds := make([]string, len(r.order))
	for i, res := range r.order {
		olds[i] = r.old[res]
	}
	diff := tokens.Sum(ctr, olds)
	for _, res := range r.order {
		diff -= tl.Results[res.Index] - ImageTokens(res)
	}
	inputs := make([]string, len(r.calls))
	for i, c := range r.calls {
		inputs[i] = r.inputs[c]
	}
	inputDiff := tokens.Sum(ctr, inputs)
	for _, c := range r.calls {
		inputDiff -= tl.Calls[c.Index]
	}
	rep.Tokens.Before = rep.Tokens.After + diff + inputDiff
	rep.ToolOutput.Before = rep.ToolOutput.After + diff
	return rep
}

// ImageTokens is the estimate of a result's images, which a filter does not
// change.
func ImageTokens(res *transcript.Result) int {
	n := 0
	for _, b := range res.Images {
		n += imageCost(b)
	}
	return n
}
