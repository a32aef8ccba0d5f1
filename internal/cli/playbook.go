package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/playbook"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Playbook is ctx-playbook.
var Playbook = Command{
	Name:      "ctx-playbook",
	Usage:     "learn strategies from transcripts and hand them to the next session",
	ArgsUsage: "COMMAND [flags] [ARGS ...]",
	Description: `A playbook is a JSON file of strategies that an agent's own sessions taught, after ACE
(Agentic Context Engine): each strategy has an id (fil-00042), a category, its text, counts of how
often following it was followed by success (helpful) or by a failure (harmful), and the evidence:
the transcript and the calls that show it. Yesterday's sessions go in with learn; today's session
starts with render's text in its system prompt (or a SessionStart hook). See docs/playbook.md.

COMMANDS:
   learn [FILE ...]         read the patterns of transcripts' tool calls into the playbook
   render                   the strategies for a system prompt, best first, within limits
   stats                    the playbook's counts, by category
   add TEXT ...             add a strategy by hand
   tag ID helpful|harmful|neutral   count one use of a strategy
   prune                    remove the strategies that did more harm than good, or unused ones
   merge [PLAYBOOK ...]     merge near-duplicate strategies, and other playbooks in

EXAMPLES:
   ctx-playbook learn ~/.claude/projects ~/.codex/sessions
   ctx-playbook render --max-tokens 1500 > playbook.md
   ctx-playbook stats
   ctx-playbook <command> --help`,
	Run: func(e *Env) error {
		if e.Args().Len() > 0 {
			return Usagef("unknown command %q (want learn, render, stats, add, tag, prune or merge)", e.Args().First())
		}
		return Usagef("no command given (want learn, render, stats, add, tag, prune or merge)")
	},
	Subcommands: []Command{playbookLearn, playbookRender, playbookStats, playbookAdd, playbookTag, playbookPrune, playbookMerge},
}

var (
	similarityFlag = &ucli.Float64Flag{Name: "similarity", Value: playbook.DefaultSimilarity, EnvVars: []string{"CTX_SIMILARITY"},
		Usage: "two strategies of a category are one when their words (less small words like a, the, to) overlap this much, `0-1` (Jaccard); above 1: only the same words"}
	playbookStatsFlag = &ucli.BoolFlag{Name: "stats", EnvVars: []string{"CTX_STATS"},
		Usage: "print one line to stderr saying what changed"}
)

// similarity is --similarity, checked.
func (e *Env) similarity() (float64, error) {
	s := e.Float64(similarityFlag.Name)
	if s < 0 || math.IsNaN(s) {
		return 0, Usagef("--similarity must be 0 or more")
	}
	return s, nil
}

