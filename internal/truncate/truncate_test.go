package truncate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

func session(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sessions", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// run applies opts to data and returns the transcript before and after.
func run(t *testing.T, data []byte, opts Options) (before, after *transcript.Transcript, rep stats.Report) {
	t.Helper()
	tr := transcripttest.Parse(t, data)
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rep = f.Apply(tr)
	return transcripttest.Parse(t, data), transcripttest.Parse(t, tr.Bytes()), rep
}

// errorLines are the lines of text that say what went wrong, as
// internal/outcome finds them: those a failed call's cut must keep.
func errorLines(text string) []string {
	var out []string
	for l := range outcome.Lines(text) {
		if l.Kind.IsError() {
			out = append(out, l.Text)
		}
	}
	return out
}

// cutIDs lists the calls whose results were cut.
func cutIDs(before, after *transcript.Transcript) []string {
	var ids []string
	for i, r := range after.Results {
		if r.Text() != before.Results[i].Text() {
			ids = append(ids, r.CallID)
		}
	}
	return ids
}

func TestApplyScope(t *testing.T) {
	data := session(t, "claude-code.jsonl")
	shell := []string{"toolu_01FX0002", "toolu_01FX0003", "toolu_01FX0004", "toolu_01FX0005", "toolu_01FX0006", "toolu_01FX0007", "toolu_01FX0008"}
	cases := []struct {
		name string
		opts Options
		want []string
	}{
		// The short ls, the Read, the Edit, the result that the ctx-dedupe
		// marker points at (0011) and the marker itself stay.
		{"default", Options{Rules: DefaultRules()}, shell},
		{"tools", Options{Rules: DefaultRules(), Tools: []string{"read"}}, []string{"toolu_01FX0009"}},
		{"tools bash", Options{Rules: DefaultRules(), Tools: []string{"BASH"}}, shell},
		{"all", Options{Rules: DefaultRules(), All: true}, append(shell[:7:7], "toolu_01FX0009")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, after, rep := run(t, data, c.opts)
			got := cutIDs(before, after)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("cut %v, want %v", got, c.want)
			}
			if rep.Changed != len(c.want) || rep.Results != 12 {
				t.Errorf("report: %+v", rep)
			}
		})
	}
}

func TestApplyOrphansOnlyWithAll(t *testing.T) {
	long := strings.Repeat("output line\\n", 2000)
	data := []byte(`[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"gone","content":"` + long + `"}]`)
	if _, after, _ := run(t, data, Options{Rules: DefaultRules()}); strings.Contains(after.Results[0].Text(), "[ctx-truncate]") {
		t.Error("an orphan result was cut without --all")
	}
	if _, after, _ := run(t, data, Options{Rules: DefaultRules(), All: true}); !strings.Contains(after.Results[0].Text(), "[ctx-truncate]") {
		t.Error("an orphan result was not cut with --all")
	}
}

func TestApplyMirrors(t *testing.T) {
	for _, name := range []string{"claude-code.jsonl", "codex.jsonl", "openai.json"} {
		t.Run(name, func(t *testing.T) {
			data := session(t, name)
			before, after, rep := run(t, data, Options{Rules: DefaultRules()})
			if !strings.Contains(rep.Detail, "beside the results cut too") {
				t.Fatal("no mirror cut")
			}
			for i, r := range after.Results {
				b := before.Results[i]
				cut := r.Text() != b.Text()
				for j, m := range r.Mirrors() {
					was := b.Mirrors()[j].Text
					if cut && len(was) > DefaultMaxChars && !marker.IsCut(m.Text) {
						t.Errorf("%s: the result was cut, its mirror %s (%d bytes) was not", r.CallID, m.Field, len(was))
					}
					if !cut && m.Text != was {
						t.Errorf("%s: the result stayed, its mirror %s changed", r.CallID, m.Field)
					}
				}
			}
			// --keep-mirrors leaves them, and only them.
			_, kept, _ := run(t, data, Options{Rules: DefaultRules(), KeepMirrors: true})
			for i, r := range kept.Results {
				if r.Text() != after.Results[i].Text() {
					t.Errorf("%s: --keep-mirrors changed how the result is cut", r.CallID)
				}
				for j, m := range r.Mirrors() {
					if m.Text != before.Results[i].Mirrors()[j].Text {
						t.Errorf("%s: --keep-mirrors changed mirror %s", r.CallID, m.Field)
					}
				}
			}
		})
	}
}

func TestApplyFailedKeepsErrors(t *testing.T) {
	data := session(t, "claude-code.jsonl")
	opts := Options{Rules: DefaultRules()}
	opts.Rules.KeepMatches = 0
	before, after, _ := run(t, data, opts)
	for i, r := range after.Results {
		b := before.Results[i]
		if !b.Failed() || r.Text() == b.Text() {
			continue
		}
		for _, line := range errorLines(b.Text()) {
			if !strings.Contains(r.Text(), line) {
				t.Errorf("%s: error line lost with --keep-matches 0: %q", r.CallID, line)
			}
		}
	}
}

