package facts

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// used is the facts the model used in each turn, by name, with the index
// of the result each came from.
func used(t *testing.T, in string) ([][]string, [][]int) {
	t.Helper()
	tr := transcripttest.Parse(t, []byte(in))
	turns := tr.Turns()
	s := Analyze(tr, turns)
	names, sources := make([][]string, len(turns)), make([][]int, len(turns))
	for k := range turns {
		for _, u := range s.Uses(k) {
			names[k] = append(names[k], s.Name(u.Fact))
			sources[k] = append(sources[k], u.Source.Index)
		}
	}
	return names, sources
}

// claudeCode is a Claude Code session: the user names app.go; the model
// guesses at loadSettings, reads the file, then edits it and says what it
// found; the read showed parseConfig, retry_limit, loadSettings and the
// file's path.
const claudeCode = `{"type":"user","cwd":"/p","message":{"role":"user","content":"Fix the retries in /p/app.go"}}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Maybe loadSettings is at fault."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/app.go"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"     1\tfunc parseConfig(path string) {\n     2\t\tretry_limit := loadSettings(path).Retries\n   142\t}"}]}}
{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"thinking","thinking":"parseConfig sets retry_limit at line 142.","signature":"s"},{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/p/app.go","old_string":"retry_limit := loadSettings(path).Retries","new_string":"retry_limit := 3"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"The file /p/app.go has been updated."}]}}
{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Done: retry_limit in app.go."}]}}
`

// TestUsesClaudeCode: the model used what only the read showed, in its
// thinking and its edit's arguments, and again in a later turn; not the
// path the user gave, not the name it guessed before the read, not the
// edit's keys.
func TestUsesClaudeCode(t *testing.T) {
	names, sources := used(t, claudeCode)
	want := [][]string{nil, {"parseConfig", "retry_limit", "142"}, {"retry_limit"}}
	if !slices.EqualFunc(names, want, slices.Equal) {
		t.Errorf("used %q, want %q", names, want)
	}
	if sources[1][0] != 0 || sources[2][0] != 0 {
		t.Errorf("sources %v, want the read's (result 0): the edit's result does not show them", sources)
	}
}

// codex is a Codex rollout: a read through sed, a function named in the
// model's reasoning summary and its message, and a patch.
const codex = `{"timestamp":"2026-05-11T10:29:40.150Z","type":"session_meta","payload":{"id":"019e","cwd":"/home/dev/app","originator":"codex_cli_rs","cli_version":"0.46.0","instructions":"You are Codex."}}
{"timestamp":"2026-05-11T10:29:41.000Z","type":"turn_context","payload":{"cwd":"/home/dev/app","model":"gpt-5"}}
{"timestamp":"2026-05-11T10:29:42.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why is the total wrong?"}]}}
{"timestamp":"2026-05-11T10:29:44.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"sed -n '1,40p' src/lib.rs\"],\"workdir\":\"/home/dev/app\"}","call_id":"call_1"}}
{"timestamp":"2026-05-11T10:29:44.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"pub fn compute_total(items: &[Item]) -> u64 {\\n    items.iter().map(|i| i.price_cents).sum()\\n}\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.01}}"}}
{"timestamp":"2026-05-11T10:29:45.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**compute_total ignores quantity**"}],"content":null,"encrypted_content":"gAAAAB"}}
{"timestamp":"2026-05-11T10:29:45.500Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/lib.rs\n-    items.iter().map(|i| i.price_cents).sum()\n+    items.iter().map(|i| i.price_cents * i.qty).sum()\n*** End Patch"}}
{"timestamp":"2026-05-11T10:29:45.600Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"{\"output\":\"Success. Updated the following files:\\nM src/lib.rs\\n\",\"metadata\":{\"exit_code\":0}}"}}
{"timestamp":"2026-05-11T10:29:46.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"compute_total now multiplies price_cents by qty."}]}}
`

// TestUsesCodex: in a rollout, what the sed showed and the model wrote in
// its reasoning, its patch and its message; not the metadata's keys.
func TestUsesCodex(t *testing.T) {
	names, _ := used(t, codex)
	var all []string
	for _, n := range names {
		all = append(all, n...)
	}
	for _, want := range []string{"compute_total", "i.price_cents"} {
		if !slices.Contains(all, want) {
			t.Errorf("%q not used: %q", want, names)
		}
	}
	for _, no := range []string{"exit_code", "duration_seconds", "src/lib.rs", "lib.rs"} {
		if slices.Contains(all, no) {
			t.Errorf("%q used: %q", no, names)
		}
	}
}

