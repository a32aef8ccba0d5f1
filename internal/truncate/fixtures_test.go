package truncate

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var makeFixtures = flag.Bool("fixtures", false, "rewrite testdata/sessions from testdata/logs")

// A log of testdata/logs and the command that printed it (see
// testdata/logs/README.md).
type logRun struct {
	file, command string
	exit          int
}

var logRuns = []logRun{
	{"go-test.log", "go test -v ./...", 1},
	{"pytest.log", "python3 -m pytest -v test_inventory.py", 1},
	{"cargo-test.log", "cargo test -- --test-threads 1", 101},
	{"npm-jest.log", "npm test", 1},
	{"make-gcc.log", "make -k", 2},
	{"python-traceback.log", "python3 importer.py", 1},
	{"java-stackoverflow.log", "java -Xss512k Tree", 1},
}

func readLog(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMakeFixtures writes the sessions of testdata/sessions, one a format,
// in which an agent runs the commands of testdata/logs, and a few calls
// that ctx-truncate must leave alone: a short listing, a long read, an
// edit, a long output that a ctx-dedupe marker points at; and the
// sessions listings-*, in which it lists and searches a source tree
// (testdata/listings). Run it with go test -run MakeFixtures -fixtures.
func TestMakeFixtures(t *testing.T) {
	if !*makeFixtures {
		t.Skip("rewrites testdata/sessions with -fixtures")
	}
	dir := filepath.Join("testdata", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logs := fixture{name: "", cwd: "/home/dev/shop", id: "5e55-f1x7", steps: logSteps(t),
		prompt: "Run the test suites and the build, and tell me what fails.",
		answer: "Mul is wrong for 7, price() misses the bulk discount at 100, fee() charges at 10,000, the TEN coupon goes below zero, module_071.c reads fields that do not exist, importer.py fails on '1,234.50', and Tree.depth() loops on a cycle."}
	listings := fixture{name: "listings-", cwd: "/home/dev/go/src", id: "115t-1n65", steps: listingSteps(t),
		prompt: "Find where the HTTP client and server take a context, and which files of crypto/tls a test covers.",
		answer: "net/http takes a context in client.go, request.go and server.go; crypto/tls's handshake tests are handshake_client_test.go and handshake_server_test.go."}
	for _, s := range []fixture{logs, listings} {
		write(t, filepath.Join(dir, s.name+"claude-code.jsonl"), s.claudeCode(t))
		write(t, filepath.Join(dir, s.name+"codex.jsonl"), s.codex(t))
		write(t, filepath.Join(dir, s.name+"openai.json"), s.openAI(t))
	}
}

// step is a tool call of a fixture session and its output.
type step struct {
	tool, command, path string
	input               map[string]any
	output              string
	exit                int
}

// logSteps run the commands of testdata/logs, and the calls around them.
func logSteps(t *testing.T) []step {
	longRead := strings.Repeat("// Package shop sells things.\npackage shop\n\nfunc Price(q int) int { return q * 250 }\n", 150)
	steps := []step{{tool: "Bash", command: "ls", output: "Makefile\ncalc\ngo.mod\nstrs\n"}}
	for _, l := range logRuns {
		steps = append(steps, step{tool: "Bash", command: l.command, output: readLog(t, l.file), exit: l.exit})
	}
	return append(steps,
		step{tool: "Read", path: "shop/price.go", output: longRead},
		step{tool: "Edit", path: "calc/calc.go", input: map[string]any{"file_path": "calc/calc.go", "old_string": "if a == 7 {", "new_string": "if false {"},
			output: "The file calc/calc.go has been updated.\n" + strings.Repeat("     9→\tif false {\n", 800)},
		step{tool: "Bash", command: "go test -v ./... 2>&1 | tee test.log", output: readLog(t, "go-test.log"), exit: 1},
		step{tool: "Bash", command: "go test -v ./... 2>&1 | tee test.log", output: "[ctx-dedupe] Re-run of go test -v ./... 2>&1 | tee test.log: identical to the result of call @PREV above; content not repeated here."},
	)
}

// listingSteps list and search a source tree: the commands of
// testdata/listings, and Claude Code's Glob and Grep tools, whose results
// ctx-truncate leaves alone unless told to cut them.
func listingSteps(t *testing.T) []step {
	var steps []step
	for _, l := range listingRuns {
		steps = append(steps, step{tool: "Bash", command: l.command, output: readListing(t, l.file), exit: l.exit})
	}
	return append(steps,
		step{tool: "Glob", input: map[string]any{"pattern": "crypto/tls/*.go"}, output: strings.Join(strings.Split(readListing(t, "rg-files.log"), "\n")[:100], "\n")},
		step{tool: "Grep", input: map[string]any{"pattern": "context.Context", "path": "net/http", "output_mode": "content", "-n": true}, output: readListing(t, "grep-rn.log")},
	)
}

// fixture is a fixture session: its calls, what the user asked and what
// the agent answered.
type fixture struct {
	name, cwd, id  string
	prompt, answer string
	steps          []step
}

// claudeCode writes the session as Claude Code does, with toolUseResult
// beside each result.
func (s fixture) claudeCode(t *testing.T) []byte {
	var cc bytes.Buffer
	line := func(v map[string]any) {
		b, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		cc.Write(b)
		cc.WriteByte('\n')
	}
	base := func(typ string, i int, parent string) map[string]any {
		return map[string]any{"type": typ, "uuid": fmt.Sprintf("u%03d-%s", i, typ), "parentUuid": parent,
			"isSidechain": false, "userType": "external", "cwd": s.cwd, "sessionId": s.id,
			"version": "2.0.74", "timestamp": fmt.Sprintf("2026-05-11T10:%02d:00.000Z", i%60)}
	}
	first := base("user", 0, "")
	first["message"] = map[string]any{"role": "user", "content": s.prompt}
	line(first)
	parent := "u000-user"
	prev := ""
	for i, st := range s.steps {
		id := fmt.Sprintf("toolu_01FX%04d", i+1)
		a := base("assistant", 2*i+1, parent)
		a["message"] = map[string]any{"id": fmt.Sprintf("msg_01FX%04d", i+1), "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": st.tool, "input": st.toolInput()}}}
		line(a)
		out := strings.ReplaceAll(st.output, "@PREV", prev)
		u := base("user", 2*i+2, a["uuid"].(string))
		res := map[string]any{"type": "tool_result", "tool_use_id": id, "content": out}
		switch {
		case st.exit != 0:
			res["content"] = fmt.Sprintf("Exit code %d\n%s", st.exit, out)
			res["is_error"] = true
			u["toolUseResult"] = fmt.Sprintf("Error: Exit code %d\n%s", st.exit, out)
		case st.tool == "Bash":
			res["is_error"] = false
			u["toolUseResult"] = map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
		case st.tool == "Read":
			u["toolUseResult"] = map[string]any{"type": "text", "file": map[string]any{"filePath": st.path, "content": out, "numLines": 600, "startLine": 1, "totalLines": 600}}
		}
		u["message"] = map[string]any{"role": "user", "content": []any{res}}
		line(u)
		parent = u["uuid"].(string)
		prev = id
	}
	last := base("assistant", 99, parent)
	last["message"] = map[string]any{"id": "msg_01FX9999", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"stop_reason": "end_turn", "content": []any{map[string]any{"type": "text", "text": s.answer}}}
	line(last)
	return cc.Bytes()
}

