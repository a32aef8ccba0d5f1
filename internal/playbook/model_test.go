package playbook

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPrompt(t *testing.T) {
	r := reflector(t)
	tr := load(t, filepath.Join("testdata", "fixtures", "list-after-missing.json"))
	p := New()
	p.Add(FileOperations, "Read a file before editing it.", DefaultSimilarity, epoch)
	pr, ok := r.Prompt(tr, p)
	if !ok {
		t.Fatal("no prompt for a session of three calls")
	}
	for _, want := range []string{
		"call_01 | read bash | conf/app.yaml | failed, exit 1: cat: conf/app.yaml: No such file or directory\n",
		"call_02 | list bash | conf | ok\n",
		"[fil-00001] Read a file before editing it. (helpful 0, harmful 0)\n",
	} {
		if !strings.Contains(pr.User, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, pr.User)
		}
	}
	if !strings.Contains(pr.System, `"key_insight"`) || !strings.Contains(pr.System, `"bullet_tags"`) {
		t.Errorf("the system prompt does not ask for ACE's reflection:\n%s", pr.System)
	}
	one := load(t, filepath.Join("testdata", "fixtures", "none.json"))
	one.Calls = one.Calls[:1]
	if _, ok := r.Prompt(one, p); ok {
		t.Error("a prompt for one call: a pattern takes two")
	}
}

func TestParseReflection(t *testing.T) {
	tr := load(t, filepath.Join("testdata", "fixtures", "list-after-missing.json"))
	good := `{"error_identification":"read a path that is not there","root_cause_analysis":"guessed the extension",
"correct_approach":"list first","key_insight":"List the directory before reading a configuration file whose name you guessed.",
"category":"File Operations","confidence":0.9,"evidence":["call_01","call_02","call_99","call_01"],"tags":["paths"],
"bullet_tags":[{"id":"fil-00001","tag":"helpful"},{"id":"fil-00009","tag":"sideways"}]}`
	cases := []struct {
		name, answer string
		err          string
	}{
		{"plain", good, ""},
		{"fenced", "Here is my reflection:\n```json\n" + good + "\n```", ""},
		{"no JSON", "I think the agent did fine.", "the answer holds no JSON object"},
		{"bad JSON", `{"key_insight": }`, "the answer's JSON: invalid character '}' looking for beginning of value"},
		{"no insight", `{"key_insight":"  ","evidence":["call_01"]}`, "the answer has no key insight"},
		{"no evidence", `{"key_insight":"x","evidence":["call_42"]}`, ErrNoEvidence.Error()},
	}
	for _, c := range cases {
		ref, err := ParseReflection(c.answer, tr)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && (!slices.Equal(ref.Evidence, []string{"call_01", "call_02"}) || ref.Category != FileOperations || ref.Confidence != 0.9):
			t.Errorf("%s: %+v: want the evidence the transcript has, once each, and the category cleaned", c.name, ref)
		}
	}
	if _, err := ParseReflection(`{"key_insight":"x","evidence":[]}`, tr); !errors.Is(err, ErrNoEvidence) {
		t.Errorf("no evidence: %v, want ErrNoEvidence", err)
	}
	ref, _ := ParseReflection(strings.Replace(good, `"File Operations"`, `"vibes"`, 1), tr)
	if ref.Category != General {
		t.Errorf("an unknown category: %q, want general", ref.Category)
	}
}

func TestReflectionLearned(t *testing.T) {
	r := reflector(t)
	tr := load(t, filepath.Join("testdata", "fixtures", "list-after-missing.json"))
	p := New()
	p.Add(FileOperations, "Read a file before editing it.", DefaultSimilarity, epoch)
	ref := Reflection{KeyInsight: "List the directory first.", Category: FileOperations, Confidence: 0.9,
		Evidence: []string{"call_01", "call_02"}, Tags: []string{"paths"},
		BulletTags: []BulletTag{{"fil-00001", "helpful"}, {"fil-00001", "bogus"}, {"", "helpful"}}}
	l := r.Learn(ref, "m1", tr, Source{File: "f.json"})
	if len(l.Observations) != 1 || len(l.Tags) != 1 {
		t.Fatalf("learned %+v: want the insight and one tag", l)
	}
	o := l.Observations[0]
	if o.Rule != "model m1" || o.Evidence.Tag != Neutral || o.Evidence.File != "f.json" || !slices.Equal(o.Tags, []string{"paths"}) {
		t.Errorf("the insight: %+v; want a neutral observation of model m1", o)
	}
	p.Learn(l.Observations, DefaultSimilarity, epoch)
	if !p.TagByEvidence(l.Tags[0].ID, l.Tags[0].Evidence, epoch) || p.TagByEvidence(l.Tags[0].ID, l.Tags[0].Evidence, epoch) {
		t.Error("a tag by evidence does not count once")
	}
	if s := p.Find("fil-00001"); s.Helpful != 1 {
		t.Errorf("tagged strategy %+v", s)
	}
	if p.TagByEvidence("fil-00077", l.Tags[0].Evidence, epoch) {
		t.Error("a tag of an unknown id counted")
	}
	ref.Confidence = 0.5
	if l := r.Learn(ref, "m1", tr, Source{File: "f.json"}); len(l.Observations) != 0 || len(l.Tags) != 1 {
		t.Errorf("an insight less sure than the bound was learned: %+v", l)
	}
}
