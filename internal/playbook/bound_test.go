package playbook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// manyObservations are n uses of three strategies, each with evidence of
// its own (another session), the tags in turn.
func manyObservations(n int) []Observation {
	contents := []string{"Run the tests after changing code.", "Read a file before editing it.", "Check git status before a commit."}
	tags := []Tag{Helpful, Harmful, Neutral, Helpful}
	out := make([]Observation, n)
	for i := range out {
		out[i] = Observation{Rule: "r", Category: Testing, Content: contents[i%3], Confidence: 0.9,
			Evidence: Evidence{File: fmt.Sprintf("/home/dev/sessions/s%06d.jsonl", i), Session: fmt.Sprintf("session-%06d", i),
				Calls: []string{fmt.Sprintf("toolu_%06da", i), fmt.Sprintf("toolu_%06db", i)}, Tag: tags[i%4]}}
	}
	return out
}

// counts are the strategies' counts by id.
func counts(p *Playbook) map[string][3]int {
	m := map[string][3]int{}
	for _, s := range p.Strategies {
		m[s.ID] = [3]int{s.Helpful, s.Harmful, s.Neutral}
	}
	return m
}

// checkBound checks what a strategy keeps: at most MaxEvidence pieces of
// evidence, and for the others their digests, one a count.
func checkBound(t *testing.T, p *Playbook) {
	t.Helper()
	for _, s := range p.Strategies {
		if len(s.Evidence) > MaxEvidence {
			t.Errorf("%s keeps %d pieces of evidence, more than %d", s.ID, len(s.Evidence), MaxEvidence)
		}
		if n := len(s.Evidence) + len(s.Dropped); n != s.Total() {
			t.Errorf("%s: %d pieces of evidence kept and %d dropped for %d counts", s.ID, len(s.Evidence), len(s.Dropped), s.Total())
		}
	}
}

// TestEvidenceBound: a playbook learned from 30,000 uses keeps at most
// MaxEvidence pieces of evidence a strategy and a digest of each other, its
// counts exact; learning them all again counts nothing; the file is a few
// bytes a use, and reads back the same.
func TestEvidenceBound(t *testing.T) {
	const n = 30_000
	obs := manyObservations(n)
	p := New()
	if rep := p.Learn(obs, DefaultSimilarity, epoch); rep.New != 3 || rep.Counted != n {
		t.Fatalf("learned %+v", rep)
	}
	checkBound(t, p)
	want := counts(p)
	total := 0
	for _, c := range want {
		total += c[0] + c[1] + c[2]
	}
	if total != n {
		t.Fatalf("%d uses counted, want %d", total, n)
	}
	if st := p.Count(); st.Evidence != n {
		t.Errorf("stats count %d pieces of evidence, want %d", st.Evidence, n)
	}
	if rep := p.Learn(obs, DefaultSimilarity, epoch); rep.Changed() || rep.Known != n {
		t.Errorf("learning the same again: %+v, want all %d known", rep, n)
	}
	data := p.Marshal()
	if len(data) > 16*n {
		t.Errorf("the playbook takes %d bytes for %d uses: more than 16 a use", len(data), n)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Marshal(), data) {
		t.Error("the playbook read back writes other bytes")
	}
	if rep := back.Learn(obs, DefaultSimilarity, epoch); rep.Changed() {
		t.Errorf("learning the same again after a write and a read: %+v", rep)
	}
	// The most recent evidence is what is kept.
	last := obs[n-1].Evidence
	for _, s := range back.Strategies {
		if s.Content == obs[n-1].Content && s.Evidence[len(s.Evidence)-1].key() != last.key() {
			t.Errorf("%s keeps %+v last, not the latest evidence", s.ID, s.Evidence[len(s.Evidence)-1])
		}
	}
}

// TestEvidenceBoundOldFile: a playbook written before the bound, with all
// its evidence, is read into the bound, its counts as they were, and what
// it knew is still known.
func TestEvidenceBoundOldFile(t *testing.T) {
	const n = 5_000
	obs := manyObservations(n)
	p := New()
	p.Learn(obs, DefaultSimilarity, epoch)
	want := counts(p)
	// As an older ctxkit wrote it: every piece of evidence in the list.
	old := New()
	for _, o := range obs {
		s := old.similar(Testing, o.Content, DefaultSimilarity, nil)
		if s == nil {
			s = old.newStrategy(Testing, o.Content, "r", epoch)
		}
		s.Evidence = append(s.Evidence, o.Evidence)
		s.count(o.Evidence.Tag, 1)
	}
	data, err := json.MarshalIndent(old, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("evidence_dropped")) || bytes.Count(data, []byte(`"tag"`)) != n {
		t.Fatal("the old file is not as an older ctxkit wrote it")
	}
	read, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	checkBound(t, read)
	if got := counts(read); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if rep := read.Learn(obs, DefaultSimilarity, epoch); rep.Changed() {
		t.Errorf("learning the old file's evidence again: %+v", rep)
	}
}

// TestEvidenceBoundMerge: merging strategies that share evidence beyond the
// bound counts each piece once, whether kept or dropped.
func TestEvidenceBoundMerge(t *testing.T) {
	obs := manyObservations(600)
	a, b := New(), New()
	a.Learn(obs[:400], DefaultSimilarity, epoch)
	b.Learn(obs[200:], DefaultSimilarity, epoch) // 200 of them a has too
	want := New()
	want.Learn(obs, DefaultSimilarity, epoch)
	added, merged := a.Absorb(b, DefaultSimilarity, epoch)
	if added != 0 || merged != 3 {
		t.Errorf("Absorb: %d added, %d merged; want 0 and 3", added, merged)
	}
	checkBound(t, a)
	if got, w := counts(a), counts(want); fmt.Sprint(got) != fmt.Sprint(w) {
		t.Errorf("counts after the merge %v, want %v (each use once)", got, w)
	}
	if rep := a.Learn(obs, DefaultSimilarity, epoch); rep.Changed() {
		t.Errorf("learning after the merge: %+v", rep)
	}
	// A model's tag of evidence that was dropped counts nothing either.
	s := a.Strategies[0]
	if a.TagByEvidence(s.ID, obs[0].Evidence, epoch) {
		t.Error("TagByEvidence counted evidence that was dropped")
	}
}

// TestAddControlCharacters: a strategy's text keeps no control character:
// they are escaped as every report escapes them (\x1b), so that render
// prints none into a system prompt.
func TestAddControlCharacters(t *testing.T) {
	p := New()
	s, _, err := p.Add(Testing, "Run \x1b[31mthe tests\x1b[0m\x00 after\tchanging\r\ncode\x7f.", DefaultSimilarity, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if want := `Run \x1b[31mthe tests\x1b[0m\x00 after changing code\x7f.`; s.Content != want {
		t.Errorf("content %q, want %q", s.Content, want)
	}
	// A file written by hand, or by an older ctxkit, may hold them: render
	// escapes them too.
	s.Content = "Run \x1b]0;title\x07 the tests."
	for _, f := range []Format{Markdown, ACE} {
		out, err := Render(p, RenderOptions{Format: f})
		if err != nil || strings.ContainsAny(string(out.Text), "\x1b\x07") {
			t.Errorf("%s: render printed a control character: %q, %v", f, out.Text, err)
		}
	}
}
