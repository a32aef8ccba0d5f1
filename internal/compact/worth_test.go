package compact

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// cc writes a Claude Code session line by line: a user's prompt, then
// calls and their results, and the model's text.
type cc struct {
	b strings.Builder
	n int
}

func newCC(prompt string) *cc {
	s := &cc{}
	s.b.WriteString(`{"type":"user","cwd":"/p","message":{"role":"user","content":` + strconv.Quote(prompt) + `}}` + "\n")
	return s
}

// call is a model turn that makes a call, and its result.
func (s *cc) call(name, input, result string) *cc {
	s.n++
	id := strconv.Itoa(s.n)
	s.b.WriteString(`{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"t` + id + `","name":"` + name + `","input":` + input + `}]}}` + "\n")
	s.b.WriteString(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + id + `","content":` + strconv.Quote(result) + `}]}}` + "\n")
	return s
}

// say is a model turn of text alone.
func (s *cc) say(text string) *cc {
	s.n++
	s.b.WriteString(`{"type":"assistant","message":{"id":"m` + strconv.Itoa(s.n) + `","role":"assistant","content":[{"type":"text","text":` + strconv.Quote(text) + `}]}}` + "\n")
	return s
}

func (s *cc) bytes() []byte { return []byte(s.b.String()) }

// storeGo is a Go file of 80 lines whose fields and locals a later edit
// quotes; its outline names its type and functions alone.
func storeGo() string {
	var b strings.Builder
	b.WriteString("package store\n\ntype Store struct {\n\tretry_limit int\n\tbackoff_ms int\n}\n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "func (s *Store) Load%02d(path string) error {\n\tpending_count := s.retry_limit * %d\n\t_ = pending_count\n\treturn nil\n}\n\n", i, i+2)
	}
	return b.String()
}

// numbered is a read's text as Claude Code's Read shows it.
func numbered(text string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, line)
	}
	return b.String()
}

// busy adds turns that run short commands, whose outputs name nothing
// the session uses later.
func (s *cc) busy(turns int) *cc {
	for i := range turns {
		s.call("Bash", `{"command":"ls docs"}`, fmt.Sprintf("notes-%d.md", i))
	}
	return s
}

// readEditedLater is a session that reads store.go, runs a long test log
// it never looks at again, works on other things for ten turns, and then
// edits store.go with the names the read showed.
func readEditedLater() []byte {
	log := strings.Repeat("=== RUN   TestSomethingElse\n--- PASS: TestSomethingElse (0.00s)\n", 150) + "PASS\nok  \texample.com/store\t0.150s\n"
	return newCC("Make the store back off between retries.").
		call("Read", `{"file_path":"/p/store.go"}`, numbered(storeGo())).
		call("Bash", `{"command":"go test -v ./..."}`, log).
		busy(10).
		call("Edit", `{"file_path":"/p/store.go","old_string":"\tpending_count := s.retry_limit * 2","new_string":"\tpending_count := s.retry_limit * s.backoff_ms"}`, "The file /p/store.go has been updated.").
		say("Load00 now multiplies retry_limit by backoff_ms.").
		bytes()
}

// compacted is the output of ctx-compact with opts (checked against every
// invariant), parsed.
func compacted(t *testing.T, in []byte, opts Options) *transcript.Transcript {
	t.Helper()
	return transcripttest.Parse(t, invariant.Check(t, in, asFilter(t, opts)))
}