// chat is a chat-completions history: grep finds a setting, which the
// user then names too; the model names both it and the line's file.
const chat = `{"role":"system","content":"You fix bugs."}
{"role":"user","content":"The timeout is too short."}
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"grep -rn timeout conf/\"}"}}]}
{"role":"tool","tool_call_id":"c1","content":"conf/server.yaml:12:  read_timeout_ms: 250\nconf/server.yaml:13:  write_timeout_ms: 250"}
{"role":"user","content":"Yes, write_timeout_ms too."}
{"role":"assistant","content":"Raising read_timeout_ms and write_timeout_ms at conf/server.yaml:12, from 250."}
`

// TestUsesChat: a fact the user also said is not counted; a location and
// its path are; a number under 3 digits is no fact, but 250 is.
func TestUsesChat(t *testing.T) {
	names, _ := used(t, chat)
	want := [][]string{nil, {"read_timeout_ms", "conf/server.yaml", "conf/server.yaml:12", "250"}}
	if !slices.EqualFunc(names, want, slices.Equal) {
		t.Errorf("used %q, want %q", names, want)
	}
}

// TestRestart: after the agent compacted its history, a fact is the
// tool's only if it is shown again after the restart; the summary the
// restart starts with is not a tool's.
func TestRestart(t *testing.T) {
	in := `{"type":"user","cwd":"/p","message":{"role":"user","content":"go"}}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"alpha_one.go beta_two.go"}]}}
{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}
{"type":"user","message":{"role":"user","content":"Summary: the files are alpha_one.go and more."}}
{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"alpha_one.go, beta_two.go"}]}}
`
	names, _ := used(t, in)
	if len(names) != 2 || names[1] != nil {
		t.Errorf("used %q: after the restart, nothing was the tool's", names)
	}
}

// TestWindow: a request shows what its messages show in the form they are
// sent in: a result replaced by a text without a fact hides it, one whose
// text names a longer path shows it; a message out of the request shows
// nothing.
func TestWindow(t *testing.T) {
	tr := transcripttest.Parse(t, []byte(claudeCode))
	s := Analyze(tr, tr.Turns())
	id := func(f string) ID { return s.ids[f] }
	w := s.Window(tr)
	w.Span(0, 3)
	if !w.Shows(id("parseConfig")) || !w.Shows(id("app.go")) {
		t.Fatal("the read, whole, does not show what it says")
	}
	asWritten := func(c *transcript.Call) string { return c.Input }
	read := tr.Messages[2]
	w.Send(read, s.Sent(read, asWritten, func(*transcript.Result) string { return "[ctx-compact] Read /q/p/app.go: 3 lines" }))
	if w.Shows(id("parseConfig")) || !w.Shows(id("app.go")) {
		t.Error("the summary: parseConfig shown, or p/app.go not")
	}
	w.Span(1, 3)
	if w.Shows(id("app.go")) != true {
		t.Error("the read's message, still in the request, no longer shows app.go")
	}
	w.Span(4, 5)
	if w.Shows(id("parseConfig")) || !w.Shows(id("app.go")) {
		t.Error("messages out of the request still show their facts, or the one in it does not")
	}
}

// TestCorpus: over every fixture and corpus file, every fact used is in
// the text of its source result and in the model's turn, and a window over
// each turn's request, as written, shows every fact used in it.
func TestCorpus(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		tr := transcripttest.Load(t, path)
		turns := tr.Turns()
		s := Analyze(tr, turns)
		w := s.Window(tr)
		for k, tn := range turns {
			w.Span(tn.Start, tn.Messages[0])
			for _, u := range s.Uses(k) {
				name := s.Name(u.Fact)
				if !w.Shows(u.Fact) {
					t.Errorf("%s: turn %d: %q is not shown as written", path, k, name)
				}
				if i := u.Source.Message.Index; i < tn.Start || i >= tn.Messages[0] {
					t.Errorf("%s: turn %d: %q comes from message %d, out of the request", path, k, name, i)
				}
				if !strings.Contains(u.Source.Text(), strings.SplitN(name, ":", 2)[0]) {
					t.Errorf("%s: turn %d: %q is not in its source", path, k, name)
				}
			}
		}
	}
}

// BenchmarkAnalyze reads what every fixture and corpus file shows and
// what its model used (CTX_BENCH_FILE: one file instead).
func BenchmarkAnalyze(b *testing.B) {
	var trs []*transcript.Transcript
	size := 0
	for _, data := range testutil.BenchInputs(b) {
		tr := transcripttest.Parse(b, data)
		for _, r := range tr.Results {
			r.Text() // decoded once, as the replay's count has
		}
		trs = append(trs, tr)
		size += len(data)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, tr := range trs {
			Analyze(tr, tr.Turns())
		}
	}
}
