package summarize

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/parallel"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// Summaries written by a model (ctx-summarize --llm) come in three steps,
// so that the filter stays pure: Prompts says what to ask about each result
// the rules would summarize, the caller asks a model, and WithAnswers gives
// the answers to Apply. A model's summary replaces only a result the rules
// would replace, and only when it is shorter than the rules' summary; it
// shows the facts of the rules' marker line and gets the error lines and
// paths that the rules keep, and that the model left out, appended word for
// word. Any result without a usable answer gets the rules' summary.

// PromptVersion names the prompt and the way an answer becomes a summary.
// Answers are cached under it: change it whenever either changes.
const PromptVersion = "ctx-summarize/1"

// AnswerTokens is the cap on an answer's tokens to ask for: the prompt asks
// for at most 100 words (about 130 tokens); an answer cut at the cap is not
// used.
const AnswerTokens = 300

// System is the system message of every prompt: what a later turn needs of
// the output (success or failure, paths, names, errors, what to do next, at
// most 100 words).
const System = "You summarize the output of one tool call that a coding agent made. " +
	"The agent will read your summary instead of the output, later, to continue its work. " +
	"Keep: success or failure, key file paths, important data (function names, class names, errors), " +
	"and actionable information. At most 100 words, plain text, no preamble."

// NotShorter is the fallback of a result whose summary by the model has no
// fewer tokens than the rules'.
const NotShorter = "not shorter"

// NotNeeded is the fallback of a result the model was asked about that a
// budget left whole: the history fit without it.
const NotNeeded = "not needed"

// Failure reports whether a fallback is the model's failure to answer, not
// an answer that was of no use.
func Failure(fallback string) bool { return fallback != NotShorter && fallback != NotNeeded }

// maxParams is the most characters of a call's arguments in a prompt.
const maxParams = 1000

// Prompt is what a model is asked about one result.
type Prompt struct {
	Result       *transcript.Result
	System, User string
}

// askOver is how many tokens a model's answer is expected to take (100
// words): the rules' summary must have that many more than what a model's
// summary keeps whatever the answer (its marker line, the error lines and
// paths) for a model to be asked.
const askOver = 100

