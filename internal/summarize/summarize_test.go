package summarize

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// chat builds an OpenAI Chat Completions transcript, message by message.
type chat struct{ msgs []string }

func (c *chat) user(text string) *chat {
	c.msgs = append(c.msgs, fmt.Sprintf(`{"role":"user","content":%s}`, quote(text)))
	return c
}

// call adds an assistant message with one tool call and the tool's result.
func (c *chat) call(id, name, args, output string) *chat {
	c.msgs = append(c.msgs,
		fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, quote(args)),
		fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%s}`, id, quote(output)))
	return c
}

// result adds a tool message alone (for a result whose call is missing).
func (c *chat) result(id, output string) *chat {
	c.msgs = append(c.msgs, fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%s}`, id, quote(output)))
	return c
}

func (c *chat) bytes() []byte { return []byte("[\n" + strings.Join(c.msgs, ",\n") + "\n]\n") }

func (c *chat) parse(t *testing.T) *transcript.Transcript {
	t.Helper()
	tr := transcripttest.Parse(t, c.bytes())
	return tr
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// lines makes an output of n numbered lines.
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

func readArgs(path string) string { return fmt.Sprintf(`{"path":%q}`, path) }

func approx(t *testing.T) tokens.Counter {
	ctr, err := tokens.New(tokens.Approx)
	if err != nil {
		t.Fatal(err)
	}
	return ctr
}

func newFilter(t *testing.T, opts Options) *Filter {
	t.Helper()
	opts.Counter = approx(t)
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fourTurns is user u1, results r0 and r1, user u2, r2, user u3, r3: the
// outputs of four commands.
func fourTurns() *chat {
	c := &chat{}
	c.user("u1").call("c0", "run_shell", cmdArgs("make a"), lines("a", 40)).call("c1", "run_shell", cmdArgs("make b"), lines("b", 40))
	c.user("u2").call("c2", "run_shell", cmdArgs("make c"), lines("c", 40))
	c.user("u3").call("c3", "run_shell", cmdArgs("make d"), lines("d", 40))
	return c
}

func cmdArgs(cmd string) string { return fmt.Sprintf(`{"command":%q}`, cmd) }

// TestProtected checks each window at its edges. Every result has 100
// tokens.
func TestProtected(t *testing.T) {
	toks := []int{100, 100, 100, 100}
	cases := []struct {
		name string
		opts Options
		want []int // the protected results
	}{
		{"all off", Options{}, nil},
		{"keep-recent 1", Options{KeepRecent: 1}, []int{3}},
		{"keep-recent 4: all", Options{KeepRecent: 4}, []int{0, 1, 2, 3}},
		{"keep-recent 5: more than there are", Options{KeepRecent: 5}, []int{0, 1, 2, 3}},
		{"protect-turns 1", Options{ProtectTurns: 1}, []int{3}},
		{"protect-turns 2", Options{ProtectTurns: 2}, []int{2, 3}},
		{"protect-turns 3: every turn", Options{ProtectTurns: 3}, []int{0, 1, 2, 3}},
		{"protect-turns 4: fewer turns than that", Options{ProtectTurns: 4}, []int{0, 1, 2, 3}},
		{"protect-tokens 1: the last result crosses it", Options{ProtectTokens: 1}, []int{3}},
		{"protect-tokens 99", Options{ProtectTokens: 99}, []int{3}},
		{"protect-tokens 100: exactly the last result", Options{ProtectTokens: 100}, []int{3}},
		{"protect-tokens 101: one over, the result that crosses it too", Options{ProtectTokens: 101}, []int{2, 3}},
		{"protect-tokens 200", Options{ProtectTokens: 200}, []int{2, 3}},
		{"protect-tokens 201", Options{ProtectTokens: 201}, []int{1, 2, 3}},
		{"protect-tokens 400: all of them", Options{ProtectTokens: 400}, []int{0, 1, 2, 3}},
		{"protect-tokens over the total", Options{ProtectTokens: 1000}, []int{0, 1, 2, 3}},
		{"the union of the windows", Options{KeepRecent: 1, ProtectTurns: 2, ProtectTokens: 1}, []int{2, 3}},
	}
	tr := fourTurns().parse(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newFilter(t, c.opts).protected(tr, toks)
			var got []int
			for i, ok := range p {
				if ok {
					got = append(got, i)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("protected %v, want %v", got, c.want)
			}
		})
	}
}

// TestProtectTurnsCountsUserTurnsOnly: a user message that only carries
// tool results (Anthropic, Claude Code) is not a turn.
func TestProtectTurnsCountsUserTurnsOnly(t *testing.T) {
	in := `[
{"role":"user","content":"first"},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b.go"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"b"}]},
{"role":"user","content":"second"},
{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"c.go"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"c"}]}
]`
	tr := transcripttest.Parse(t, []byte(in))
	p := newFilter(t, Options{ProtectTurns: 1}).protected(tr, []int{1, 1, 1})
	if want := []bool{false, false, true}; !reflect.DeepEqual(p, want) {
		t.Errorf("protected %v, want %v", p, want)
	}
}

// TestMinSavings: at exactly the savings, the run goes ahead; one token
// more and nothing changes.
func TestMinSavings(t *testing.T) {
	c := fourTurns()
	probe := newFilter(t, Options{}).Apply(c.parse(t))
	saved := probe.Saved()
	if saved <= 0 || probe.Summarized != 4 {
		t.Fatalf("probe: %s", probe.Stats())
	}
	for _, tc := range []struct {
		min     int
		changed bool
	}{{saved - 1, true}, {saved, true}, {saved + 1, false}} {
		tr := c.parse(t)
		rep := newFilter(t, Options{MinSavings: tc.min}).Apply(tr)
		if tr.Changed() != tc.changed || (rep.Unchanged == "") != tc.changed {
			t.Errorf("min-savings %d with %d to save: changed %v (%q), want %v", tc.min, saved, tr.Changed(), rep.Unchanged, tc.changed)
		}
		if !tc.changed && (rep.Kept.BelowMinimum != 4 || rep.Summarized != 0 || rep.TokensAfter != rep.TokensBefore) {
			t.Errorf("min-savings %d: report %+v", tc.min, rep)
		}
	}
}

// TestTrigger: a history of exactly the trigger's size is left alone; one
// token over and the run goes ahead.
func TestTrigger(t *testing.T) {
	c := fourTurns()
	history := newFilter(t, Options{Trigger: 1}).Apply(c.parse(t)).HistoryTokens
	if history <= 1 {
		t.Fatalf("history of %d tokens", history)
	}
	for _, tc := range []struct {
		trigger int
		changed bool
	}{{history + 1, false}, {history, false}, {history - 1, true}} {
		tr := c.parse(t)
		rep := newFilter(t, Options{Trigger: tc.trigger}).Apply(tr)
		if tr.Changed() != tc.changed || rep.HistoryTokens != history {
			t.Errorf("trigger %d on %d tokens: changed %v (%s), want %v", tc.trigger, history, tr.Changed(), rep.Stats(), tc.changed)
		}
	}
}

// TestNeverSummarized: edits and writes, failed calls, markers, results a
// pointer names, excluded tools, orphan results and the latest read of a
// file stay whole, however old and large; a plain old read beside them is
// summarized.
func TestNeverSummarized(t *testing.T) {
	big := lines("x", 60)
	c := &chat{}
	c.user("go").
		call("read", "read_file", readArgs("a.go"), big).
		call("edit", "edit_file", `{"path":"a.go","old":"x","new":"y"}`, big).
		call("write", "write_file", `{"path":"b.go","content":"package b"}`, big).
		call("fail", "run_shell", `{"command":"go test ./..."}`, "Exit code: 1\n"+big).
		call("mark", "read_file", readArgs("c.go"), "[ctx-truncate] 9,000 chars, 60 lines; 8,000 chars cut here.\n"+big).
		call("target", "read_file", readArgs("d.go"), big).
		call("ptr", "read_file", readArgs("d.go"), "[ctx-dedupe] Re-read of d.go: identical to the result of call target above; content not repeated here.").
		call("excl", "todo_write", `{"todos":[]}`, big).
		result("orphan", big).
		call("latest", "read_file", readArgs("a.go"), big)
	tr := c.parse(t)
	rep := newFilter(t, Options{ExcludeTools: []string{"TODO_WRITE"}}).Apply(tr)
	want := Kept{Marker: 2, Referenced: 1, EditWrite: 2, Failed: 1, Excluded: 1, NoCall: 1, LatestRead: 1}
	if rep.Kept != want || rep.Summarized != 1 {
		t.Fatalf("kept %+v and summarized %d, want %+v and 1", rep.Kept, rep.Summarized, want)
	}
	out := transcripttest.Parse(t, tr.Bytes())
	for i, r := range out.Results {
		summarized := marker.Is(r.Text(), "summarize")
		if summarized != (r.CallID == "read") {
			t.Errorf("result %d (%s): summarized %v", i, r.CallID, summarized)
		}
		if !summarized && r.Text() != tr.Results[i].Text() {
			t.Errorf("result %d (%s) changed", i, r.CallID)
		}
	}
}

// TestNeverMoreTokens: a summary that is not shorter than its result, in
// tokens, is not used.
func TestNeverMoreTokens(t *testing.T) {
	long := "run_" + strings.Repeat("x", 150) // the command is on the marker line
	out := lines("o", 12)
	c := (&chat{}).user("go").call("c1", "run_shell", fmt.Sprintf(`{"command":%q}`, long), out)
	tr := c.parse(t)
	s, ok := Rules{}.Summarize(tr.Calls[0], tr.Results[0].Text())
	ctr := approx(t)
	if !ok || ctr.Count(s) < ctr.Count(out) {
		t.Fatalf("the case needs a summary at least as long as the output: %q", s)
	}
	rep := newFilter(t, Options{}).Apply(tr)
	if tr.Changed() || rep.Kept.NotShorter != 1 {
		t.Errorf("changed %v, report %+v", tr.Changed(), rep)
	}
}

// TestMirrors: the first copy of a summarized output becomes the summary,
// the others are emptied; --keep-mirrors leaves them.
func TestMirrors(t *testing.T) {
	out := lines("o", 40)
	line := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	in := strings.Join([]string{
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "go"}}),
		line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "make"}}}}}),
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": out}}},
			"toolUseResult": map[string]any{"stdout": out, "stderr": "warning: x", "interrupted": false}}),
	}, "\n") + "\n"
	for _, keep := range []bool{false, true} {
		tr := transcripttest.Parse(t, []byte(in))
		newFilter(t, Options{KeepMirrors: keep}).Apply(tr)
		after := transcripttest.Parse(t, tr.Bytes())
		r := after.Results[0]
		var got []string
		for _, m := range r.Mirrors() {
			got = append(got, m.Field+"="+m.Text)
		}
		want := []string{"toolUseResult.stdout=" + r.Text()} // the emptied stderr is no mirror any more
		if keep {
			want = []string{"toolUseResult.stdout=" + out, "toolUseResult.stderr=warning: x"}
		}
		if !marker.Is(r.Text(), "summarize") || !reflect.DeepEqual(got, want) {
			t.Errorf("keep-mirrors %v: result %q, mirrors %q, want %q", keep, r.Text(), got, want)
		}
	}
}

