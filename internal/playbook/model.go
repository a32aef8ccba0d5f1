package playbook

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// PromptVersion names the reflection prompt: cached answers are kept apart
// by it, so that a new prompt does not get an old prompt's answers.
const PromptVersion = "playbook-reflect-1"

// AnswerTokens caps the model's answer: one JSON object of a few sentences.
const AnswerTokens = 600

// The digest of a session shows at most this many calls: the first
// digestHead and the last digestMax−digestHead.
const (
	digestMax  = 300
	digestHead = 100
	// promptStrategies is how many of the playbook's best strategies the
	// model sees, to tag those the session followed.
	promptStrategies = 30
)

const reflectSystem = `You are the reflector of an agent's playbook (ACE, Agentic Context Engine). You read the tool calls of one session of a coding agent, in order, each with how it ended, and you say what the session teaches the agent's next session.

Answer with one JSON object and nothing else:
{"error_identification": "what went wrong in the session, or none",
 "root_cause_analysis": "why it went wrong",
 "correct_approach": "what the agent should have done",
 "key_insight": "one strategy for the next session: one imperative sentence, general, naming no file or value of this session",
 "category": "file_operations, code_navigation, testing, shell, error_handling or general",
 "confidence": 0.0 to 1.0, how sure you are that the calls show the strategy,
 "evidence": ["the ids of the calls that show it, as the list gives them"],
 "tags": ["a few short topic words"],
 "bullet_tags": [{"id": "an id of the playbook below", "tag": "helpful, harmful or neutral"}]}

Cite only ids of the list. Tag only the playbook's strategies that the session followed: helpful when following it went well, harmful when it was followed by a failure.`

// Prompt is what the model is asked about one transcript.
type Prompt struct {
	System, User string
}

