package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// series is a request body as an agent's requests grow it: the body with
// its history cut after each of its elements, in turn.
func series(t *testing.T, body []byte, key string) [][]byte {
	t.Helper()
	src := string(body)
	msgs := jsonscan.Parse(src, 0).Get(key)
	if !msgs.IsArray() {
		t.Fatalf("no %s array", key)
	}
	after := src[end(msgs)-1:] // "]" and the fields after the history
	out := [][]byte{[]byte(src[:msgs.Off+1] + after)}
	msgs.Each(func(v jsonscan.Value) bool {
		out = append(out, []byte(src[:end(v)]+after))
		return true
	})
	return out
}

// model is everything a transcript says, in full, for comparing two.
func model(t *Transcript) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s cwd=%q session=%q %d/%d/%d\n", t.Format, t.Layout, t.Cwd, t.SessionID, len(t.Messages), len(t.Calls), len(t.Results))
	for _, m := range t.Messages {
		fmt.Fprintf(&b, "m%d %s %v %v %q %q %v %#v\n", m.Index, m.Role, m.Pos, m.Time, m.Model, m.Response, m.Restart, m.Blocks)
		for _, c := range m.Calls {
			fmt.Fprintf(&b, " c%d %q %q %s %#v %q text=%v set=%v msg=%d", c.Index, c.ID, c.Name, c.Kind, c.Args, c.Input, c.InputIsText, c.CanSetInput(), c.Message.Index)
			if c.Result != nil {
				fmt.Fprintf(&b, " r%d", c.Result.Index)
			}
			if c.Continues != nil {
				fmt.Fprintf(&b, " continues c%d", c.Continues.Index)
			}
			b.WriteByte('\n')
		}
		for _, r := range m.Results {
			fmt.Fprintf(&b, " r%d %q err=%v exit=%v %#v images=%#v msg=%d mirrors=%#v text=%q", r.Index, r.CallID, r.IsError, r.ExitCode, r.Outcome(), r.Images, r.Message.Index, r.Mirrors(), r.Text())
			if r.Call != nil {
				fmt.Fprintf(&b, " c%d", r.Call.Index)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestPrefix: a request body parsed after the body before it in a growing
// series (Options.After) is the transcript a parse of its own gives, in
// every field, and writes the same bytes for the same changes; so is a
// body whose last elements changed (an agent that moves its cache
// breakpoints), and one that is not the same conversation at all. The
// later transcripts keep no string of the earlier bodies.
func TestPrefix(t *testing.T) {
	for _, name := range []string{"claude-code-request.json", "anthropic-request-tools.json", "chat-request.json", "codex-request.json", "responses-request.json"} {
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(testutil.Root(t), "testdata", "requests", name))
			if err != nil {
				t.Fatal(err)
			}
			first, err := Parse(body, Options{})
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Format: first.Format, Keep: true}
			key := "messages"
			if first.Format == Codex {
				key = "input"
			}
			var prev *Prefix
			var earlier []string
			carried := 0
			bodies := series(t, body, key)
			// The same body again, one whose last element changed, and
			// then one of another conversation.
			last := bodies[len(bodies)-1]
			changed := []byte(strings.Replace(string(last), `"`+key+`":[`, `"`+key+`":[ `, 1))
			bodies = append(bodies, append([]byte(nil), last...), []byte(strings.Replace(string(last), `}]`, `} ]`, 1)), changed)
			for i, b := range bodies {
				want, err := Parse(b, Options{Format: opts.Format})
				if err != nil {
					t.Fatal(err)
				}
				o := opts
				o.After = prev
				got, err := Parse(b, o)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range got.Results {
					if r.decoded { // only a carried result comes decoded: model decoded them all
						carried++
					}
				}
				if m, w := model(got), model(want); m != w {
					t.Fatalf("body %d: the transcript parsed after the one before differs:\n%s", i, firstDiff(m, w))
				}
				sameEdits(got)
				sameEdits(want)
				if string(got.Bytes()) != string(want.Bytes()) {
					t.Fatalf("body %d: the same changes wrote other bytes", i)
				}
				noneOf(t, got, earlier)
				earlier = append(earlier, unsafe.String(unsafe.SliceData(b), len(b))) // the bytes Parse read
				prev = got.Prefix()
			}
			if carried == 0 {
				t.Error("no parse took anything from the one before")
			}
		})
	}
}