var playbookLearn = Command{
	Name:      "learn",
	Usage:     "read the patterns of transcripts' tool calls into the playbook",
	ArgsUsage: "[FILE ...]",
	Description: `Reads transcripts (any format ctxkit reads) and finds in their tool calls the patterns below,
each an occurrence of a strategy. An occurrence followed by success counts as helpful, one followed
by a failure, or part of an error loop (ctx-loops' loops), as harmful, one whose outcome the
transcript does not show as neutral; each cites its transcript and calls. A pattern spans two calls or more; its confidence is the strength of the tie
between them (0.95 when the second call's target is named by the first, 0.85 when it is under the
first's directory or named by its command, 0.80 when only their order ties them) less 0.02 for each
call between them; those under --min-confidence are left out, and none spans more than --window
calls.

   file_operations   list before read, read before edit, related reads (same directory)
   code_navigation   search before read, search with line numbers then read those lines
   testing           tests run after changes, a test file read before it is run
   shell             install before run, build before test, git status before add/commit/checkout
   error_handling    list the directory after a file-not-found, check the environment after a
                     failed command

Learning from the same transcript twice changes nothing: each piece of evidence counts once. A
strategy that says nearly the same as one of its category (--similarity) is that one.

With --llm, a model reflects on each transcript instead, as ACE's reflector does (error,
root cause, correct approach, key insight, tags of the playbook's strategies), through any
OpenAI-compatible endpoint (see ctx-summarize --help for the --llm-* flags); its insight becomes a
strategy when it cites calls of the transcript. Where the model fails or cites none, the rules
learn from that transcript (one warning line, exit 0).

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
		PlaybookFlag, FormatFlag, ToolKindFlag,
		&ucli.Float64Flag{Name: "min-confidence", Value: playbook.DefaultReflect().MinConfidence, EnvVars: []string{"CTX_MIN_CONFIDENCE"},
			Usage: "leave out patterns less sure than `C` (0-1)"},
		&ucli.IntFlag{Name: "window", Value: playbook.DefaultReflect().Window, EnvVars: []string{"CTX_PLAYBOOK_WINDOW"}, // CTX_WINDOW is the context window's
			Usage: "a pattern spans at most `N` calls between its two ends"},
		similarityFlag, playbookStatsFlag, EachLineFlag, JobsFlag, QuietFlag,
		&ucli.BoolFlag{Name: "llm", EnvVars: []string{"CTX_LLM"},
			Usage: "ask a model to reflect on each transcript, through an OpenAI-compatible endpoint; the rules where it fails"},
	}, llmEndpointFlags...),
	Run: runLearn,
}

// learned is what one transcript taught: the rules' observations, or the
// model's, and why the model's could not be had.
type learned struct {
	obs      []playbook.Observation
	tags     []playbook.IDTag
	asked    bool   // the model was asked
	fallback string // why its answer was not used; "" when it was
	err      error
}

func runLearn(e *Env) error {
	path, err := e.playbookPath()
	if err != nil {
		return err
	}
	r, err := playbook.NewReflector(playbook.ReflectOptions{MinConfidence: e.Float64("min-confidence"), Window: e.Int("window")})
	if err != nil {
		return Usagef("%v", err)
	}
	threshold, err := e.similarity()
	if err != nil {
		return err
	}
	var model *reflectModel
	if e.Bool("llm") {
		if model, err = e.newReflectModel(path); err != nil {
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
	if e.Bool(EachLineFlag.Name) {
		all, err = e.learnEachLine(learn)
	} else if srcs, serr := e.Sources(); serr != nil {
		err = serr
	} else {
		err = e.EachParallel(srcs, func(in Input) (func() error, error) {
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
	if e.Bool(playbookStatsFlag.Name) {
		e.note(fmt.Sprintf("%s: %s from %s; %s, %s counted (%s already known); %s",
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
func (e *Env) learnEachLine(learn func(*transcript.Transcript, playbook.Source) learned) ([]learned, error) {
	var mu sync.Mutex
	bySeq := map[int]learned{}
	err := e.EachLine(func(t *transcript.Transcript, in LineInput) ([]byte, string, error) {
		src := playbook.Source{File: evidenceName(in.Src), Line: in.Line, Session: t.SessionID}
		if src.Session == "" {
			src.Session = playbook.Digest(in.Data)
		}
		l := learn(t, src)
		mu.Lock()
		bySeq[in.Seq] = l
		mu.Unlock()
		out, err := marshalLine(newLearnedLine(in, src, l))
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

func newLearnedLine(in LineInput, src playbook.Source, l learned) learnedLine {
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
func evidenceName(s Source) string {
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

func (e *Env) newReflectModel(path string) (*reflectModel, error) {
	snapshot, err := readPlaybook(path)
	if err != nil {
		return nil, err
	}
	client, closeCache, err := e.newLLMClient(playbook.AnswerTokens)
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
			m.first = oneLineError(l.err)
		}
	}
}

// close closes the cache and warns, in one line, of the transcripts the
// rules learned from because the model gave no usable answer.
func (m *reflectModel) close(e *Env) {
	closeLLM(e, m.client, m.closeCache)
	warnFallbacks(e, m.client.Model(), m.failed, m.asked, "transcripts, which the rules learned from", m.first)
}

var playbookRender = Command{
	Name:  "render",
	Usage: "the strategies for a system prompt, best first, within limits",
	Description: `Writes the playbook's strategies best first (the most helpful less harmful, then the most
effective, then the most used) as many as fit --max-strategies and --max-tokens: a strategy that
would take the text over --max-tokens is left out and the next ones tried. An empty playbook
writes nothing.

   markdown (default)   # Playbook, then a section a category:
                        - [fil-00042] Read a file before editing it, … (helpful 5, harmful 0)
   ace                  ACE's lines under ## SECTION:
                        [fil-00042] helpful=5 harmful=0 :: Read a file before editing it, …
   json (--json)        {"version":1,"strategies":[{"id","category","content","helpful_count",
                        "harmful_count","neutral_count","effectiveness"}],"shown","omitted","tokens"};
                        --max-tokens bounds the strategies' JSON

