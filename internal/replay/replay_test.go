package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/pricetest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// approx counts a token per four bytes, rounded up: sizes by hand.
func approx(t *testing.T) tokens.Counter {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	return ctr
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// asWritten and shorter are a hand policy's texts: a call's arguments as
// written, a result replaced by a short text.
func asWritten(c *transcript.Call) string { return c.Input }
func shorter(*transcript.Result) string   { return "a short summary" }

func checkRun(t *testing.T, name string, got, want Run) {
	t.Helper()
	if want.WithRecalls == 0 {
		want.WithRecalls = want.Cost + want.RecallCost
	}
	if !near(got.Cost, want.Cost) || !near(got.InputCost, want.InputCost) || !near(got.RecallCost, want.RecallCost) || !near(got.WithRecalls, want.WithRecalls) {
		t.Errorf("%s: cost %.10g (input %.10g, recalls %.10g, with them %.10g), want %.10g (input %.10g, recalls %.10g, with them %.10g)", name,
			got.Cost, got.InputCost, got.RecallCost, got.WithRecalls, want.Cost, want.InputCost, want.RecallCost, want.WithRecalls)
	}
	got.Cost, got.InputCost, got.RecallCost, got.WithRecalls = 0, 0, 0, 0
	want.Cost, want.InputCost, want.RecallCost, want.WithRecalls = 0, 0, 0, 0
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
	}
}

// TestByHand replays testdata/four.jsonl, an OpenAI history of four model
// turns, counted at a token per four bytes:
//
//	0 user 16 bytes: 4           3 assistant 8 + call 16 bytes: 6 (turn 2)
//	1 assistant 8 + call 16: 6   4 tool 40 bytes: 10
//	  (turn 1)                   5 assistant 40 bytes: 10 (turn 3)
//	2 tool 400 bytes: 100        6 user 40 bytes: 10
//	                             7 assistant 40 bytes: 10 (turn 4)
//
// As it was, request k sends the messages before turn k, reads what the
// request before it sent, and writes the rest (dollars per million
// tokens: write 1.25, read 0.1, output 5):
//
//	1: [0]       4 sent, read 0,   write 4,   out 6:  5 + 30           = 35
//	2: [0-2]   110 sent, read 4,   write 106, out 6:  0.4 + 132.5 + 30 = 162.9
//	3: [0-4]   126 sent, read 110, write 16,  out 10: 11 + 20 + 50     = 81
//	4: [0-6]   146 sent, read 126, write 20,  out 10: 12.6 + 25 + 50   = 87.6
//
// 366.5 in all, 206.5 of it input. A policy that, at request 3, replaces
// the 100-token result (message 2) with 20 tokens breaks the cache from
// message 2 on:
//
//	3: 46 sent, read 10 (messages 0, 1), write 36, out 10: 1 + 45 + 50   = 96
//	4: 66 sent, read 46,                 write 20, out 10: 4.6 + 25 + 50 = 79.6
//
// 373.5 in all, 213.5 of it input: a change one request before the end
// does not pay; the session ends too soon for the 80 tokens it saves.
func TestByHand(t *testing.T) {
	tr := transcripttest.Load(t, filepath.Join("testdata", "four.jsonl"))
	policy := func(tr *transcript.Transcript) Advance {
		return func(n int, changed func(Change)) {
			if n == 5 { // the history before turn 3
				changed(Change{Message: tr.Messages[2], Tokens: 20, Input: asWritten, Output: shorter})
			}
		}
	}
	var steps [2][]Step // as it was, compacted
	trace := func(compacted bool, st Step) {
		i := 0
		if compacted {
			i = 1
		}
		steps[i] = append(steps[i], st)
	}
	s := Replay(tr, policy, Options{Counter: approx(t), Prices: pricetest.HandPrices(t), Trace: trace})
	checkSteps(t, "as it was", steps[0], s.AsIs, []float64{35, 162.9, 81, 87.6}, -1)
	checkSteps(t, "compacted", steps[1], *s.Compacted, []float64{35, 162.9, 96, 79.6}, 2)
	if s.Tokens != 156 || s.Format != "openai" {
		t.Errorf("history %d tokens in %s, want 156 in openai", s.Tokens, s.Format)
	}
	checkRun(t, "as it was", s.AsIs, Run{Requests: 4, Sent: 386, Tokens: pricing.Tokens{CacheRead: 240, CacheWrite: 146, Output: 32},
		Cost: 366.5e-6, InputCost: 206.5e-6, Peak: 146, Breaks: 0})
	checkRun(t, "compacted", *s.Compacted, Run{Requests: 4, Sent: 226, Tokens: pricing.Tokens{CacheRead: 60, CacheWrite: 166, Output: 32},
		Cost: 373.5e-6, InputCost: 213.5e-6, Peak: 110, Breaks: 1})
	if r := s.Ratio(); !near(r, 373.5/366.5) {
		t.Errorf("ratio %v", r)
	}
	if r := s.PeakRatio(); !near(r, 110.0/146) {
		t.Errorf("peak ratio %v", r)
	}
}

