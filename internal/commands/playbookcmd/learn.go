package playbookcmd

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/cli/llmcli"
	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

var learnCommand = cli.Command{
	Name:      "learn",
	Usage:     "read the patterns of transcripts' tool calls into the playbook",
	ArgsUsage: "[FILE ...]",
	Description: `Reads transcripts (any format ctxkit reads) and finds in their tool calls the patterns below,
each an occurrence of a strategy. An occurrence followed by success counts as helpful, one
followed by a failure, or part of an error loop (ctx-loops' loops), as harmful, one whose
outcome the transcript does not show as neutral; each cites its transcript and calls. A pattern
spans two calls or more; its confidence is the strength of the tie between them (0.95 when the
second call's target is named by the first, 0.85 when it is under the first's directory or
named by its command, 0.80 when only their order ties them) less 0.02 for each call between
them; those under --min-confidence are left out, and none spans more than --window calls.

   file_operations   list before read, read before edit, related reads (same directory)
   code_navigation   search before read, search with line numbers then read those lines
   testing           tests run after changes, a test file read before it is run
   shell             install before run, build before test, git status before add/commit/checkout
   error_handling    list the directory after a file-not-found, check the environment after a
                     failed command

Learning from the same transcript twice changes nothing: each piece of evidence counts once. A
strategy that says nearly the same as one of its category (--similarity) is that one.

With --llm, a model reflects on each transcript instead, as ACE's reflector does (error, root
cause, correct approach, key insight, tags of the playbook's strategies), through any
OpenAI-compatible endpoint (see ctx-summarize --help for the --llm-* flags); its insight
becomes a strategy when it cites calls of the transcript. Where the model fails or cites none,
the rules learn from that transcript (one warning line, exit 0).

The playbook is written atomically (a temporary file renamed over it) under a lock (PATH.lock):
runs at the same time wait for each other and lose no update.

With --each-line, each line of the input is a whole trajectory, learned from as a file is; one
line out for each: {"version":1,"line","file","session","observations":[{"rule","category",
"content","confidence","calls","tag"}]}. Its evidence names the file and the line; a trajectory
without a session id is known by a digest of its line ("session":"sha256:…"), so that the same
line learned again, or from a block of the corpus on stdin (GNU parallel --pipe), counts once.

EXAMPLES:
   ctx-playbook learn ~/.claude/projects/-home-dev-app/*.jsonl
   ctx-playbook learn --stats --playbook team.json sessions/
   parallel --pipe -N 100 ctx-playbook learn --each-line < trajectories.jsonl > learned.jsonl
   ctx-playbook learn --llm --llm-model qwen2.5-coder:7b yesterday.jsonl`,
	Flags: append([]ucli.Flag{
		PlaybookFlag, cli.FormatFlag, cli.ToolKindFlag, minConfidence, windowFlag, similarityFlag, statsFlag,
		cli.EachLineFlag, cli.JobsFlag, cli.QuietFlag, llmFlag,
	}, llmcli.Endpoint...),
	Run: runLearn,
}

var (
	minConfidence = &ucli.Float64Flag{Name: "min-confidence", Value: playbook.DefaultReflect().MinConfidence, EnvVars: []string{"CTX_MIN_CONFIDENCE"},
		Usage: "leave out patterns less sure than `C` (0-1)"}
	windowFlag = &ucli.IntFlag{Name: "window", Value: playbook.DefaultReflect().Window, EnvVars: []string{"CTX_PLAYBOOK_WINDOW"}, // CTX_WINDOW is the context window's
		Usage: "a pattern spans at most `N` calls between its two ends"}
	llmFlag = llmcli.Flag("ask a model to reflect on each transcript, through an OpenAI-compatible endpoint; the rules where it fails")
)

// learned is what one transcript taught: the rules' observations, or the
// model's, and why the model's could not be had.
type learned struct {
	obs      []playbook.Observation
	tags     []playbook.IDTag
	asked    bool   // the model was asked
	fallback string // why its answer was not used; "" when it was
	err      error
}