// TestReportAddsUp: every result is summarized or kept for one reason, and
// the rows by tool add up to the totals, which match a recount.
func TestReportAddsUp(t *testing.T) {
	c := fourTurns()
	c.call("e1", "edit_file", `{"path":"a.go"}`, "ok").call("s1", "run_shell", `{"command":"ls"}`, lines("f.go", 30))
	tr := c.parse(t)
	rep := newFilter(t, Options{KeepRecent: 1}).Apply(tr)
	k := rep.Kept
	if n := rep.Summarized + k.Marker + k.Referenced + k.EditWrite + k.Failed + k.Excluded + k.NoCall + k.LatestRead + k.Protected + k.NotShorter + k.BelowMinimum; n != rep.Results {
		t.Errorf("%d summarized and kept, %d results", n, rep.Results)
	}
	var before, after, results, summarized int
	for _, row := range rep.Tools {
		before += row.TokensBefore
		after += row.TokensAfter
		results += row.Results
		summarized += row.Summarized
	}
	if before != rep.TokensBefore || after != rep.TokensAfter || results != rep.Results || summarized != rep.Summarized || len(rep.Changes) != rep.Summarized {
		t.Errorf("rows add up to %d → %d tokens, %d results, %d summarized; report %+v", before, after, results, summarized, rep)
	}
	out := transcripttest.Parse(t, tr.Bytes())
	recount := newFilter(t, Options{Trigger: 1 << 30}).Apply(out)
	if recount.TokensBefore != rep.TokensAfter {
		t.Errorf("tokens after: reported %d, recounted %d", rep.TokensAfter, recount.TokensBefore)
	}
	if got := rep.Stats().String(); got != fmt.Sprintf("%d of %d results changed", rep.Summarized, rep.Results) {
		t.Errorf("stats line %q", got)
	}
}