--stats prints on stderr how many strategies fit and their tokens.

With --hook claude-code or --hook codex, it answers the agent's SessionStart hook (the payload on
stdin) with the rendering as additionalContext, so that a new session starts with the playbook;
other events, and an empty playbook, get no answer. A hook never breaks the session: a bad playbook
is one line on stderr, exit 0 (docs/hooks.md).

EXAMPLES:
   ctx-playbook render > playbook.md
   ctx-playbook render --format ace --max-strategies 20
   ctx-playbook render --json | jq -r '.strategies[].content'
   claude --append-system-prompt "$(ctx-playbook render --max-tokens 1000)"
   ctx-playbook render --hook claude-code < session-start.json   # as a SessionStart hook`,
	Flags: []ucli.Flag{
		PlaybookFlag,
		&ucli.StringFlag{Name: "format", Value: string(playbook.Markdown), EnvVars: []string{"CTX_PLAYBOOK_FORMAT"},
			Usage: "`FORMAT` markdown, ace (ACE's [id] helpful=N harmful=N :: text lines) or json"},
		&ucli.BoolFlag{Name: "json", EnvVars: []string{"CTX_JSON"}, Usage: "write JSON (the same as --format json)"},
		&ucli.IntFlag{Name: "max-strategies", Value: 50, EnvVars: []string{"CTX_MAX_STRATEGIES"},
			Usage: "write at most `N` strategies; 0: no limit"},
		&ucli.IntFlag{Name: "max-tokens", Value: 2000, EnvVars: []string{"CTX_PLAYBOOK_MAX_TOKENS"},
			Usage: "write at most `N` tokens; 0: no limit"},
		EncodingFlag, playbookStatsFlag, HookFlag,
	},
	Run: runRender,
}

func runRender(e *Env) error {
	if e.Args().Len() > 0 {
		return Usagef("render takes no arguments")
	}
	format, err := playbook.ParseFormat(e.String("format"))
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if e.Bool("json") {
		format = playbook.JSON
	}
	ctr, err := e.Counter()
	if err != nil {
		return err
	}
	opts := playbook.RenderOptions{Format: format, MaxStrategies: e.Int("max-strategies"), MaxTokens: e.Int("max-tokens"), Counter: ctr}
	if e.IsSet(HookFlag.Name) {
		return e.Hook(func(_ hook.Agent, p hook.Payload) (hook.Answer, error) {
			if p.Event != hook.SessionStart {
				return nil, nil
			}
			_, pb, err := e.loadPlaybook()
			if err != nil {
				return nil, err
			}
			out, err := playbook.Render(pb, opts)
			if err != nil || out.Shown == 0 {
				return nil, err
			}
			return hook.AdditionalContext(string(out.Text)), nil
		})
	}
	_, p, err := e.loadPlaybook()
	if err != nil {
		return err
	}
	out, err := playbook.Render(p, opts)
	if err != nil {
		return Usagef("%v", err)
	}
	text := out.Text
	if format == playbook.JSON {
		text, err = json.Marshal(struct {
			Version    int             `json:"version"`
			Strategies json.RawMessage `json:"strategies"`
			Shown      int             `json:"shown"`
			Omitted    int             `json:"omitted"`
			Tokens     int             `json:"tokens"`
		}{playbook.Version, out.Text, out.Shown, out.Omitted, out.Tokens})
		if err != nil {
			return err
		}
		text = append(text, '\n')
	}
	if e.Bool(playbookStatsFlag.Name) {
		e.note(fmt.Sprintf("%s of %s, %s (%s)", textfmt.Int(out.Shown), textfmt.Plural(out.Shown+out.Omitted, "strategy", "strategies"),
			textfmt.Plural(out.Tokens, "token", "tokens"), ctr.Name()))
	}
	_, err = e.Stdout.Write(text)
	return err
}