func TestApplyKeepPattern(t *testing.T) {
	opts := Options{Rules: DefaultRules()}
	opts.Rules.Keep = []*regexp.Regexp{regexp.MustCompile(`INV-0200`)}
	_, after, _ := run(t, session(t, "codex.jsonl"), opts)
	for _, r := range after.Results {
		if strings.Contains(r.Text(), "importer") && !strings.Contains(r.Text(), ": 14:54:27 INFO importer: record 200: imported INV-0200") {
			t.Errorf("--keep-pattern line not kept:\n%s", r.Text())
		}
	}
}

func TestApplyTokenMode(t *testing.T) {
	ctr := counter(t, tokens.Default)
	opts := Options{Rules: Rules{Max: 2500, Head: 500, Tail: 500, TokenMode: true, Counter: ctr, KeepMatches: 20}, Measure: true}
	before, after, rep := run(t, session(t, "claude-code.jsonl"), opts)
	if !rep.Measured || rep.Changed == 0 {
		t.Fatalf("report: %+v", rep)
	}
	total := func(tr *transcript.Transcript) int {
		n := 0
		for _, r := range tr.Results {
			n += ctr.Count(r.Text())
		}
		return n
	}
	if rep.ToolOutput.Before != total(before) || rep.ToolOutput.After != total(after) {
		t.Errorf("report %+v, the results have %d → %d tokens", rep.ToolOutput, total(before), total(after))
	}
	for i, r := range after.Results {
		if r.Text() != before.Results[i].Text() && ctr.Count(r.Text()) >= ctr.Count(before.Results[i].Text()) {
			t.Errorf("%s: not fewer tokens", r.CallID)
		}
	}
}

func TestReportString(t *testing.T) {
	opts := Options{Rules: DefaultRules(), Measure: true}
	opts.Rules.Counter = counter(t, tokens.Default)
	_, _, rep := run(t, session(t, "claude-code.jsonl"), opts)
	if !regexp.MustCompile(`^7 of 12 results changed \(7 copies beside the results cut too\); [0-9,]+ → [0-9,]+ tokens \(−[0-9]+%\); tool output [0-9,]+ → [0-9,]+ tokens \(−[0-9]+%\)$`).MatchString(rep.String()) {
		t.Errorf("stats: %q", rep.String())
	}
}

// TestNewChecksOptions: New refuses what no run could honour.
func TestNewChecksOptions(t *testing.T) {
	ctr := counter(t, tokens.Default)
	cases := []struct {
		opts Options
		want string
	}{
		{Options{Rules: Rules{Max: -1}}, "max-chars must be 0 or more"},
		{Options{Rules: Rules{Tail: -1, TokenMode: true, Counter: ctr}}, "tail-tokens must be 0 or more"},
		{Options{Rules: Rules{KeepMatches: -1}}, "keep-matches must be 0 or more"},
		{Options{Rules: Rules{TokenMode: true}}, "truncate: no token counter"},
		{Options{Rules: DefaultRules(), Measure: true}, "truncate: no token counter"},
		{Options{Rules: DefaultRules(), All: true, Tools: []string{"Bash"}}, "tools and all cannot be used together"},
		{Options{Rules: DefaultRules(), Tools: []string{" ", ""}}, "tools: no tool named"},
	}
	for _, c := range cases {
		if _, err := New(c.opts); err == nil || err.Error() != c.want {
			t.Errorf("New(%+v) = %v, want %q", c.opts, err, c.want)
		}
	}
}

// TestLatestReadStaysWhole: a long shell read (cat, sed -n) is cut when a
// later read shows the file again, and the latest read of a file is left
// whole, unless the tools to cut are named.
func TestLatestReadStaysWhole(t *testing.T) {
	long := strings.Repeat("a line of the file\\n", 2000)
	call := func(id, cmd string) string {
		return `{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"bash","arguments":"{\"command\":\"` + cmd + `\"}"}}]},` +
			`{"role":"tool","tool_call_id":"` + id + `","content":"` + long + `"}`
	}
	data := []byte(`[` + call("c1", "cat a.txt") + `,` + call("c2", "sed -n '1,2000p' a.txt") + `,` + call("c3", "cat b.txt") + `]`)
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"default", Options{Rules: DefaultRules()}, "c1"},
		{"tools named", Options{Rules: DefaultRules(), Tools: []string{"bash"}}, "c1 c2 c3"},
		{"all", Options{Rules: DefaultRules(), All: true}, "c1 c2 c3"},
	} {
		before, after, _ := run(t, data, c.opts)
		if got := strings.Join(cutIDs(before, after), " "); got != c.want {
			t.Errorf("%s: cut %s, want %s", c.name, got, c.want)
		}
	}
}
