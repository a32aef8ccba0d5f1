package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tools"
)

func parseFile(t *testing.T, path string) (*Transcript, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Parse(data, Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tr, data
}

// TestModelGolden pins what the model makes of every fixture: formats,
// layouts, string and block content, errors, exit codes, images, parallel
// calls, missing results and results without calls.
func TestModelGolden(t *testing.T) {
	for _, path := range append(testutil.Fixtures(t), testutil.Requests(t)...) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			tr, _ := parseFile(t, path)
			testutil.Golden(t, filepath.Join("testdata", name+".model"), []byte(dump(tr)))
		})
	}
}

// TestSetTextGolden rewrites every result and every mirror of every fixture
// and pins the output: each content shape is rewritten in place, and the
// rest of the input is untouched.
func TestSetTextGolden(t *testing.T) {
	for _, path := range append(testutil.Fixtures(t), testutil.Requests(t)...) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			tr, _ := parseFile(t, path)
			for _, r := range tr.Results {
				tr.SetText(r, "[new] "+r.CallID)
				for i := range r.Mirrors() {
					tr.SetMirror(r, i, "[new mirror]")
				}
			}
			out := tr.Bytes()
			testutil.Golden(t, filepath.Join("testdata", name+".settext"), out)
			checkRewrite(t, tr, out)
		})
	}
}

// checkRewrite parses the rewritten output and checks that it holds the same
// messages, calls and pairs, with the new texts.
func checkRewrite(t *testing.T, before *Transcript, out []byte) {
	t.Helper()
	after, err := Parse(out, Options{Format: before.Format})
	if err != nil {
		t.Fatalf("rewritten output does not parse: %v", err)
	}
	if after.Layout != before.Layout || len(after.Messages) != len(before.Messages) ||
		len(after.Calls) != len(before.Calls) || len(after.Results) != len(before.Results) {
		t.Fatalf("rewrite changed the structure: %d/%d/%d messages/calls/results, want %d/%d/%d",
			len(after.Messages), len(after.Calls), len(after.Results), len(before.Messages), len(before.Calls), len(before.Results))
	}
	for i, r := range after.Results {
		b := before.Results[i]
		if r.Text() != b.Text() || r.CallID != b.CallID || (r.Call == nil) != (b.Call == nil) || len(r.Images) != len(b.Images) {
			t.Errorf("result %d after rewrite: %q for %s, want %q for %s", i, r.Text(), r.CallID, b.Text(), b.CallID)
		}
		for j, m := range r.Mirrors() {
			if want := b.Mirrors()[j].Text; m.Text != want {
				t.Errorf("result %d mirror %s after rewrite: %q, want %q", i, m.Field, m.Text, want)
			}
		}
	}
}

func TestRoundTripIsByteIdentical(t *testing.T) {
	for _, path := range testutil.Fixtures(t) {
		tr, data := parseFile(t, path)
		if !bytes.Equal(tr.Bytes(), data) {
			t.Errorf("%s: unchanged transcript is not written back byte for byte", path)
		}
		if tr.Changed() {
			t.Errorf("%s: Changed() with no edits", path)
		}
	}
}

