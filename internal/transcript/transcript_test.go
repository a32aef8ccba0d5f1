package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testutil"
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
	for _, path := range testutil.Fixtures(t) {
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
	for _, path := range testutil.Fixtures(t) {
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

func TestExitCodeFromText(t *testing.T) {
	cases := []struct {
		text string
		code int
		ok   bool
	}{
		{"Exit code 1\nFAIL", 1, true},
		{"Exit code 128\nfatal: no upstream", 128, true},
		{"<returncode>0</returncode>\n<output>\nok\n</output>", 0, true},
		{"<returncode>-9</returncode>", -9, true},
		{"Chunk ID: 4bdf6f\nWall time: 1.2 seconds\nProcess exited with code 2\nOutput:\n", 2, true},
		{"Exit code: 3\nWall time: 0.1 seconds\nOutput:\n", 3, true},
		{"Output:\nExit code: 4\n", 4, true},
		{"ok\nExit code 5\n", 0, false}, // Claude Code's form is the first line only
		{"Exit code 1 and more", 0, false},
		{"<returncode>x</returncode>", 0, false},
		{"", 0, false},
		{strings.Repeat("x\n", 400) + "Exit code: 6\n", 0, false}, // past the head
	}
	for _, c := range cases {
		code, ok := exitCodeFromText(c.text)
		if code != c.code || ok != c.ok {
			t.Errorf("exitCodeFromText(%.40q) = %d, %v; want %d, %v", c.text, code, ok, c.code, c.ok)
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