var playbookStats = Command{
	Name:  "stats",
	Usage: "the playbook's counts, by category",
	Description: `Prints the playbook's strategies, uses (helpful, harmful, neutral), the transcripts its evidence
cites, and a row a category; --json gives the same as JSON:
{"strategies","helpful","harmful","neutral","evidence","transcripts","prunable",
 "categories":[{"category","strategies","helpful","harmful","neutral"}]}

EXAMPLES:
   ctx-playbook stats
   ctx-playbook stats --json --playbook team.json`,
	Flags: []ucli.Flag{PlaybookFlag, &ucli.BoolFlag{Name: "json", EnvVars: []string{"CTX_JSON"}, Usage: "print the counts as JSON"}},
	Run:   runStats,
}

func runStats(e *Env) error {
	if e.Args().Len() > 0 {
		return Usagef("stats takes no arguments")
	}
	path, p, err := e.loadPlaybook()
	if err != nil {
		return err
	}
	st := p.Count()
	var b bytes.Buffer
	if e.Bool("json") {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(&b, "%s: %s from %s; %s helpful, %s harmful, %s neutral\n", textfmt.Escape(path),
			textfmt.Plural(st.Strategies, "strategy", "strategies"), textfmt.Plural(st.Transcripts, "transcript", "transcripts"),
			textfmt.Int(st.Helpful), textfmt.Int(st.Harmful), textfmt.Int(st.Neutral))
		if len(st.Categories) > 0 {
			tb := textfmt.Table{Indent: "  ", Right: map[int]bool{1: true, 2: true, 3: true, 4: true}}
			tb.Row("CATEGORY", "STRATEGIES", "HELPFUL", "HARMFUL", "NEUTRAL")
			for _, c := range st.Categories {
				tb.Row(c.Category, textfmt.Int(c.Strategies), textfmt.Int(c.Helpful), textfmt.Int(c.Harmful), textfmt.Int(c.Neutral))
			}
			b.WriteByte('\n')
			if err := tb.Write(&b); err != nil {
				return err
			}
		}
		if st.Prunable > 0 {
			fmt.Fprintf(&b, "\n%s below −0.3 effectiveness: ctx-playbook prune removes %s.\n",
				textfmt.Plural(st.Prunable, "strategy is", "strategies are"), map[bool]string{true: "it", false: "them"}[st.Prunable == 1])
		}
	}
	_, err = e.Stdout.Write(b.Bytes())
	return err
}

