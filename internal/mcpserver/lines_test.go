package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// call is a tools/call of memory_query with the given id.
func call(id int, args string) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"memory_query","arguments":` + args + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// reply is a line the server wrote.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serve runs the server on the given lines, over an archive that does not
// exist, until they end, and returns its answers.
func serve(t testing.TB, lines ...string) []reply {
	t.Helper()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := Serve(context.Background(), filepath.Join(t.TempDir(), "none.db"), "test", in, &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var answers []reply
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var a reply
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("the server wrote %q: %v", line, err)
		}
		answers = append(answers, a)
	}
	return answers
}

// byID finds the reply to a request.
func byID(answers []reply, id string) *reply {
	for i := range answers {
		if string(answers[i].ID) == id {
			return &answers[i]
		}
	}
	return nil
}

// TestBadLines: a line that is not JSON, a batch, or JSON that is not a
// request is answered with a JSON-RPC error, and the server goes on to
// reply what follows.
func TestBadLines(t *testing.T) {
	cases := []struct {
		name, line string
		code       int
	}{
		{"not JSON", `hello`, -32700},
		{"cut short", `{"jsonrpc":"2.0","id":3,"method":`, -32700},
		{"a batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600},
		{"an empty batch", `[]`, -32600},
		{"an empty object", `{}`, -32600},
		{"no version", `{"id":3,"method":"ping"}`, -32600},
		{"a number", `42`, -32600},
		{"a bad id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			answers := serve(t, initialize, initialized, call(2, `{"id":"toolu_before"}`), c.line, call(9, `{"id":"toolu_after"}`))
			for _, id := range []string{"1", "2", "9"} {
				if a := byID(answers, id); a == nil || a.Result == nil {
					t.Errorf("request %s: no reply in %+v", id, answers)
				}
			}
			var bad *reply
			for i := range answers {
				if answers[i].Error != nil {
					bad = &answers[i]
				}
			}
			if bad == nil || bad.Error.Code != c.code {
				t.Errorf("%q: answers %+v, want an error %d", c.line, answers, c.code)
			}
		})
	}
}

// TestAnswersBeforeEOF: every request received before the input ends is
// answered, however soon it ends (printf INIT N CALL | ctx-recall --mcp).
func TestAnswersBeforeEOF(t *testing.T) {
	for i := range 50 {
		answers := serve(t, initialize, initialized, call(2, `{"id":"toolu_x"}`))
		if len(answers) != 2 || byID(answers, "1") == nil || byID(answers, "2") == nil {
			t.Fatalf("run %d: %d answers %+v, want those to requests 1 and 2", i, len(answers), answers)
		}
	}
}

// FuzzServerLines sends the server lines of arbitrary bytes between good
// requests, over a pipe: it answers every request that is one, those of
// the lines included, and the last one too, and writes nothing but JSON
// lines.
func FuzzServerLines(f *testing.F) {
	for _, s := range []string{
		"hello", "{}", "[]", "[" + call(3, `{}`) + "]", `{"jsonrpc":"2.0","id":3,"method":`, "42", "null", `""`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		call(4, `{"query":"error\u0000"}`), call(5, `{"id":""}`), call(6, `{"range":"x"}`), "\r\n\t \x00\xff",
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":8,"result":{}}`, initialize,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		const last = `{"jsonrpc":"2.0","id":"last","method":"ping"}`
		in := []byte(initialize + "\n" + initialized + "\n" + call(2, `{"id":"toolu_x"}`) + "\n")
		in = append(append(in, data...), "\n"+last+"\n"...)
		pr, pw := io.Pipe()
		go func() {
			pw.Write(in)
			pw.Close()
		}()
		var out bytes.Buffer
		if err := Serve(context.Background(), filepath.Join(dir, "none.db"), "test", pr, &out); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		answered := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			var a reply
			if err := json.Unmarshal([]byte(l), &a); err != nil {
				t.Fatalf("the server wrote %q", l)
			}
			answered[string(a.ID)] = true
		}
		asked := []string{initialize, call(2, `{}`), last}
		asked = append(asked, strings.Split(string(data), "\n")...)
		for _, l := range asked {
			// A request is answered, with its id as it came: a string or
			// a number, and null (an error).
			var m map[string]json.RawMessage
			if json.Unmarshal(bytes.TrimSpace([]byte(l)), &m) != nil || m["method"] == nil || m["id"] == nil {
				continue
			}
			if id := m["id"]; (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9' || string(id) == "null") && !answered[string(id)] {
				t.Fatalf("request %q has no answer with its id in:\n%s", l, out.String())
			}
		}
	})
}

// TestEmptyID: memory_query with an empty id is a tool error, not a list of
// the whole archive.
func TestEmptyID(t *testing.T) {
	path := archived(t, "an output")
	var out bytes.Buffer
	in := strings.NewReader(initialize + "\n" + initialized + "\n" + call(2, `{"id":""}`) + "\n")
	if err := Serve(context.Background(), path, "test", in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"isError":true`) || !strings.Contains(out.String(), "the id is empty") {
		t.Errorf("memory_query id=\"\": %s", out.String())
	}
}
