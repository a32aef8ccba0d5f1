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
// edit, a long output that a ctx-dedupe marker points at. Run it with
// go test -run MakeFixtures -fixtures.
func TestMakeFixtures(t *testing.T) {
	if !*makeFixtures {
		t.Skip("rewrites testdata/sessions with -fixtures")
	}
	dir := filepath.Join("testdata", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	longRead := strings.Repeat("// Package shop sells things.\npackage shop\n\nfunc Price(q int) int { return q * 250 }\n", 150)
	listing := "Makefile\ncalc\ngo.mod\nstrs\n"
	referenced := readLog(t, "go-test.log")

	type step struct {
		tool, command, path string
		input               map[string]any
		output              string
		exit                int
	}
	var steps []step
	steps = append(steps, step{tool: "Bash", command: "ls", output: listing})
	for _, l := range logRuns {
		steps = append(steps, step{tool: "Bash", command: l.command, output: readLog(t, l.file), exit: l.exit})
	}
	steps = append(steps,
		step{tool: "Read", path: "shop/price.go", output: longRead},
		step{tool: "Edit", path: "calc/calc.go", input: map[string]any{"file_path": "calc/calc.go", "old_string": "if a == 7 {", "new_string": "if false {"},
			output: "The file calc/calc.go has been updated.\n" + strings.Repeat("     9→\tif false {\n", 800)},
		step{tool: "Bash", command: "go test -v ./... 2>&1 | tee test.log", output: referenced, exit: 1},
		step{tool: "Bash", command: "go test -v ./... 2>&1 | tee test.log", output: "[ctx-dedupe] Re-run of go test -v ./... 2>&1 | tee test.log: identical to the result of call @PREV above; content not repeated here."},
	)

	// Claude Code.
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
			"isSidechain": false, "userType": "external", "cwd": "/home/dev/shop", "sessionId": "5e55-f1x7",
			"version": "2.0.74", "timestamp": fmt.Sprintf("2026-05-11T10:%02d:00.000Z", i%60)}
	}
	first := base("user", 0, "")
	first["message"] = map[string]any{"role": "user", "content": "Run the test suites and the build, and tell me what fails."}
	line(first)
	parent := "u000-user"
	prev := ""
	for i, s := range steps {
		id := fmt.Sprintf("toolu_01FX%04d", i+1)
		input := s.input
		if input == nil && s.command != "" {
			input = map[string]any{"command": s.command, "description": "Run " + strings.Fields(s.command)[0]}
		} else if input == nil {
			input = map[string]any{"file_path": s.path}
		}
		a := base("assistant", 2*i+1, parent)
		a["message"] = map[string]any{"id": fmt.Sprintf("msg_01FX%04d", i+1), "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": s.tool, "input": input}}}
		line(a)
		out := strings.ReplaceAll(s.output, "@PREV", prev)
		u := base("user", 2*i+2, a["uuid"].(string))
		res := map[string]any{"type": "tool_result", "tool_use_id": id, "content": out}
		switch {
		case s.exit != 0:
			res["content"] = fmt.Sprintf("Exit code %d\n%s", s.exit, out)
			res["is_error"] = true
			u["toolUseResult"] = fmt.Sprintf("Error: Exit code %d\n%s", s.exit, out)
		case s.tool == "Bash":
			res["is_error"] = false
			u["toolUseResult"] = map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
		case s.tool == "Read":
			u["toolUseResult"] = map[string]any{"type": "text", "file": map[string]any{"filePath": s.path, "content": out, "numLines": 600, "startLine": 1, "totalLines": 600}}
		}
		u["message"] = map[string]any{"role": "user", "content": []any{res}}
		line(u)
		parent = u["uuid"].(string)
		prev = id
	}
	last := base("assistant", 99, parent)
	last["message"] = map[string]any{"id": "msg_01FX9999", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"stop_reason": "end_turn", "content": []any{map[string]any{"type": "text", "text": "Mul is wrong for 7, price() misses the bulk discount at 100, fee() charges at 10,000, the TEN coupon goes below zero, module_071.c reads fields that do not exist, importer.py fails on '1,234.50', and Tree.depth() loops on a cycle."}}}
	line(last)
	write(t, filepath.Join(dir, "claude-code.jsonl"), cc.Bytes())

	// Codex: exec_command calls, outputs with Codex's header, and the
	// exec_command_end events that repeat them.
	var cx bytes.Buffer
	rec := func(i int, typ string, payload map[string]any) {
		b, err := marshal(map[string]any{"timestamp": fmt.Sprintf("2026-05-11T11:%02d:%02d.000Z", i/60%60, i%60), "type": typ, "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		cx.Write(b)
		cx.WriteByte('\n')
	}
	rec(0, "session_meta", map[string]any{"id": "019e-5e55", "cwd": "/home/dev/shop", "originator": "codex_cli_rs", "cli_version": "0.128.0"})
	rec(1, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Run the test suites and the build, and tell me what fails."}}})
	prev = ""
	for i, s := range steps {
		if s.command == "" {
			continue
		}
		id := fmt.Sprintf("call_FX%04d", i+1)
		args, _ := marshal(map[string]any{"cmd": s.command, "workdir": "/home/dev/shop", "yield_time_ms": 10000})
		rec(10*i+2, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": id})
		out := strings.ReplaceAll(s.output, "@PREV", prev)
		body := fmt.Sprintf("Chunk ID: %04x\nWall time: 1.2000 seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s", i+1, s.exit, len(out)/4, out)
		if strings.HasPrefix(out, "[ctx-") {
			body = out
		}
		rec(10*i+3, "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": body})
		if !strings.HasPrefix(out, "[ctx-") {
			rec(10*i+4, "event_msg", map[string]any{"type": "exec_command_end", "call_id": id, "exit_code": s.exit, "aggregated_output": out})
		}
		prev = id
	}
	write(t, filepath.Join(dir, "codex.jsonl"), cx.Bytes())

	// OpenAI: a mini-swe-agent-style trajectory, results in <returncode> and
	// <output>, raw output and return code kept aside in extra.
	var msgs []any
	msgs = append(msgs, map[string]any{"role": "system", "content": "You are a helpful assistant that can run bash commands."},
		map[string]any{"role": "user", "content": "Run the test suites and the build, and tell me what fails."})
	prev = ""
	for i, s := range steps {
		if s.command == "" {
			continue
		}
		id := fmt.Sprintf("call_fx%04d", i+1)
		args, _ := marshal(map[string]any{"command": s.command})
		msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
			"function": map[string]any{"name": "bash", "arguments": string(args)}}}})
		out := strings.ReplaceAll(s.output, "@PREV", prev)
		content := fmt.Sprintf("<returncode>%d</returncode>\n<output>\n%s</output>", s.exit, out)
		if strings.HasPrefix(out, "[ctx-") {
			content = out
		}
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": content,
			"extra": map[string]any{"raw_output": out, "returncode": s.exit}})
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
	write(t, filepath.Join(dir, "openai.json"), doc.Bytes())
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