var playbookAdd = Command{
	Name:      "add",
	Usage:     "add a strategy by hand",
	ArgsUsage: "TEXT ...",
	Description: `Adds a strategy (its words are the arguments, joined by spaces) to --category, and prints its id.
A strategy of the category that says nearly the same (--similarity) is not added again: its id is
printed instead. A strategy added by hand has no evidence until learn or the model cites some.

EXAMPLES:
   ctx-playbook add --category testing "Run go vet before the tests: it is faster."
   id=$(ctx-playbook add Prefer small commits) && ctx-playbook tag "$id" helpful`,
	Flags: []ucli.Flag{PlaybookFlag,
		&ucli.StringFlag{Name: "category", Value: playbook.General, EnvVars: []string{"CTX_CATEGORY"},
			Usage: "the strategy's `CATEGORY`: file_operations, code_navigation, testing, shell, error_handling, general or another"},
		similarityFlag,
	},
	Run: func(e *Env) error {
		path, err := e.playbookPath()
		if err != nil {
			return err
		}
		threshold, err := e.similarity()
		if err != nil {
			return err
		}
		text := strings.Join(e.Args().Slice(), " ")
		if strings.TrimSpace(text) == "" {
			return Usagef("add needs the strategy's text")
		}
		var id string
		err = updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
			s, added, err := p.Add(e.String("category"), text, threshold, now())
			if err != nil {
				return false, Usagef("%v", err)
			}
			id = s.ID
			return added, nil
		})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(e.Stdout, id)
		return err
	},
}

var playbookTag = Command{
	Name:      "tag",
	Usage:     "count one use of a strategy",
	ArgsUsage: "ID helpful|harmful|neutral",
	Description: `Counts one use of the strategy ID: helpful (following it went well), harmful (it was followed
by a failure) or neutral. An unknown ID is a failure (exit 1), and the playbook is left as it is.

EXAMPLES:
   ctx-playbook tag fil-00003 helpful`,
	Flags: []ucli.Flag{PlaybookFlag},
	Run: func(e *Env) error {
		if e.Args().Len() != 2 {
			return Usagef("tag takes an ID and a tag: helpful, harmful or neutral")
		}
		tag, err := playbook.ParseTag(e.Args().Get(1))
		if err != nil {
			return Usagef("%v", err)
		}
		path, err := e.playbookPath()
		if err != nil {
			return err
		}
		return updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
			if err := p.TagID(e.Args().First(), tag, now()); err != nil {
				return false, Failf("%s: %v", path, err)
			}
			return true, nil
		})
	},
}

var playbookPrune = Command{
	Name:  "prune",
	Usage: "remove the strategies that did more harm than good, or unused ones",
	Description: `Removes the strategies whose effectiveness, (helpful − harmful) / (helpful + harmful + neutral),
is below --below (the design's −0.3: 1 helpful and 2 harmful is −0.33, gone; 2 helpful and 3
harmful is −0.2, kept); a strategy never tagged is not judged. With --older-than, also those not
learned from or tagged for that long. --dry-run prints what would go, one per line, and changes
nothing; --stats prints one line saying what went.

EXAMPLES:
   ctx-playbook prune
   ctx-playbook prune --older-than 90d --dry-run`,
	Flags: []ucli.Flag{PlaybookFlag,
		&ucli.Float64Flag{Name: "below", Value: playbook.DefaultPruneBelow, EnvVars: []string{"CTX_BELOW"},
			Usage: "remove strategies whose effectiveness is below `E` (-1 to 1)"},
		&ucli.StringFlag{Name: "older-than", EnvVars: []string{"CTX_OLDER_THAN"},
			Usage: "also remove strategies unused for `AGE`: 90d, 12h, 2h30m"},
		&ucli.BoolFlag{Name: "dry-run", EnvVars: []string{"CTX_DRY_RUN"}, Usage: "print what would be removed; change nothing"},
		playbookStatsFlag,
	},
	Run: runPrune,
}