// TestReadEditedLater: the read of a file the agent edits ten turns later
// stays whole, as does everything it said (none hidden); the long test
// log that it never looked at again is replaced by its summary. With
// KeepReads off, the read is an outline by the time of the edit, and the
// replay counts what that hid: the names the edit and the last turn
// quote, with a recall of the read.
func TestReadEditedLater(t *testing.T) {
	in := readEditedLater()
	out := compacted(t, in, defaults())
	if got := out.Results[0].Text(); got != transcripttest.Parse(t, in).Results[0].Text() {
		t.Errorf("the read: %.120q, want it whole", got)
	}
	if got := out.Results[1].Text(); !marker.Is(got, tool) || !strings.Contains(got, "go test -v") {
		t.Errorf("the test log: %.120q, want its summary", got)
	}
	s := replayed(t, in, defaults())
	if s.FactsUsed == 0 || s.Compacted.Hidden != 0 || s.Compacted.Recalls != 0 {
		t.Errorf("kept: %d facts used, %d hidden, %d recalls", s.FactsUsed, s.Compacted.Hidden, s.Compacted.Recalls)
	}

	opts := defaults()
	opts.KeepReads = false
	if got := compacted(t, in, opts).Results[0].Text(); !marker.Is(got, tool) {
		t.Errorf("reads replaced: the read is %.120q, want its summary", got)
	}
	s = replayed(t, in, opts)
	if s.Compacted.Hidden == 0 || s.Compacted.Recalls != 1 || s.RecallRatio() <= s.Ratio() {
		t.Errorf("reads replaced: %d of %d facts hidden, %d recalls, ratio %.3f, with recalls %.3f",
			s.Compacted.Hidden, s.FactsUsed, s.Compacted.Recalls, s.Ratio(), s.RecallRatio())
	}
}

// replayed is a session's replay with ctx-compact's opts in the loop.
func replayed(t *testing.T, in []byte, opts Options) replay.Session {
	t.Helper()
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := transcripttest.Parse(t, in)
	return replay.Replay(tr, func(tr *transcript.Transcript) replay.Advance { return f.Start(tr).Advance },
		replay.Options{Counter: counter(), Prices: pricing.Default()})
}

// TestReferred: a short output that the model's answer quotes (a task's
// description) stays whole, one it passes over is replaced; a long one it
// quotes is replaced too (KeepReferred bounds what is kept), and with
// KeepReferred 0 the quoted short one is replaced as well.
func TestReferred(t *testing.T) {
	spec := "Task spotter-4te.3: add the span attributes spotter.hook.event and spotter.session_id to every hook call.\n" +
		strings.Repeat("Acceptance: the attributes appear on the exported spans.\n", 40)
	other := strings.Repeat("Unrelated task: tidy the changelog entries of the last release.\n", 40)
	long := strings.Repeat("The plan names spotter.hook.script for every script the hooks run, one line per script.\n", 70)
	in := newCC("Work on the next task.").
		call("Bash", `{"command":"bd show spotter-4te.3"}`, spec).
		say("I will add spotter.hook.event and spotter.session_id.").
		call("Bash", `{"command":"bd show spotter-4te.9"}`, other).
		say("That one is not for now.").
		call("Bash", `{"command":"python3 plan.py"}`, long).
		say("The plan wants spotter.hook.script as well.").
		busy(2).
		bytes()
	out := compacted(t, in, defaults())
	if got := out.Results[0].Text(); got != spec {
		t.Errorf("the quoted task: %.120q, want it whole", got)
	}
	for _, i := range []int{1, 2} {
		if got := out.Results[i].Text(); !marker.Is(got, tool) {
			t.Errorf("result %d: %.120q, want its summary", i, got)
		}
	}
	opts := defaults()
	opts.KeepReferred = 0
	if got := compacted(t, in, opts).Results[0].Text(); !marker.Is(got, tool) {
		t.Errorf("KeepReferred 0: the quoted task is %.120q, want its summary", got)
	}
	opts.KeepReferred = 5000
	if got := compacted(t, in, opts).Results[2].Text(); got != long {
		t.Errorf("KeepReferred 5000: the quoted plan is %.120q, want it whole", got)
	}
}

// TestHiddenCorpus: over every fixture and corpus file, with every
// setting, a replay hides no more facts than the model used, recalls no
// more results than it hid facts, and costs no less with its recalls; a
// policy that changes nothing hides nothing.
func TestHiddenCorpus(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		in := read(t, path)
		for name, set := range settings {
			opts := defaults()
			if set != nil {
				set(&opts)
			}
			s := replayed(t, in, opts)
			c := *s.Compacted
			if c.Hidden > s.FactsUsed || c.Recalls > c.Hidden || c.WithRecalls < c.Cost || c.RecallCost < 0 || s.AsIs.Hidden != 0 {
				t.Errorf("%s, %s: %d of %d facts hidden (%d as it was), %d recalls, $%g with them, $%g without",
					testutil.Name(path), name, c.Hidden, s.FactsUsed, s.AsIs.Hidden, c.Recalls, c.WithRecalls, c.Cost)
			}
		}
		opts := defaults()
		opts.Window, opts.Cut, opts.Dedupe = 1<<30, nil, false
		if s := replayed(t, in, opts); s.Compacted.Hidden != 0 || *s.Compacted != s.AsIs {
			t.Errorf("%s: a policy that changes nothing hid %d facts", testutil.Name(path), s.Compacted.Hidden)
		}
	}
}