// TestRecallByHand replays testdata/recall.jsonl, four.jsonl with a
// name in its long result (message 2), parse_config, which the model
// writes in turn 3 (message 5). The policy that replaces that result at
// request 3 with a text without the name hides it there: one fact of one
// used, and one recall, a request that reads request 3's 46 tokens from
// the cache and writes the result's 100 again: 4.6 + 125 = 129.6. As it
// was, nothing is hidden. A policy whose replacement keeps the name hides
// nothing either.
func TestRecallByHand(t *testing.T) {
	tr := transcripttest.Load(t, filepath.Join("testdata", "recall.jsonl"))
	replacing := func(text string) Policy {
		return func(tr *transcript.Transcript) Advance {
			return func(n int, changed func(Change)) {
				if n == 5 {
					changed(Change{Message: tr.Messages[2], Tokens: 20, Input: asWritten, Output: func(*transcript.Result) string { return text }})
				}
			}
		}
	}
	opts := Options{Counter: approx(t), Prices: pricetest.HandPrices(t)}
	s := Replay(tr, replacing("a summary without it"), opts)
	if s.FactsUsed != 1 || s.AsIs.Hidden != 0 || s.AsIs.Recalls != 0 || s.AsIs.RecallCost != 0 {
		t.Errorf("%d facts used; as it was, %d hidden, %d recalls, $%g", s.FactsUsed, s.AsIs.Hidden, s.AsIs.Recalls, s.AsIs.RecallCost)
	}
	checkRun(t, "compacted", *s.Compacted, Run{Requests: 4, Sent: 226, Tokens: pricing.Tokens{CacheRead: 60, CacheWrite: 166, Output: 32},
		Cost: 373.5e-6, InputCost: 213.5e-6, Peak: 110, Breaks: 1, Hidden: 1, Recalls: 1, RecallCost: 129.6e-6})
	if r := s.RecallRatio(); !near(r, (373.5+129.6)/366.5) {
		t.Errorf("ratio with recalls %v", r)
	}
	if sh := s.HiddenShare(); sh != 1 {
		t.Errorf("hidden share %v", sh)
	}
	s = Replay(tr, replacing("a summary: parse_config() at line 1"), opts)
	if s.Compacted.Hidden != 0 || s.Compacted.Recalls != 0 || s.HiddenShare() != 0 || !near(s.RecallRatio(), s.Ratio()) {
		t.Errorf("a summary that keeps the name: %+v", *s.Compacted)
	}
}

// checkSteps checks a run's trace: a step a turn, in order, whose costs
// (in millionths of a dollar) and tokens add up to the run's, and that
// breaks the cache at request brk alone (-1: none).
func checkSteps(t *testing.T, name string, steps []Step, r Run, costs []float64, brk int) {
	t.Helper()
	if len(steps) != len(costs) {
		t.Fatalf("%s: %d steps, want %d", name, len(steps), len(costs))
	}
	var sum Run
	for k, st := range steps {
		if st.Turn != k || !near(st.Cost, costs[k]*1e-6) || st.Break != (k == brk) {
			t.Errorf("%s: step %d is %+v, want turn %d, cost %ge-6, break %v", name, k, st, k, costs[k], k == brk)
		}
		sum.Tokens.Add(st.Tokens)
		sum.Cost += st.Cost
	}
	if sum.Tokens != r.Tokens || !near(sum.Cost, r.Cost) {
		t.Errorf("%s: the steps add up to %+v and %g, the run is %+v and %g", name, sum.Tokens, sum.Cost, r.Tokens, r.Cost)
	}
}