func runPrune(e *Env) error {
	if e.Args().Len() > 0 {
		return Usagef("prune takes no arguments")
	}
	age, err := parseAge(e.String("older-than"))
	if err != nil {
		return Usagef("--older-than: %v", err)
	}
	below := e.Float64("below")
	if math.IsNaN(below) {
		return Usagef("--below must be a number")
	}
	path, err := e.playbookPath()
	if err != nil {
		return err
	}
	dry := e.Bool("dry-run")
	var removed []*playbook.Strategy
	var left int
	err = updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
		removed = p.Prune(playbook.PruneOptions{Below: below, OlderThan: age, Now: now()})
		left = len(p.Strategies)
		return len(removed) > 0 && !dry, nil
	})
	if err != nil {
		return err
	}
	if dry {
		var b strings.Builder
		for _, s := range removed {
			fmt.Fprintf(&b, "%s\t%s\n", s.ID, textfmt.Escape(s.Content))
		}
		if _, err := e.Stdout.Write([]byte(b.String())); err != nil {
			return err
		}
	}
	if e.Bool(playbookStatsFlag.Name) {
		ids := make([]string, len(removed))
		for i, s := range removed {
			ids[i] = s.ID
		}
		verb := "removed"
		if dry {
			verb = "would remove"
		}
		line := fmt.Sprintf("%s: %s %s", path, verb, textfmt.Plural(len(removed), "strategy", "strategies"))
		if len(ids) > 0 {
			line += " (" + strings.Join(ids, ", ") + ")"
		}
		e.note(line + "; " + textfmt.Plural(left, "strategy", "strategies") + " left")
	}
	return nil
}

// parseAge reads a duration that may count days: 90d, 1d12h, 2h30m.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 100_000 { // 270 years: no Duration overflows
			return 0, fmt.Errorf("%q: want an age such as 90d, 12h or 1d12h", s)
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
	}
	var rest time.Duration
	if s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > 100_000*24*time.Hour {
			return 0, fmt.Errorf("%q: want an age such as 90d, 12h or 1d12h", s)
		}
		rest = d
	}
	if days+rest <= 0 {
		return 0, fmt.Errorf("the age must be more than 0")
	}
	return days + rest, nil
}

var playbookMerge = Command{
	Name:      "merge",
	Usage:     "merge near-duplicate strategies, and other playbooks in",
	ArgsUsage: "[PLAYBOOK ...]",
	Description: `Adds the strategies of each PLAYBOOK file to --playbook (a strategy that says nearly the same as
one of its category joins it: counts added, evidence counted once; the others get new ids), then
merges the strategies of each category that say nearly the same into the oldest of them.
Nearly the same: equal once lower-cased and stripped of punctuation, or words (less small words
like a, the, to) that overlap by --similarity (Jaccard: shared words over all words; 0.8 by
default, so "Read a file before editing it" and "Always read the file before editing it" are one).

EXAMPLES:
   ctx-playbook merge
   ctx-playbook merge --playbook team.json alice.json bob.json`,
	Flags: []ucli.Flag{PlaybookFlag, similarityFlag, playbookStatsFlag},
	Run:   runMerge,
}

func runMerge(e *Env) error {
	path, err := e.playbookPath()
	if err != nil {
		return err
	}
	threshold, err := e.similarity()
	if err != nil {
		return err
	}
	var others []*playbook.Playbook
	for _, name := range e.Args().Slice() {
		o, err := readPlaybook(name)
		if err != nil {
			return err
		}
		others = append(others, o)
	}
	var added, merged, left int
	var gone []string
	err = updatePlaybook(path, func(p *playbook.Playbook) (bool, error) {
		at := now()
		for _, o := range others {
			a, m := p.Absorb(o, threshold, at)
			added, merged = added+a, merged+m
		}
		gone = p.Merge(threshold, at)
		left = len(p.Strategies)
		return added+merged+len(gone) > 0, nil
	})
	if err != nil {
		return err
	}
	if e.Bool(playbookStatsFlag.Name) {
		line := fmt.Sprintf("%s: %s added, %s merged in", path, textfmt.Int(added), textfmt.Int(merged))
		if len(gone) > 0 {
			line += ", " + textfmt.Int(len(gone)) + " near-duplicates merged (" + strings.Join(gone, ", ") + ")"
		}
		e.note(line + "; " + textfmt.Plural(left, "strategy", "strategies"))
	}
	return nil
}