// toolInput is a step's tool input: its own, a command's, or a path's.
func (st step) toolInput() map[string]any {
	switch {
	case st.input != nil:
		return st.input
	case st.command != "":
		return map[string]any{"command": st.command, "description": "Run " + strings.Fields(st.command)[0]}
	}
	return map[string]any{"file_path": st.path}
}

// codex writes the session's commands as a Codex rollout: exec_command
// calls, outputs with Codex's header, and the exec_command_end events that
// repeat them.
func (s fixture) codex(t *testing.T) []byte {
	var cx bytes.Buffer
	rec := func(i int, typ string, payload map[string]any) {
		b, err := marshal(map[string]any{"timestamp": fmt.Sprintf("2026-05-11T11:%02d:%02d.000Z", i/60%60, i%60), "type": typ, "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		cx.Write(b)
		cx.WriteByte('\n')
	}
	rec(0, "session_meta", map[string]any{"id": "019e-" + s.id[:4], "cwd": s.cwd, "originator": "codex_cli_rs", "cli_version": "0.128.0"})
	rec(1, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": s.prompt}}})
	prev := ""
	for i, st := range s.steps {
		if st.command == "" {
			continue
		}
		id := fmt.Sprintf("call_FX%04d", i+1)
		args, _ := marshal(map[string]any{"cmd": st.command, "workdir": s.cwd, "yield_time_ms": 10000})
		rec(10*i+2, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": id})
		out := strings.ReplaceAll(st.output, "@PREV", prev)
		body := fmt.Sprintf("Chunk ID: %04x\nWall time: 1.2000 seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s", i+1, st.exit, len(out)/4, out)
		if strings.HasPrefix(out, "[ctx-") {
			body = out
		}
		rec(10*i+3, "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": body})
		if !strings.HasPrefix(out, "[ctx-") {
			rec(10*i+4, "event_msg", map[string]any{"type": "exec_command_end", "call_id": id, "exit_code": st.exit, "aggregated_output": out})
		}
		prev = id
	}
	return cx.Bytes()
}

// openAI writes the session's commands as a mini-swe-agent-style
// trajectory: results in <returncode> and <output>, raw output and return
// code kept aside in extra.
func (s fixture) openAI(t *testing.T) []byte {
	var msgs []any
	msgs = append(msgs, map[string]any{"role": "system", "content": "You are a helpful assistant that can run bash commands."},
		map[string]any{"role": "user", "content": s.prompt})
	prev := ""
	for i, st := range s.steps {
		if st.command == "" {
			continue
		}
		id := fmt.Sprintf("call_fx%04d", i+1)
		args, _ := marshal(map[string]any{"command": st.command})
		msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
			"function": map[string]any{"name": "bash", "arguments": string(args)}}}})
		out := strings.ReplaceAll(st.output, "@PREV", prev)
		content := fmt.Sprintf("<returncode>%d</returncode>\n<output>\n%s</output>", st.exit, out)
		if strings.HasPrefix(out, "[ctx-") {
			content = out
		}
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": content,
			"extra": map[string]any{"raw_output": out, "returncode": st.exit}})
		prev = id
	}
	msgs = append(msgs, map[string]any{"role": "exit", "content": "Submitted"})
	var doc bytes.Buffer
	enc := json.NewEncoder(&doc)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"trajectory_format": "mini-swe-agent-1.1", "messages": msgs}); err != nil {
		t.Fatal(err)
	}
	return doc.Bytes()
}

// marshal is json.Marshal without escaping <, > and &, as agents write.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