func runLearn(e *cli.Env) error {
	path, err := playbookPath(e)
	if err != nil {
		return err
	}
	r, err := playbook.NewReflector(playbook.ReflectOptions{MinConfidence: e.Float64(minConfidence.Name), Window: e.Int(windowFlag.Name)})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	threshold, err := similarity(e)
	if err != nil {
		return err
	}
	var model *reflectModel
	if e.Bool(llmFlag.Name) {
		if model, err = newReflectModel(e, path); err != nil {
			return err
		}
		defer model.close(e)
	}
	learn := func(t *transcript.Transcript, src playbook.Source) learned {
		l := learned{obs: r.Reflect(t, src)}
		if model != nil {
			model.reflect(r, t, src, &l)
		}
		return l
	}
	var all []learned
	if e.Bool(cli.EachLineFlag.Name) {
		all, err = learnEachLine(e, learn)
	} else if srcs, serr := e.Sources(); serr != nil {
		err = serr
	} else {
		err = e.EachParallel(srcs, func(in cli.Input) (func() error, error) {
			t, err := e.Load(in)
			if err != nil {
				return nil, err
			}
			l := learn(t, playbook.Source{File: evidenceName(in.Source)})
			return func() error { all = append(all, l); return nil }, nil
		})
	}
	if err != nil {
		return err
	}
	var obs []playbook.Observation
	var tags []playbook.IDTag
	for _, l := range all {
		obs, tags = append(obs, l.obs...), append(tags, l.tags...)
		if model != nil {
			model.count(l)
		}
	}
	var rep playbook.LearnReport
	var n, tagged int
	update := updatePlaybook
	if len(obs) == 0 && len(tags) == 0 {
		update = viewPlaybook // nothing to learn: nothing written, nothing locked
	}
	err = update(path, func(p *playbook.Playbook) (bool, error) {
		at := now()
		// The model's tags first: a strategy it tags and whose text its
		// insight repeats, from the same calls, counts the tag.
		for _, t := range tags {
			if p.TagByEvidence(t.ID, t.Evidence, at) {
				tagged++
			}
		}
		rep = p.Learn(obs, threshold, at)
		n = len(p.Strategies)
		return rep.Changed() || tagged > 0, nil
	})
	if err != nil {
		return err
	}
	if e.Bool(statsFlag.Name) {
		e.Note(fmt.Sprintf("%s: %s from %s; %s, %s counted (%s already known); %s",
			path, textfmt.Plural(rep.Observations, "observation", "observations"), textfmt.Plural(len(all), "transcript", "transcripts"),
			textfmt.Plural(rep.New, "new strategy", "new strategies"), textfmt.Plural(rep.Counted+tagged, "use", "uses"),
			textfmt.Int(rep.Known), textfmt.Plural(n, "strategy", "strategies")))
	}
	return nil
}

// learnEachLine is learn --each-line: each line a whole transcript, learned
// from as a file is, and one line out for each, the observations it gave
// (learnedLine). The lines' observations come back in the order of the
// lines, so that new strategies are numbered as a run over files would.
func learnEachLine(e *cli.Env, learn func(*transcript.Transcript, playbook.Source) learned) ([]learned, error) {
	var mu sync.Mutex
	bySeq := map[int]learned{}
	err := e.EachLine(func(t *transcript.Transcript, in cli.LineInput) ([]byte, string, error) {
		src := playbook.Source{File: evidenceName(in.Src), Line: in.Line, Session: t.SessionID}
		if src.Session == "" {
			src.Session = playbook.Digest(in.Data)
		}
		l := learn(t, src)
		mu.Lock()
		bySeq[in.Seq] = l
		mu.Unlock()
		out, err := cli.MarshalLine(newLearnedLine(in, src, l))
		return out, "", err
	})
	all := make([]learned, 0, len(bySeq))
	for _, seq := range slices.Sorted(maps.Keys(bySeq)) {
		all = append(all, bySeq[seq])
	}
	return all, err
}