// Prompt returns the reflection prompt for a transcript: its calls, each on
// one line with how it ended, and the playbook's best strategies; false
// when the transcript has fewer than two calls, which teach nothing.
func (r *Reflector) Prompt(t *transcript.Transcript, p *Playbook) (Prompt, bool) {
	s := newSession(t, r.opts.Window)
	if len(s.acts) < 2 {
		return Prompt{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The session's tool calls (%s), in order:\n", textfmt.Plural(len(s.acts), "call", "calls"))
	for i, a := range s.acts {
		if len(s.acts) > digestMax && i == digestHead {
			fmt.Fprintf(&b, "… %s left out …\n", textfmt.Plural(len(s.acts)-digestMax, "call", "calls"))
		}
		if len(s.acts) > digestMax && i >= digestHead && i < len(s.acts)-(digestMax-digestHead) {
			continue
		}
		b.WriteString(digestLine(t, a))
		b.WriteByte('\n')
	}
	b.WriteString("\nThe playbook's strategies:\n")
	ranked := Rank(p.Strategies)
	if len(ranked) == 0 {
		b.WriteString("(none yet)\n")
	}
	for _, st := range ranked[:min(len(ranked), promptStrategies)] {
		fmt.Fprintf(&b, "[%s] %s (helpful %d, harmful %d)\n", st.ID, st.Content, st.Helpful, st.Harmful)
	}
	return Prompt{System: reflectSystem, User: b.String()}, true
}

// digestLine is a call on one line: id, kind, tool, target, how it ended.
func digestLine(t *transcript.Transcript, a *act) string {
	c := a.c
	target := strings.Join(strings.Fields(c.Args.Target(t.Cwd)), " ")
	line := fmt.Sprintf("%s | %s %s | %s | ", c.ID, c.Kind, c.Name, textfmt.Clip(target, 160))
	if !a.failed {
		return line + "ok"
	}
	return line + textfmt.Clip(c.Result.Outcome().Message(c.Result.Text()), 200)
}

// Reflection is the model's answer, as ACE's reflector gives it.
type Reflection struct {
	ErrorIdentification string      `json:"error_identification"`
	RootCause           string      `json:"root_cause_analysis"`
	CorrectApproach     string      `json:"correct_approach"`
	KeyInsight          string      `json:"key_insight"`
	Category            string      `json:"category"`
	Confidence          float64     `json:"confidence"`
	Evidence            []string    `json:"evidence"`
	Tags                []string    `json:"tags"`
	BulletTags          []BulletTag `json:"bullet_tags"`
}

// BulletTag is the model's tag of a strategy of the playbook.
type BulletTag struct {
	ID  string `json:"id"`
	Tag string `json:"tag"`
}

// ErrNoEvidence is a reflection that cites no call of the transcript: what
// it says cannot be checked, so it is not learned.
var ErrNoEvidence = errors.New("the answer cites no call of the transcript")

// ParseReflection reads the model's answer: a JSON object, alone or in a
// fenced block. Its evidence keeps only the ids of calls the transcript
// has; an answer with none, or without a key insight, is an error.
func ParseReflection(answer string, t *transcript.Transcript) (Reflection, error) {
	var r Reflection
	start, end := strings.IndexByte(answer, '{'), strings.LastIndexByte(answer, '}')
	if start < 0 || end < start {
		return r, errors.New("the answer holds no JSON object")
	}
	if err := json.Unmarshal([]byte(answer[start:end+1]), &r); err != nil {
		return r, fmt.Errorf("the answer's JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	r.KeyInsight = cleanContent(r.KeyInsight)
	if r.KeyInsight == "" {
		return r, errors.New("the answer has no key insight")
	}
	ids := map[string]bool{}
	for _, c := range t.Calls {
		if c.Result != nil && c.Continues == nil && c.ID != "" {
			ids[c.ID] = true
		}
	}
	var cited []string
	for _, id := range r.Evidence {
		if id = strings.TrimSpace(id); ids[id] && !slices.Contains(cited, id) {
			cited = append(cited, id)
		}
	}
	if len(cited) == 0 {
		return r, ErrNoEvidence
	}
	r.Evidence = cited
	r.Category = CleanCategory(r.Category)
	if !slices.Contains(Categories, r.Category) {
		r.Category = General
	}
	if math.IsNaN(r.Confidence) {
		r.Confidence = 0
	}
	r.Confidence = math.Round(min(max(r.Confidence, 0), 1)*100) / 100
	return r, nil
}

// Learned is what a reflection teaches: its key insight as an observation
// (when the model is at least MinConfidence sure), and its tags of the
// playbook's strategies, each citing the same calls.
type Learned struct {
	Observations []Observation
	Tags         []IDTag
}

// IDTag is a tag of a strategy by id, with its evidence.
type IDTag struct {
	ID       string
	Evidence Evidence
}

// Learn turns a reflection into what the playbook learns. The insight is
// new: its evidence is tagged neutral, and later sessions that follow it
// tag it helpful or harmful.
func (r *Reflector) Learn(ref Reflection, model string, t *transcript.Transcript, src Source) Learned {
	src = src.own(t)
	var l Learned
	if ref.Confidence >= r.opts.MinConfidence {
		l.Observations = append(l.Observations, Observation{Rule: "model " + model, Category: ref.Category,
			Content: ref.KeyInsight, Confidence: ref.Confidence, Tags: ref.Tags,
			Evidence: Evidence{File: src.File, Line: src.Line, Session: src.Session, Calls: ref.Evidence, Tag: Neutral}})
	}
	for _, bt := range ref.BulletTags {
		tag, err := ParseTag(bt.Tag)
		if err != nil || strings.TrimSpace(bt.ID) == "" {
			continue
		}
		l.Tags = append(l.Tags, IDTag{ID: strings.TrimSpace(bt.ID),
			Evidence: Evidence{File: src.File, Line: src.Line, Session: src.Session, Calls: ref.Evidence, Tag: tag}})
	}
	return l
}