// TestClearMode writes one line naming the tool, the target, the exit and
// the size removed.
func TestClearMode(t *testing.T) {
	out := "Exit code: 0\n" + lines("ok", 30)
	tr := (&chat{}).user("go").call("c1", "run_shell", `{"command":"go test ./..."}`, out).parse(t)
	rep := newFilter(t, Options{Mode: ModeClear}).Apply(tr)
	ctr := approx(t)
	want := fmt.Sprintf("[ctx-summarize] run_shell `go test ./...`: exit 0; output cleared: 31 lines (%d chars), %d tokens, not shown here.", len(out), ctr.Count(out))
	if got := tr.Results[0].Text(); got != want || rep.Summarized != 1 {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{Mode: "shorten"}, {ProtectTokens: -1}, {ProtectTurns: -1}, {KeepRecent: -2}, {MinSavings: -1}, {Trigger: -1}} {
		o.Counter = approx(t)
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(Options{}); err == nil {
		t.Error("New accepted options without a counter")
	}
	if _, err := New(Defaults(approx(t))); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestStatus checks the first fact of a marker line, how the call ended,
// for each way an output tells it. A Codex command still running when its
// output was taken (unified exec) has not ended: its session's last poll
// tells how it did, so neither it nor a poll that is still running is "ok".
func TestStatus(t *testing.T) {
	running := "Chunk ID: 7c1e02\nWall time: 10.0 seconds\nProcess running with session ID 48230\nOriginal token count: 3\nOutput:\n=== RUN   TestParse\n"
	exited := "Chunk ID: b2d870\nWall time: 2.1 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\n--- FAIL: TestParse\n"
	tr := (&chat{}).user("go").
		call("exit0", "run_shell", cmdArgs("make"), "Exit code: 0\nbuilt\n").
		call("exit1", "run_shell", cmdArgs("make"), "Exit code: 1\nbroken\n").
		call("plain", "run_shell", cmdArgs("make"), "built\n").
		call("start", "exec_command", `{"cmd":"go test ./..."}`, running).
		call("poll", "write_stdin", `{"session_id":48230,"chars":""}`, running).
		call("last", "write_stdin", `{"session_id":48230,"chars":""}`, exited).
		call("read", "read_file", readArgs("a.go"), "package a\n").
		parse(t)
	want := map[string]string{
		"exit0": "exit 0",
		"exit1": "failed, exit 1",
		"plain": "ok",
		"start": "still running, session 48230",
		"poll":  "still running",
		"last":  "failed, exit 1",
		"read":  "",
	}
	for _, c := range tr.Calls {
		if got := newOutput(c, c.Result.Text(), "", "").status(); got != want[c.ID] {
			t.Errorf("%s: status %q, want %q", c.ID, got, want[c.ID])
		}
	}
}

// TestTreeByCommand: tree's output is summarized as a tree whatever the
// shell line around it (Codex wraps every command in bash -lc) and in
// ASCII, whose drawing alone does not tell it.
func TestTreeByCommand(t *testing.T) {
	out := ".\n|-- cmd\n|   `-- main.go\n|-- go.mod\n`-- internal\n    `-- a.go\n\n3 directories, 3 files\n"
	for _, cmd := range []string{"tree --charset ascii", "cd /repo && tree --charset ascii", "bash -lc 'tree --charset ascii'"} {
		tr := (&chat{}).user("go").call("c1", "bash", cmdArgs(cmd), out).parse(t)
		c := tr.Calls[0]
		facts, _, ok := pick(c, out)(newOutput(c, out, "", ""))
		if !ok || !slices.Contains(facts, "3 directories, 3 files") || !slices.Contains(facts, "top level: cmd, go.mod, internal") {
			t.Errorf("%s: facts %q, want tree's counts and top level", cmd, facts)
		}
	}
}