// learnedLine is the line learn --each-line writes for a transcript.
type learnedLine struct {
	Version      int               `json:"version"`
	Line         int               `json:"line"`
	File         string            `json:"file"`
	Session      string            `json:"session"`
	Observations []lineObservation `json:"observations"`
}

// lineObservation is an observation as learnedLine gives it.
type lineObservation struct {
	Rule       string       `json:"rule"`
	Category   string       `json:"category"`
	Content    string       `json:"content"`
	Confidence float64      `json:"confidence"`
	Calls      []string     `json:"calls"`
	Tag        playbook.Tag `json:"tag"`
}

func newLearnedLine(in cli.LineInput, src playbook.Source, l learned) learnedLine {
	out := learnedLine{Version: playbook.Version, Line: in.Line, File: in.Name, Session: src.Session, Observations: []lineObservation{}}
	for _, o := range l.obs {
		out.Observations = append(out.Observations, lineObservation{Rule: o.Rule, Category: o.Category, Content: o.Content,
			Confidence: o.Confidence, Calls: o.Evidence.Calls, Tag: o.Evidence.Tag})
	}
	return out
}

// evidenceName is how evidence names a transcript: its absolute path, so
// that the evidence holds wherever the playbook is read; <stdin> for
// standard input.
func evidenceName(s cli.Source) string {
	if s.Name == "-" {
		return s.Display()
	}
	if abs, err := filepath.Abs(s.Name); err == nil {
		return abs
	}
	return s.Name
}

// reflectModel asks a model to reflect on transcripts, for learn --llm.
type reflectModel struct {
	client     *llm.Client
	closeCache func() error
	// The playbook as it was when the run began: the model tags its
	// strategies. Tags of a strategy pruned since are dropped.
	snapshot *playbook.Playbook
	asked    int
	failed   map[string]int
	first    string
}

func newReflectModel(e *cli.Env, path string) (*reflectModel, error) {
	snapshot, err := readPlaybook(path)
	if err != nil {
		return nil, err
	}
	client, closeCache, err := llmcli.NewClient(e, playbook.AnswerTokens)
	if err != nil {
		return nil, err
	}
	return &reflectModel{client: client, closeCache: closeCache, snapshot: snapshot, failed: map[string]int{}}, nil
}

// reflect asks the model about t; its answer replaces the rules'
// observations in l, unless it fails or cites no call of t.
func (m *reflectModel) reflect(r *playbook.Reflector, t *transcript.Transcript, src playbook.Source, l *learned) {
	prompt, ok := r.Prompt(t, m.snapshot)
	if !ok {
		return // fewer than two calls: nothing to ask
	}
	l.asked = true
	resp, err := m.client.Complete(context.Background(), llm.Request{Version: playbook.PromptVersion, Messages: []llm.Message{
		{Role: "system", Content: prompt.System},
		{Role: "user", Content: prompt.User},
	}})
	if err != nil {
		l.fallback, l.err = llm.Reason(err), err
		return
	}
	ref, err := playbook.ParseReflection(resp.Content, t)
	if err != nil {
		l.fallback, l.err = "unusable answer", err
		return
	}
	got := r.Learn(ref, m.client.Model(), t, src)
	l.obs, l.tags = got.Observations, got.Tags
}

// count keeps what the model did for one transcript, for the warning.
func (m *reflectModel) count(l learned) {
	if !l.asked {
		return
	}
	m.asked++
	if l.fallback != "" {
		m.failed[l.fallback]++
		if m.first == "" {
			m.first = llmcli.OneLine(l.err)
		}
	}
}

// close closes the cache and warns, in one line, of the transcripts the
// rules learned from because the model gave no usable answer.
func (m *reflectModel) close(e *cli.Env) {
	llmcli.Close(e, m.client, m.closeCache)
	llmcli.WarnFallbacks(e, m.client.Model(), m.failed, m.asked, "transcripts, which the rules learned from", m.first)
}
