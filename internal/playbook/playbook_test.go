package playbook

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPrefix(t *testing.T) {
	for in, want := range map[string]string{
		FileOperations: "fil", CodeNavigation: "cod", Testing: "tes", Shell: "she", ErrorHandling: "err",
		General: "gen", "": "gen", "__": "gen", "x": "x", "API design": "api", "2fa_setup": "2fa",
	} {
		if got := Prefix(in); got != want {
			t.Errorf("Prefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanCategory(t *testing.T) {
	for in, want := range map[string]string{
		"testing": "testing", "File Operations": "file_operations", " error-handling ": "error_handling", "": General, "!!": General,
	} {
		if got := CleanCategory(in); got != want {
			t.Errorf("CleanCategory(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSimilar(t *testing.T) {
	cases := []struct {
		a, b      string
		threshold float64
		want      bool
	}{
		{"Read a file before editing it.", "read a file before editing it", 2, true},
		{"Read a file before editing it", "Always read the file before editing it", 0.8, true},
		{"Read a file before editing it", "Always read the file before editing it", 0.81, false},
		{"Read a file before editing it", "Run the tests after editing", 0.5, false},
		{"Run the tests after changing code", "Run the tests after changing the code.", 0.8, true},
		{"", "", 0.8, true},
	}
	for _, c := range cases {
		if got := Similar(c.a, c.b, c.threshold); got != c.want {
			t.Errorf("Similar(%q, %q, %v) = %v (Jaccard %.2f), want %v", c.a, c.b, c.threshold, got, Jaccard(c.a, c.b), c.want)
		}
	}
}

// TestPruneBoundary: the design's −0.3 is a strict bound: exactly −0.3
// stays, less goes; a strategy never tagged is not judged.
func TestPruneBoundary(t *testing.T) {
	cases := []struct {
		h, x, n int
		gone    bool
	}{
		{1, 4, 5, false},  // (1−4)/10 = −0.3: not below
		{1, 4, 4, true},   // −3/9 = −0.33
		{3, 6, 1, false},  // −0.3
		{0, 1, 0, true},   // −1
		{2, 3, 0, false},  // −0.2
		{0, 0, 0, false},  // never tagged
		{0, 0, 1, false},  // 0
		{7, 10, 0, false}, // −3/17 = −0.18
	}
	p := New()
	for i, c := range cases {
		s := p.newStrategy(Testing, fmt.Sprintf("strategy %d", i), "added", epoch)
		s.Helpful, s.Harmful, s.Neutral = c.h, c.x, c.n
	}
	removed := p.Prune(PruneOptions{Below: DefaultPruneBelow, Now: epoch})
	gone := map[string]bool{}
	for _, s := range removed {
		gone[s.ID] = true
	}
	for i, c := range cases {
		id := fmt.Sprintf("tes-%05d", i+1)
		if gone[id] != c.gone {
			t.Errorf("%d helpful, %d harmful, %d neutral (effectiveness %.3f): removed %v, want %v", c.h, c.x, c.n,
				float64(c.h-c.x)/float64(max(1, c.h+c.x+c.n)), gone[id], c.gone)
		}
	}
	if len(p.Strategies)+len(removed) != len(cases) {
		t.Errorf("%d kept and %d removed of %d", len(p.Strategies), len(removed), len(cases))
	}
}

func TestPruneOlderThan(t *testing.T) {
	p := New()
	old := p.newStrategy(Shell, "old", "added", epoch)
	fresh := p.newStrategy(Shell, "fresh", "added", epoch)
	fresh.Updated = epoch.Add(80 * 24 * time.Hour)
	removed := p.Prune(PruneOptions{Below: DefaultPruneBelow, OlderThan: 30 * 24 * time.Hour, Now: epoch.Add(90 * 24 * time.Hour)})
	if len(removed) != 1 || removed[0] != old || len(p.Strategies) != 1 || p.Strategies[0] != fresh {
		t.Errorf("removed %v, kept %v: want the one unused for 90 days gone, the one used 10 days ago kept", removed, p.Strategies)
	}
}

func TestParseErrors(t *testing.T) {
	good := `{"version":1,"next_id":2,"strategies":[{"id":"fil-00001","category":"file_operations","content":"x","helpful_count":1,"harmful_count":0,"neutral_count":0,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}]}`
	cases := []struct{ in, want string }{
		{"{\n  \"version\": 1,\n  \"strategies\": [\n", "4:1: the JSON ends too soon"},
		{"{\"version\": 1,\n \"strategies\": [}", "2:17: invalid character '}' looking for beginning of value"},
		{`{"version": "1"}`, `1:16: "version" is a string, want a whole number`},
		{`{"version": 1.5}`, `1:16: "version" is the number 1.5, want a whole number`},
		{`{"version": 1, "strategies": {}}`, `"strategies" is an object, want an array`},
		{`{"version": 1, "strategies": [{"content": 7}]}`, `"strategies.content" is a number, want a string`},
		{`{"version": 1, "strategies": [{"evidence": "x"}]}`, `"strategies.evidence" is a string, want an array`},
		{`{"version": 1, "extra": 2}`, `unknown field "extra"`},
		{`[]`, `1:2: the playbook is an array, want an object`},
		{`"x"`, `1:4: the playbook is a string, want an object`},
		{`{"version": 2}`, "playbook version 2, want 1"},
		{`{"version": 1} {}`, "1:16: more after the playbook's JSON object"},
		{strings.Replace(good, `"fil-00001"`, `"fil-1"`, 1), `strategy 0 (fil-1): id "fil-1" is not PREFIX-NNNNN (fil-00042)`},
		{strings.Replace(good, `"next_id":2`, `"next_id":1`, 1), "strategy 0 (fil-00001): next_id is 1, not above the id's number"},
		{strings.Replace(good, `"content":"x"`, `"content":" "`, 1), "strategy 0 (fil-00001): no content"},
		{strings.Replace(good, `"helpful_count":1`, `"helpful_count":-1`, 1), "strategy 0 (fil-00001): a negative count"},
		{strings.Replace(good, `"neutral_count":0`, `"neutral_count":0,"evidence":[{"file":"a","calls":[],"tag":"good"}]`, 1),
			"strategy 0 (fil-00001): evidence 0: want a file, calls and a tag (helpful, harmful or neutral)"},
		{strings.Replace(good, `]}`, `,null]}`, 1), "strategy 1: null"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want %q", c.in, err, c.want)
		}
	}
	var se *SyntaxError
	if _, err := Parse([]byte(cases[0].in)); !errors.As(err, &se) || se.Line != 4 {
		t.Errorf("a JSON error is a *SyntaxError with its line: %#v", err)
	}
	p, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(p.Marshal())
	if err != nil || string(again.Marshal()) != string(p.Marshal()) {
		t.Errorf("a playbook written and read back differs: %v", err)
	}
	if p, err := Parse([]byte(" \n")); err != nil || len(p.Strategies) != 0 || p.NextID != 1 {
		t.Errorf("an empty file: %+v, %v; want an empty playbook", p, err)
	}
}

func obs(rule, content, file string, tag Tag, calls ...string) Observation {
	return Observation{Rule: rule, Category: Testing, Content: content, Confidence: 0.85,
		Evidence: Evidence{File: file, Calls: calls, Tag: tag}}
}

func TestLearn(t *testing.T) {
	p := New()
	rep := p.Learn([]Observation{
		obs("r", "Run the tests after changing code.", "a.jsonl", Helpful, "c1", "c2"),
		obs("r", "Run the tests after changing the code", "a.jsonl", Harmful, "c3", "c4"), // similar: the same strategy
		obs("r", "Run the tests after changing code.", "a.jsonl", Helpful, "c1", "c2"),    // the same evidence again
		obs("r", "Run the tests after changing code.", "b.jsonl", Helpful, "c1", "c2"),    // other file, same ids
		obs("r", "Read the test first.", "a.jsonl", Neutral, "c1", "c2"),                  // the same calls, another strategy
	}, DefaultSimilarity, epoch)
	want := LearnReport{Observations: 5, New: 2, Counted: 4, Known: 1}
	if rep != want {
		t.Errorf("report %+v, want %+v", rep, want)
	}
	if len(p.Strategies) != 2 {
		t.Fatalf("%d strategies, want 2", len(p.Strategies))
	}
	s := p.Strategies[0]
	if s.ID != "tes-00001" || s.Helpful != 2 || s.Harmful != 1 || len(s.Evidence) != 3 || s.Confidence != 0.85 {
		t.Errorf("first strategy %+v", s)
	}
	if s := p.Strategies[1]; s.ID != "tes-00002" || s.Neutral != 1 {
		t.Errorf("second strategy %+v", s)
	}
	// The same session from another path is the same evidence.
	o := obs("r", "Run the tests after changing code.", "copy.jsonl", Helpful, "x1", "x2")
	o.Evidence.Session = "s1"
	p.Learn([]Observation{o}, DefaultSimilarity, epoch)
	o.Evidence.File = "elsewhere.jsonl"
	if rep := p.Learn([]Observation{o}, DefaultSimilarity, epoch); rep.Changed() {
		t.Errorf("the same session's evidence from another file counted again: %+v", rep)
	}
	// Two lines of one JSONL of trajectories are two transcripts, even
	// with the same call ids; the same line again is known.
	line := func(n int) Observation {
		o := obs("r", "Run the tests after changing code.", "corpus.jsonl", Helpful, "step-1", "step-2")
		o.Evidence.Line = n
		return o
	}
	if rep := p.Learn([]Observation{line(1), line(2), line(2)}, DefaultSimilarity, epoch); rep.Counted != 2 || rep.Known != 1 {
		t.Errorf("lines 1, 2 and 2 again: %+v, want 2 counted, 1 known", rep)
	}
}

// TestDigest: a trajectory is known by its bytes: the same bytes, the same
// name; other bytes, another.
func TestDigest(t *testing.T) {
	a, b := Digest([]byte(`{"messages":[1]}`)), Digest([]byte(`{"messages":[2]}`))
	if a != Digest([]byte(`{"messages":[1]}`)) || a == b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+16 {
		t.Errorf("Digest: %q and %q", a, b)
	}
}

func TestAddTag(t *testing.T) {
	p := New()
	s, added, err := p.Add("Testing", "Run  go vet\nbefore the tests.", DefaultSimilarity, epoch)
	if err != nil || !added || s.ID != "tes-00001" || s.Content != "Run go vet before the tests." || s.Category != Testing {
		t.Fatalf("Add: %+v, %v, %v", s, added, err)
	}
	if again, added, _ := p.Add("testing", "run go vet before the tests", DefaultSimilarity, epoch); added || again != s {
		t.Errorf("adding the same strategy again made another: %+v", again)
	}
	if other, added, _ := p.Add("shell", "run go vet before the tests", DefaultSimilarity, epoch); !added || other.ID != "she-00002" {
		t.Errorf("the same words in another category: %+v, added %v; want a new strategy she-00002", other, added)
	}
	if _, _, err := p.Add("testing", "  ", DefaultSimilarity, epoch); err == nil {
		t.Error("Add of no text: no error")
	}
	later := epoch.Add(time.Hour)
	if err := p.TagID("tes-00001", Harmful, later); err != nil || s.Harmful != 1 || !s.Updated.Equal(later) {
		t.Errorf("TagID: %v, %+v", err, s)
	}
	if err := p.TagID("tes-00009", Helpful, later); err == nil || err.Error() != "no strategy tes-00009 in the playbook" {
		t.Errorf("TagID of an unknown id: %v", err)
	}
	// Ids are never reused, even after a strategy goes.
	p.Prune(PruneOptions{Below: 2, Now: later})
	if s, _, _ := p.Add("testing", "new", DefaultSimilarity, later); s.ID != "tes-00003" {
		t.Errorf("after a prune, the next id is %s, want tes-00003", s.ID)
	}
}

func TestMergeAndAbsorb(t *testing.T) {
	p := New()
	p.Learn([]Observation{
		obs("r", "Read a file before editing it", "a", Helpful, "1", "2"),
		obs("r", "Run the tests after changing code", "a", Helpful, "3", "4"),
	}, 2, epoch) // threshold above 1: only equal texts are one
	p.Learn([]Observation{obs("r", "Always read the file before editing it", "a", Harmful, "5", "6")}, 2, epoch)
	if len(p.Strategies) != 3 {
		t.Fatalf("%d strategies, want 3 before the merge", len(p.Strategies))
	}
	gone := p.Merge(DefaultSimilarity, epoch.Add(time.Hour))
	if len(gone) != 1 || gone[0] != "tes-00003" || len(p.Strategies) != 2 {
		t.Fatalf("merged away %v, %d left; want tes-00003 into tes-00001", gone, len(p.Strategies))
	}
	if s := p.Strategies[0]; s.Helpful != 1 || s.Harmful != 1 || len(s.Evidence) != 2 {
		t.Errorf("merged strategy %+v", s)
	}

	other := New()
	other.Learn([]Observation{
		obs("r", "Read the file before editing it.", "a", Helpful, "1", "2"), // evidence p has: counts nothing
		obs("r", "Read the file before editing it.", "b", Helpful, "1", "2"), // new evidence
		obs("r", "Check git status first", "b", Helpful, "7", "8"),
	}, DefaultSimilarity, epoch)
	added, merged := p.Absorb(other, DefaultSimilarity, epoch)
	if added != 1 || merged != 1 {
		t.Errorf("Absorb: %d added, %d merged; want 1 and 1", added, merged)
	}
	if s := p.Strategies[0]; s.Helpful != 2 || len(s.Evidence) != 3 {
		t.Errorf("absorbed strategy %+v: want 2 helpful (one new piece of evidence), 3 pieces of evidence", s)
	}
	if s := p.Strategies[2]; s.ID != "tes-00004" || s.Content != "Check git status first" || s.Helpful != 1 {
		t.Errorf("added strategy %+v: want a new id of this playbook", s)
	}
	if a, m := p.Absorb(other, DefaultSimilarity, epoch); a != 0 || m != 0 {
		t.Errorf("absorbing the same playbook again: %d added, %d merged; want nothing", a, m)
	}
}