// TestByHandClaudeCode replays testdata/restart.jsonl, a Claude Code
// session whose first response is written over two lines with its call's
// result between them, and that compacts its history before its third,
// with a fixed prefix of 100 tokens and the hour-long cache (write 2):
//
//	0 user 8 bytes: 2                         (turn 1: 1 and 3, out 4 + 2 = 6)
//	1 assistant m1, call {"command":"ls"}: 4  (turn 2: 4, out 4)
//	2 result 400 bytes: 100                   (turn 3: 6, out 2)
//	3 assistant m1, 8 bytes: 2
//	4 assistant m2, 16 bytes: 4
//	5 the summary after compact_boundary, 40 bytes: 10
//	6 assistant m3, 8 bytes: 2
//
//	1: prefix + [0]:  102 sent, read 0,   write 102, out 6: 204 + 30       = 234
//	2: prefix + [0-3]: 208 sent, read 102, write 106, out 4: 10.2 + 212 + 20 = 242.2
//	3: prefix + [5]:  110 sent, read 100, write 10,  out 2: 10 + 20 + 10    = 40
//
// The restart breaks the cache but for the prefix.
func TestByHandClaudeCode(t *testing.T) {
	tr := transcripttest.Load(t, filepath.Join("testdata", "restart.jsonl"))
	var steps []Step
	s := Replay(tr, nil, Options{Counter: approx(t), Prices: pricetest.HandPrices(t), Prefix: 100, HourCache: true,
		Trace: func(compacted bool, st Step) { steps = append(steps, st) }})
	checkSteps(t, "as it was", steps, s.AsIs, []float64{234, 242.2, 40}, 2)
	checkRun(t, "as it was", s.AsIs, Run{Requests: 3, Sent: 420, Tokens: pricing.Tokens{CacheRead: 202, CacheWrite1h: 218, Output: 12},
		Cost: 516.2e-6, InputCost: 456.2e-6, Peak: 208, Breaks: 1})
	if s.Model != "test-model" || s.Known || s.Compacted != nil {
		t.Errorf("model %q known %v, compacted %v", s.Model, s.Known, s.Compacted)
	}
}

// TestReportGolden pins the JSON report (testdata/four.golden).
func TestReportGolden(t *testing.T) {
	tr := transcripttest.Load(t, filepath.Join("testdata", "four.jsonl"))
	policy := func(tr *transcript.Transcript) Advance {
		return func(n int, changed func(Change)) {
			if n == 5 {
				changed(Change{Message: tr.Messages[2], Tokens: 20, Input: asWritten, Output: shorter})
			}
		}
	}
	s := Replay(tr, policy, Options{Counter: approx(t), Prices: pricetest.HandPrices(t)})
	s.File = "four.jsonl"
	out, err := json.MarshalIndent([]Session{s, Total([]Session{s})}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "four.golden"), append(out, '\n'))
}

// TestTurns: every corpus file's turns start with an assistant message,
// follow one another, send the history from the last restart before them,
// and, in Claude Code, hold every line of one response and no other.
func TestTurns(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		tr := transcripttest.Load(t, path)
		last := -1
		byResponse := map[string]int{}
		for k, tn := range tr.Turns() {
			first := tn.Messages[0]
			if first <= last {
				t.Fatalf("%s: turn %d starts at %d, after %d", path, k, first, last)
			}
			start := 0
			for _, m := range tr.Messages[:first+1] {
				if m.Restart {
					start = m.Index
				}
			}
			if tn.Start != start {
				t.Fatalf("%s: turn %d sends the history from %d, want %d", path, k, tn.Start, start)
			}
			last = first
			for _, i := range tn.Messages {
				m := tr.Messages[i]
				if m.Role != "assistant" {
					t.Fatalf("%s: turn %d holds a %s message", path, k, m.Role)
				}
				if m.Response == "" {
					continue
				}
				if j, ok := byResponse[m.Response]; ok && j != k {
					t.Fatalf("%s: response %s is in turns %d and %d", path, m.Response, j, k)
				}
				byResponse[m.Response] = k
			}
		}
	}
}