// TestHiddenFacts: what a replay with ctx-compact counts as hidden, on
// small sessions of three formats: a name from an old read quoted later
// is hidden under a summary and shown when the read is kept; a name the
// summary keeps (a function of the read's outline) is shown; a Codex
// rollout's and a chat-completions history's command output, quoted a
// few turns later, likewise.
func TestHiddenFacts(t *testing.T) {
	replaceReads := func(o *Options) { o.KeepReads = false }
	outlined := newCC("Where is the seventh loader?").
		call("Read", `{"file_path":"/p/store.go"}`, numbered(storeGo())).
		busy(3).say("Load07 is in store.go.").bytes()
	codex := codexSession()
	chat := chatSession()
	cases := []struct {
		name   string
		in     []byte
		set    func(*Options)
		hidden int
	}{
		{"old read, quoted later, kept", readEditedLater(), nil, 0},
		// pending_count and s.retry_limit: the other names the model
		// wrote in its edit, and its last turn reads them there.
		{"old read, quoted later, summarized", readEditedLater(), replaceReads, 2},
		{"in the summary", outlined, replaceReads, 0},
		{"codex, summarized", codex, nil, 1},
		{"codex, kept", codex, func(o *Options) { o.Window = 10 }, 0},
		{"chat completions, summarized", chat, nil, 1},
		{"chat completions, kept", chat, func(o *Options) { o.Window = 10 }, 0},
	}
	for _, c := range cases {
		opts := defaults()
		if c.set != nil {
			c.set(&opts)
		}
		s := replayed(t, c.in, opts)
		if s.FactsUsed == 0 || s.Compacted.Hidden != c.hidden || s.AsIs.Hidden != 0 {
			t.Errorf("%s: %d of %d facts hidden (%d as it was), want %d", c.name, s.Compacted.Hidden, s.FactsUsed, s.AsIs.Hidden, c.hidden)
		}
	}
}

// codexSession is a rollout whose test run prints the failing test's
// name and a value, which the model quotes three turns later.
func codexSession() []byte {
	log := strings.Repeat("test tests::other_case ... ok\n", 60) + "test tests::decode_chunk_len ... ok\n" +
		strings.Repeat("test tests::other_case ... ok\n", 60) + "test result: ok. 122 passed\n"
	line := func(typ, payload string) string {
		return `{"timestamp":"2026-05-11T10:00:00.000Z","type":"` + typ + `","payload":` + payload + "}\n"
	}
	call := func(id, cmd, out string) string {
		return line("response_item", `{"type":"function_call","name":"exec_command","arguments":`+strconv.Quote(`{"cmd":"`+cmd+`"}`)+`,"call_id":"`+id+`"}`) +
			line("response_item", `{"type":"function_call_output","call_id":"`+id+`","output":`+strconv.Quote(out)+`}`)
	}
	s := line("session_meta", `{"id":"s1","cwd":"/w"}`) +
		line("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the tests."}]}`) +
		call("c1", "cargo test", "Process exited with code 0\nOutput:\n"+log)
	for i := range 3 {
		s += call("c"+strconv.Itoa(i+2), "ls", "src")
	}
	return []byte(s + line("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"decode_chunk_len passes."}]}`))
}

// chatSession is a chat-completions history whose grep shows a setting
// that the model names two turns later.
func chatSession() []byte {
	hits := strings.Repeat("conf/other.yaml:1: unrelated: true\n", 150) + "conf/server.yaml:12:  read_timeout_ms: 250\n"
	return []byte(`{"role":"user","content":"Find the timeout."}
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"grep -rn : conf/\"}"}}]}
{"role":"tool","tool_call_id":"c1","content":` + strconv.Quote(hits) + `}
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}
{"role":"tool","tool_call_id":"c2","content":"conf"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls conf\"}"}}]}
{"role":"tool","tool_call_id":"c3","content":"server.yaml"}
{"role":"assistant","content":"It is read_timeout_ms."}
`)
}