// Prompts returns a prompt for every result that Apply, with the rules,
// would summarize, unless a model's summary would hardly be shorter than
// the rules': their summary is one line (a listing's counts and paths), or
// what a model's summary must keep (git status's every path, a log's error
// lines) leaves no room for an answer of askOver tokens. Such a request
// would be spent for nothing. Prompts changes nothing.
//
// Under a budget, the results asked about are those that the ladder, with
// the rules, leaves summarized: a model's summaries are shorter, so the
// ladder with them stops no later, and never clears one of them.
func (f *Filter) Prompts(t *transcript.Transcript) []Prompt {
	rules := *f
	rules.answers = nil
	var plans []plan
	if f.opts.Budget > 0 {
		b, _, _ := rules.ladderOf(t)
		for i := range t.Results {
			if b.now[i] != "" && b.summary[i] {
				plans = append(plans, b.plan(i))
			}
		}
	} else {
		_, plans, _ = rules.decide(t)
	}
	asked := make([]*Prompt, len(plans))
	parallel.For(len(plans), 4, func(i int) {
		p := plans[i]
		if !strings.Contains(p.summary, "\n") {
			return
		}
		_, o, _ := f.rules(t).summarize(p.r.Call, p.r.Text())
		if p.tokens <= f.ctr.Count(modelSummary(o, "", ""))+askOver {
			return
		}
		asked[i] = &Prompt{Result: p.r, System: System, User: f.prompt(o)}
	})
	var out []Prompt
	for _, p := range asked {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// prompt is the user message about one output: the tool, its parameters
// and its result, and what the rules know of it.
func (f *Filter) prompt(o output) string {
	c := o.call
	var b strings.Builder
	b.WriteString("Summarize this tool result.\nTool: " + c.Name + "\n")
	if in := strings.TrimSpace(c.Input); in != "" {
		b.WriteString("Parameters: " + textfmt.Clip(in, maxParams) + "\n")
	}
	b.WriteString("Known: " + strings.Join(nonEmpty(append([]string{"a " + string(c.Kind) + " call", o.status()},
		append(o.must.facts, size(o.body))...)), "; ") + "\n")
	if len(o.must.errors) > 0 {
		b.WriteString("Error lines (keep them):\n")
		for _, e := range o.must.errors {
			b.WriteString(clipLine(e) + "\n")
		}
	}
	if len(o.must.paths) > 0 {
		b.WriteString("Paths to name: " + strings.Join(o.must.paths, ", ") + "\n")
	}
	body, cut := f.modelInput(o.body)
	if cut {
		b.WriteString("Result (too long: its head, the lines that matter and its tail):\n")
	} else {
		b.WriteString("Result:\n")
	}
	b.WriteString(body)
	return b.String()
}

// modelInput is what a model is sent of an output: the whole, or, over
// ModelInput tokens, its head and tail and the lines between that say what
// failed (ctx-truncate's cut), and whether it was cut.
func (f *Filter) modelInput(body string) (string, bool) {
	n := f.opts.ModelInput
	if n == 0 || len(body) <= n { // a token is a byte at least
		return body, false
	}
	if cut, ok := truncate.Cut(body, truncate.Rules{Max: n, Head: n * 2 / 5, Tail: n * 2 / 5, TokenMode: true,
		Counter: f.ctr, KeepMatches: truncate.DefaultKeepMatches}); ok {
		return cut, true
	}
	if f.ctr.Count(body) <= n {
		return body, false
	}
	// Already cut by ctx-truncate, and still too long: its head.
	return textfmt.Clip(body, n), true
}

// Answers are a model's answers about one transcript's results.
type Answers struct {
	Model string // the model's name, for the markers and the report
	// Text is each answer by the index of its result (Result.Index).
	Text map[int]string
	// Failed says why a result that was asked about has no answer ("timeout",
	// "status 500"), by the index of its result.
	Failed map[int]string
	// Cost is what asking cost, for the report.
	Cost Cost
}

// Cost is what a model's answers cost, as the caller that asked counts
// them.
type Cost struct {
	// Requests sent (retries included) and answers found in the cache.
	Requests  int `json:"requests"`
	CacheHits int `json:"cache_hits"`
	// Tokens as the server reported them.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// WithAnswers returns the filter that uses a model's answers where they
// make shorter summaries than the rules. Give it the answers to the prompts
// of the transcript it will apply to.
func (f *Filter) WithAnswers(a *Answers) *Filter {
	g := *f
	g.answers = a
	return &g
}

// useAnswers puts a model's summary in place of the rules' (whose tokens
// are after) where it has fewer tokens, and says why where it does not.
func (f *Filter) useAnswers(t *transcript.Transcript, texts []string, plans []plan, after []int) {
	rules := f.rules(t)
	parallel.For(len(plans), 8, func(i int) {
		p := &plans[i]
		if why, failed := f.answers.Failed[p.r.Index]; failed {
			p.fallback = why
			return
		}
		answer, ok := f.answers.Text[p.r.Index]
		if !ok {
			return // not asked
		}
		_, o, _ := rules.summarize(p.r.Call, texts[p.r.Index])
		s := modelSummary(o, f.answers.Model, answer)
		if n := f.ctr.Count(s); n < after[i] {
			p.summary, after[i], p.model = s, n, true
		} else {
			p.fallback = NotShorter
		}
	})
}

// modelFirst is the rules' summarizer of a run to a budget, whose summary
// of a result the model answered about is the model's where that has fewer
// tokens; it keeps each model's summary it made in made, by result.
type modelFirst struct {
	rules   Rules
	answers *Answers
	ctr     tokens.Counter
	made    []string
}

// Summarize implements Summarizer.
func (m modelFirst) Summarize(c *transcript.Call, text string) (string, bool) {
	s, ok := m.rules.Summarize(c, text)
	answer, asked := m.answers.Text[c.Result.Index]
	if !ok || !asked {
		return s, ok
	}
	_, o, _ := m.rules.summarize(c, text)
	ms := modelSummary(o, m.answers.Model, answer)
	if m.ctr.Count(ms) >= m.ctr.Count(s) {
		return s, true
	}
	m.made[c.Result.Index] = ms // each result is summarized by one goroutine
	return ms, true
}

// setModel names the model on the entries of the plans it summarized.
func (r *Report) setModel(plans []plan, model string) {
	for i, p := range plans { // the entries are in the plans' order
		if p.model {
			r.Changes[i].Model = model
		}
	}
}

// modelSummary is a model's answer as a summary: the marker line of the
// rules (tool, target, how it ended, their facts, the size) tagged with the
// model's name, the answer, and the error lines and paths the rules keep
// that the answer left out.
func modelSummary(o output, model, answer string) string {
	line := o.line(nonEmpty(append(append([]string{o.status()}, o.must.facts...), size(o.body))), "")
	return o.kept(marker.LineWith("summarize", "model "+model, strings.TrimPrefix(line, marker.Line("summarize", "")))+"\n"+tidy(answer), true)
}

// tidy trims an answer and drops its blank lines: a summary is read as a
// block.
func tidy(answer string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(answer), "\n") {
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ModelReport is what a model did for one transcript, and what it cost.
type ModelReport struct {
	Name string `json:"name"`
	// Asked is the results the model was asked about; Summaries those it
	// summarized; Fallbacks the others, by why they have the rules'
	// summary ("not shorter", "timeout", "status 500"…).
	Asked     int            `json:"asked"`
	Summaries int            `json:"summaries"`
	Fallbacks map[string]int `json:"fallbacks"`
	Cost
}

// report counts what the answers did for the plans.
func (a *Answers) report(plans []plan) *ModelReport {
	r := &ModelReport{Name: a.Model, Asked: len(a.Text) + len(a.Failed), Fallbacks: map[string]int{}, Cost: a.Cost}
	rest := r.Asked
	for _, p := range plans {
		switch {
		case p.model:
			r.Summaries++
		case p.fallback != "":
			r.Fallbacks[p.fallback]++
		default:
			continue
		}
		rest--
	}
	if rest > 0 { // under a budget, which fit without them
		r.Fallbacks[NotNeeded] += rest
	}
	return r
}

// String is the report's part of the --stats line, the detail in its
// parentheses: "model M wrote 3 of 4, 1 rule-based: 1 timeout; 4 requests,
// …".
func (r ModelReport) String() string {
	s := "model " + r.Name + " wrote " + textfmt.Int(r.Summaries) + " of " + textfmt.Int(r.Asked)
	if n := r.Asked - r.Summaries; n > 0 {
		s += ", " + textfmt.Int(n) + " rule-based: " + r.FallbackList()
	}
	return s + "; " + textfmt.Plural(r.Requests, "request", "requests") + ", " + textfmt.Plural(r.CacheHits, "cache hit", "cache hits") +
		", " + textfmt.Int(r.PromptTokens) + " prompt + " + textfmt.Int(r.CompletionTokens) + " completion tokens"
}

// FallbackList names the fallbacks by count, the most first: "2 timeout,
// 1 not shorter".
func (r ModelReport) FallbackList() string { return textfmt.Counts(r.Fallbacks) }