func TestSetTextSameTextIsNoChange(t *testing.T) {
	tr, data := parseFile(t, filepath.Join(testutil.Root(t), "testdata", "formats", "claude-code.jsonl"))
	for _, r := range tr.Results {
		tr.SetText(r, r.Text())
	}
	if tr.Changed() || !bytes.Equal(tr.Bytes(), data) {
		t.Fatal("setting a result to its own text changed the output")
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"empty", "", "1:1: empty input: no transcript to read (in a pipe, an earlier command may have failed)"},
		{"blank", " \n\t\n", "1:1: empty input"},
		{"not json", "hello world\n", `1:1: not a transcript: expected JSON (an array, an object with "messages", or JSONL), found "hello world"`},
		{"truncated array", "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"assis", "3:18: invalid JSON: truncated (unexpected end of input)"},
		{"bad jsonl line", "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n{\"role\": user}\n", "3:10: invalid JSON: invalid character 'u' looking for beginning of value"},
		{"truncated jsonl", "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n{\"type\":\"assistant\",\"mess", "2:26: invalid JSON: truncated (unexpected end of input)"},
		{"trailing garbage", "[{\"role\":\"user\",\"content\":\"a\"}] x", "1:33: invalid JSON: invalid character 'x' after top-level value"},
		{"object without messages", "{\n  \"model\": \"x\"\n}\n", `1:1: not a transcript: the JSON object has no "messages" array`},
		{"unknown jsonl", "{\"a\":1}\n{\"b\":2}\n", "1:1: unknown format: no messages"},
		{"unknown indented jsonl", "\n  {\"a\":1}\n", "2:3: unknown format"},
		{"array of numbers", "[1, 2, 3]", "1:2: element 0: unknown format"},
		{"hook payload", `{"session_id":"s1","transcript_path":"/home/u/.claude/projects/-p/s1.jsonl","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash"}`,
			`1:1: unknown format: a Claude Code hook payload: its transcript is at transcript_path "/home/u/.claude/projects/-p/s1.jsonl"`},
		{"pretty hook payload", "{\n  \"transcript_path\": \"/t.jsonl\",\n  \"hook_event_name\": \"Stop\"\n}\n",
			`1:1: not a transcript: a Claude Code hook payload: its transcript is at transcript_path "/t.jsonl"`},
		{"codex prompt history", `{"session_id":"0199","ts":1759000000,"text":"fix the tests"}`, "1:1: unknown format: Codex's prompt history"},
		{"chat completion", `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"hi"}}]}`, "1:1: unknown format: a Chat Completions response"},
		{"deep array", strings.Repeat("[", 10_000_000), "1:10001: invalid JSON: nesting deeper than 10000"},
		{"deep object", "{\"messages\":\n" + strings.Repeat(`{"a":`, 1_000_000), "2:49996: invalid JSON: nesting deeper than 10000"},
		{"deep jsonl line", "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":" + strings.Repeat("[", 10_000_000), "2:10025: invalid JSON: nesting deeper than 10000"},
		{"byte order mark then bad", "\ufeff[1,]", "1:5: invalid JSON"},
		{"wide chars column", "{\"role\":\"user\",\"content\":\"é\"} {", "1:31: invalid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Parse([]byte(c.input), Options{})
			if err == nil {
				t.Fatalf("Parse accepted bad input; got %d messages", len(tr.Messages))
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SyntaxError: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error = %q, want prefix %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

func TestEmptyArrayIsAnEmptyTranscript(t *testing.T) {
	tr, err := Parse([]byte("[]\n"), Options{})
	if err != nil || len(tr.Messages) != 0 {
		t.Fatalf("Parse([]) = %v, %v", tr, err)
	}
}

func TestHugeLine(t *testing.T) {
	// Real tool outputs are megabytes on one line; there is no limit.
	big := strings.Repeat("x", 8<<20)
	in := `{"role":"user","content":"go"}` + "\n" +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cat big\"}"}}]}` + "\n" +
		`{"role":"tool","tool_call_id":"c","content":"` + big + `"}` + "\n"
	tr, err := Parse([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tr.Results[0].Text()); got != len(big) {
		t.Fatalf("result text is %d bytes, want %d", got, len(big))
	}
}

func TestFormatOverride(t *testing.T) {
	in := []byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`)
	for _, f := range []Format{OpenAI, Anthropic} {
		tr, err := Parse(in, Options{Format: f})
		if err != nil || tr.Format != f || len(tr.Messages) != 2 {
			t.Errorf("Parse with --format %s: %v, %+v", f, err, tr)
		}
	}
	if f, err := ParseFormat("Claude-Code"); err != nil || f != ClaudeCode {
		t.Errorf("ParseFormat(Claude-Code) = %q, %v", f, err)
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat accepted yaml")
	}
}

// TestSetMirrorSameText: setting a mirror to the text it has changes
// nothing, and a short text replaces a long mirror.
func TestSetMirrorSameText(t *testing.T) {
	for _, path := range testutil.Fixtures(t) {
		tr, _ := parseFile(t, path)
		for _, r := range tr.Results {
			for i, m := range r.Mirrors() {
				tr.SetMirror(r, i, m.Text)
			}
		}
		if tr.Changed() {
			t.Errorf("%s: setting mirrors to their own text changed the transcript", filepath.Base(path))
		}
		for _, r := range tr.Results {
			for i, m := range r.Mirrors() {
				if len(m.Text) > 12 {
					tr.SetMirror(r, i, "x")
					if got := r.Mirrors()[i].Text; got != "x" {
						t.Errorf("%s: mirror %s is %q after SetMirror", filepath.Base(path), m.Field, got)
					}
				}
			}
		}
	}
}

// TestOutcome: every result is judged by internal/outcome from its text
// and the format's flags, whatever its call: an exit code in the output of
// a call without a command line, an OpenAI tool's "Error:" first line.
func TestOutcome(t *testing.T) {
	long := strings.Repeat("\\u00e9", 200) // escapes: the head needs more than 512 bytes of JSON
	cases := []struct {
		name, in string
		failed   bool
		code     int
		hasCode  bool
	}{
		{"openai Error:", `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"Error: no such file"}]`, true, 0, false},
		{"openai exit code of a tool without a command", `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"run","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"<returncode>3</returncode>\n<output>\n</output>"}]`, true, 3, true},
		{"a header after a long first line", `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"Chunk ID: ` + long + `\nProcess exited with code 4\nOutput:\n"}]`, true, 4, true},
		{"a result without a call", `[{"role":"tool","tool_call_id":"c9","content":"Exit code: 5\nOutput:\n"}]`, true, 5, true},
		{"text blocks, the exit code at the end of the last", `[{"role":"tool","tool_call_id":"c9","content":[{"type":"text","text":"` + strings.Repeat("head ", 1000) + `"},{"type":"text","text":"` + strings.Repeat("more ", 1000) + `\nProcess exited with code 6"}]}]`, true, 6, true},
		{"mini-swe-agent's returncode beside the text wins", `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"<returncode>0</returncode>","extra":{"returncode":1}}]`, true, 1, true},
	}
	for _, c := range cases {
		tr, err := Parse([]byte(c.in), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := tr.Results[0]
		if code, has := r.ExitCode.Get(); r.Failed() != c.failed || code != c.code || has != c.hasCode {
			t.Errorf("%s: failed %v, exit %d %v; want %v, %d %v", c.name, r.Failed(), code, has, c.failed, c.code, c.hasCode)
		}
	}
}

// TestUnifiedExecSessions: on a Codex rollout with the unified exec tools,
// each write_stdin joins the exec_command that announced its session, takes
// its command and kind, and has its own exit code; a poll of a session that
// the rollout does not show starting keeps its own target, "session N".
func TestUnifiedExecSessions(t *testing.T) {
	tr, _ := parseFile(t, filepath.Join(testutil.Root(t), "testdata", "formats", "codex-unified.jsonl"))
	byID := map[string]*Call{}
	for _, c := range tr.Calls {
		byID[c.ID] = c
	}
	cases := []struct {
		id, starts, command string
		kind                tools.Kind
		failed              bool
		target              string
	}{
		{"call_exec_1", "", "go test -v ./...", tools.Shell, false, "go test -v ./..."},
		{"call_poll_1", "call_exec_1", "go test -v ./...", tools.Shell, false, "go test -v ./..."},
		{"call_poll_2", "call_exec_1", "go test -v ./...", tools.Shell, true, "go test -v ./..."},
		{"call_exec_2", "", `rg -n "ExpiresAt" internal/ cmd/shortlink/`, tools.Search, true, "internal"},
		{"call_poll_3", "", "", tools.Shell, false, "session 51007"},
		{"call_poll_4", "call_exec_3", "npm run build", tools.Shell, true, "npm run build"},
	}
	for _, c := range cases {
		call := byID[c.id]
		starts := ""
		if call.Continues != nil {
			starts = call.Continues.ID
		}
		if starts != c.starts || call.Args.Command != c.command || call.Kind != c.kind || call.Result.Failed() != c.failed || call.Args.Target(tr.Cwd) != c.target {
			t.Errorf("%s: continues %q, command %q, kind %s, failed %v, target %q; want %q, %q, %s, %v, %q", c.id,
				starts, call.Args.Command, call.Kind, call.Result.Failed(), call.Args.Target(tr.Cwd), c.starts, c.command, c.kind, c.failed, c.target)
		}
	}
}

// TestFirstBadLineOfALargeInput: large inputs are validated on every core;
// the error still names the first bad line.
func TestFirstBadLineOfALargeInput(t *testing.T) {
	good := `{"role":"user","content":"` + strings.Repeat("x", 1000) + `"}` + "\n"
	var b strings.Builder
	for i := 0; i < 6000; i++ {
		switch i {
		case 4321:
			b.WriteString("  {\"role\": oops}\n")
		case 5000:
			b.WriteString("{\"role\":\n")
		default:
			b.WriteString(good)
		}
	}
	_, err := Parse([]byte(b.String()), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "4322:12: invalid JSON") {
		t.Fatalf("error = %v, want line 4322, column 12", err)
	}
}

// TestStrSuffix: the end of a JSON string decodes as the end of its text,
// wherever the cut falls among escapes.
func TestStrSuffix(t *testing.T) {
	text := "a\\b\"c\u00e9\U0001F642\n\td" + strings.Repeat("x\\\u0001", 5)
	raw, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	v := jsonscan.Value{Raw: string(raw)}
	for n := 0; n <= len(raw); n++ {
		got := strSuffix(v, n)
		if !strings.HasSuffix(text, strings.TrimPrefix(got, "\uFFFD")) {
			t.Errorf("strSuffix(%d) = %q, not an end of %q", n, got, text)
		}
	}
}

// TestSetInput rewrites every call's arguments that the format can hold as a
// JSON object, in every fixture and corpus file: the output parses, the
// call has its new arguments, the same kind when they name the same path,
// and nothing else changed; a call whose arguments are a tool's free text
// cannot be rewritten.
func TestSetInput(t *testing.T) {
	rewritten := 0
	for _, path := range testutil.FixturesAndCorpus(t) {
		tr, _ := parseFile(t, path)
		want := map[int]string{}
		for _, c := range tr.Calls {
			if !c.CanSetInput() {
				if !c.InputIsText && c.Input != "" && c.raw.Raw != "" && jsonscan.Parse(c.Input, 0).IsObject() {
					t.Errorf("%s: call %s has JSON object arguments but cannot be rewritten", path, c.ID)
				}
				continue
			}
			in := `{"path":` + jsonscan.Quote(c.Args.Path) + `,"note":"[ctx-test] \"quoted\" <b>"}`
			tr.SetInput(c, in)
			want[c.Index] = in
		}
		out, err := Parse(tr.Bytes(), Options{Format: tr.Format})
		if err != nil {
			t.Fatalf("%s: the output does not parse: %v", path, err)
		}
		if len(out.Calls) != len(tr.Calls) || len(out.Results) != len(tr.Results) || len(out.Messages) != len(tr.Messages) {
			t.Fatalf("%s: calls, results or messages changed", path)
		}
		for i, c := range out.Calls {
			in, ok := want[i]
			switch {
			case ok && c.Input != in:
				t.Errorf("%s: call %s has %q, want %q", path, c.ID, c.Input, in)
			case !ok && c.Input != tr.Calls[i].Input:
				t.Errorf("%s: call %s changed", path, c.ID)
			case c.ID != tr.Calls[i].ID || c.Name != tr.Calls[i].Name || (c.Result == nil) != (tr.Calls[i].Result == nil):
				t.Errorf("%s: call %s lost its id, name or result", path, c.ID)
			}
		}
		for i, r := range out.Results {
			if r.Text() != tr.Results[i].Text() {
				t.Errorf("%s: result %d changed", path, i)
			}
		}
		rewritten += len(want)
	}
	if rewritten == 0 {
		t.Fatal("no call rewritten: the test checks nothing")
	}
}

// TestRequestSession: the session a request body names, in each form the
// agents write it.
func TestRequestSession(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"metadata":{"user_id":"{\"device_id\":\"d\",\"account_uuid\":\"\",\"session_id\":\"s-1\"}"},"messages":[]}`, "s-1"},
		{`{"metadata":{"user_id":"user_abc_account__session_s-2"},"messages":[]}`, "s-2"},
		{`{"metadata":{"user_id":"user_abc_account__session_"},"messages":[]}`, ""},
		{`{"metadata":{"user_id":"{\"device_id\":\"d\"}"},"prompt_cache_key":"k-3","messages":[]}`, "k-3"},
		{`{"prompt_cache_key":"k-4","input":[]}`, "k-4"},
		{`{"metadata":{"user_id":"plain user"},"messages":[]}`, ""},
		{`{"messages":[]}`, ""},
	} {
		tr, err := Parse([]byte(c.body), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tr.SessionID != c.want {
			t.Errorf("%s: session %q, want %q", c.body, tr.SessionID, c.want)
		}
	}
}

// TestStatedCwd: a request body's working directory, where the agents
// state it before the model's first turn.
func TestStatedCwd(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"system":"Here is useful information about the environment:\n - Primary working directory: /home/u/proj\n - Is a git repository: false","messages":[{"role":"user","content":"hi"}]}`, "/home/u/proj"},
		{`{"system":[{"type":"text","text":"<env>\nWorking directory: /Users/u/my repo\nPlatform: darwin\n</env>"}],"messages":[]}`, "/Users/u/my repo"},
		{`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/srv/app</cwd>\n</environment_context>"}]}]}`, "/srv/app"},
		{`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"},{"role":"user","content":"Working directory: /late"}]}`, ""},
		{`{"messages":[{"role":"user","content":"- Working directory persists between calls"}]}`, ""},
	} {
		tr, err := Parse([]byte(c.body), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Cwd != c.want {
			t.Errorf("%s: cwd %q, want %q", c.body, tr.Cwd, c.want)
		}
	}
}