// sameEdits makes the same changes to any transcript: every other result's
// text, and the arguments of every third call that can take others.
func sameEdits(t *Transcript) {
	for i, r := range t.Results {
		if i%2 == 0 {
			t.SetText(r, fmt.Sprintf("[ctx-test] result %d was %d bytes", i, len(r.Text())))
		}
	}
	for i, c := range t.Calls {
		if i%3 == 0 && c.CanSetInput() {
			t.SetInput(c, `{"stub":true}`)
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n got  %.300s\n want %.300s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(al), len(bl))
}

// noneOf fails when a string the transcript keeps (in any field of its
// messages, calls and results, unexported ones too) is a view of one of
// the earlier documents: the transcript would keep that document alive.
func noneOf(t *testing.T, tr *Transcript, earlier []string) {
	t.Helper()
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			s := v.String()
			if s == "" {
				return
			}
			p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
			for _, e := range earlier {
				lo := uintptr(unsafe.Pointer(unsafe.StringData(e)))
				if p >= lo && p < lo+uintptr(len(e)) {
					t.Fatalf("%s is a view of an earlier document: %.80q", path, s)
				}
			}
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), path)
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k), path+"[key]")
			}
		}
	}
	walk(reflect.ValueOf(tr.Messages), "Messages")
	walk(reflect.ValueOf(tr.Calls), "Calls")
	walk(reflect.ValueOf(tr.Results), "Results")
}

// FuzzPrefix: any document parsed after another that shares its start is
// what a parse of its own makes of it: the same transcript, or the same
// error.
func FuzzPrefix(f *testing.F) {
	f.Add(`{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb"}]}],"system":"s"}`,
		uint16(120), `,{"role":"assistant","content":"ok"}],"metadata":{"user_id":"u_session_abc"}}`, uint8(1))
	f.Add(`{"model":"gpt-5","messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cat a\"}"}}]},{"role":"tool","tool_call_id":"c","content":"x"}]}`,
		uint16(200), `]}`, uint8(0))
	f.Add(`{"model":"gpt-5","input":[{"type":"function_call","call_id":"c","name":"shell","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}],"instructions":"i"}`,
		uint16(90), `,{"type":"message","role":"user","content":"more"}]}`, uint8(2))
	f.Fuzz(func(t *testing.T, doc string, cut uint16, tail string, which uint8) {
		format := []Format{OpenAI, Anthropic, Codex}[int(which)%3]
		first, err := Parse([]byte(doc), Options{Format: format, Keep: true})
		if err != nil {
			return
		}
		for _, r := range first.Results[:len(first.Results)/2] {
			r.Text() // some texts decoded, as a filter leaves them
		}
		prefix := first.Prefix()
		next := []byte(doc[:int(cut)%(len(doc)+1)] + tail)
		want, wantErr := Parse(next, Options{Format: format})
		got, gotErr := Parse(next, Options{Format: format, After: prefix})
		switch {
		case (wantErr == nil) != (gotErr == nil):
			t.Fatalf("alone: %v; after the other: %v", wantErr, gotErr)
		case wantErr != nil:
			if wantErr.Error() != gotErr.Error() {
				t.Fatalf("alone: %v; after the other: %v", wantErr, gotErr)
			}
		default:
			if m, w := model(got), model(want); m != w {
				t.Fatalf("after the other:\n%s", firstDiff(m, w))
			}
		}
	})
}