// TestCorpus: over every fixture and corpus file, a replay's tokens add
// up (what a request sends is read or written), its largest prompt is no
// more than the history and the prefix, its cache breaks as it was are
// the agent's own compactions, and a policy that changes nothing sends
// the session as it was, and hides nothing that the model used.
func TestCorpus(t *testing.T) {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	same := func(*transcript.Transcript) Advance {
		return func(int, func(Change)) {}
	}
	for _, path := range testutil.FixturesAndCorpus(t) {
		tr := transcripttest.Load(t, path)
		opts := Options{Counter: ctr, Prices: pricing.Default(), Prefix: 1000}
		s := Replay(tr, same, opts)
		r := s.AsIs
		if tk := r.Tokens; tk.CacheRead+tk.CacheWrite+tk.CacheWrite1h+tk.Input != r.Sent {
			t.Errorf("%s: %d sent, %+v", path, r.Sent, tk)
		}
		if r.Peak > s.Tokens+opts.Prefix || r.Requests != len(tr.Turns()) {
			t.Errorf("%s: peak %d of a history of %d, %d requests for %d turns", path, r.Peak, s.Tokens, r.Requests, len(tr.Turns()))
		}
		restarts := 0
		for _, m := range tr.Messages {
			if m.Restart {
				restarts++
			}
		}
		if r.Breaks > restarts {
			t.Errorf("%s: %d cache breaks as it was, %d restarts", path, r.Breaks, restarts)
		}
		if *s.Compacted != s.AsIs || r.Hidden != 0 || r.Recalls != 0 || r.WithRecalls != r.Cost {
			t.Errorf("%s: a policy that changes nothing sends %+v, as it was %+v", path, *s.Compacted, s.AsIs)
		}
	}
}

// TestPromptAfter: a request reads the messages it shares from the start
// with the request before it, and writes the rest; a message changed by a
// filter breaks the prefix there, as Replay's model says; PromptOf keys a
// message by its content as sent now.
func TestPromptAfter(t *testing.T) {
	tr := transcripttest.Load(t, filepath.Join("testdata", "four.jsonl"))
	ctr := approx(t)
	whole := PromptOf(tr, stats.Count(tr, ctr))
	if got := whole.Tokens; fmt.Sprint(got) != "[4 6 100 6 10 10 10 10]" {
		t.Fatalf("tokens %v", got)
	}
	first := Prompt{Keys: whole.Keys[:3], Tokens: whole.Tokens[:3]}
	for _, c := range []struct {
		name          string
		prev, next    Prompt
		read, written int64
	}{
		{"the first request", Prompt{}, first, 0, 110},
		{"the history grows", first, whole, 110, 46},
		{"the same again", whole, whole, 156, 0},
	} {
		if r, w := c.next.After(c.prev); r != c.read || w != c.written {
			t.Errorf("%s: read %d, written %d; want %d and %d", c.name, r, w, c.read, c.written)
		}
	}
	tr.SetText(tr.Results[0], "short")
	changed := PromptOf(tr, stats.Count(tr, ctr))
	if changed.Keys[2] == whole.Keys[2] || changed.Keys[1] != whole.Keys[1] || changed.Keys[3] != whole.Keys[3] {
		t.Errorf("a changed result changes its message's key alone")
	}
	if r, w := changed.After(whole); r != 10 || w != 2+6+10*4 { // "short" is 2 tokens
		t.Errorf("after a change at message 2: read %d, written %d; want 10 and 48", r, w)
	}
}

// TestSessionOutlivesInput: a session's replay keeps none of the
// transcript's bytes, so that a report of a thousand sessions holds their
// numbers and not their files.
func TestSessionOutlivesInput(t *testing.T) {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range testutil.FixturesAndCorpus(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bytes := weak.Make(&data[0])
		s := Replay(transcripttest.Parse(t, data), nil, Options{Counter: ctr, Prices: pricing.Default()})
		data = nil
		runtime.GC()
		if bytes.Value() != nil {
			t.Errorf("%s: the replay keeps the transcript's bytes", path)
		}
		runtime.KeepAlive(s)
	}
}
