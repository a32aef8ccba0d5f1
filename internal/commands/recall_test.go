package commands

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/archivecmd"
	"github.com/ctxkit/ctxkit/internal/commands/recallcmd"
)

// session writes a Claude Code transcript of n Bash calls in session sid,
// each printing an output that names the session and the call.
func session(t *testing.T, dir, sid string, n int) (path string, ids []string, outputs []string) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("toolu_%s_%04d_XXXXXXXXXX", sid, i)
		out := fmt.Sprintf("output of call %d of session %s\nline two %s\n", i, sid, strings.Repeat("x", i%50))
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":%q,"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"echo %d"}}]}}`+"\n", sid, id, i)
		fmt.Fprintf(&b, `{"type":"user","sessionId":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s}]}}`+"\n", sid, id, jsonString(out))
		ids, outputs = append(ids, id), append(outputs, out)
	}
	path = filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ids, outputs
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// runIn runs a command in-process with no stdin.
func runIn(cmd cli.Command, args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = cli.Run(cmd, append([]string{cmd.Name}, args...), strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

var recallCmd = recallcmd.Command

// TestRecallNewerSchema: an archive written by a newer ctxkit is refused,
// by both commands, in one line.
func TestRecallNewerSchema(t *testing.T) {
	dir := t.TempDir()
	src, ids, _ := session(t, dir, "s1", 2)
	db := filepath.Join(dir, "a.db")
	if code, _, errs := runIn(archivecmd.Command, "--db", db, src); code != 0 {
		t.Fatalf("ctx-archive: %d %s", code, errs)
	}
	// The schema version is SQLite's user_version, at byte 60 of the
	// file's header.
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var v [4]byte
	binary.BigEndian.PutUint32(v[:], 99)
	if _, err := f.WriteAt(v[:], 60); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		cmd  cli.Command
		args []string
	}{{recallCmd, []string{"--db", db, ids[0]}}, {archivecmd.Command, []string{"--db", db, src}}} {
		code, out, errs := runIn(c.cmd, c.args...)
		if code != cli.ExitFailure || out != "" || strings.Count(errs, "\n") != 1 ||
			!strings.Contains(errs, "archive of a newer schema than this ctxkit reads; upgrade ctxkit (schema version 99; this ctxkit reads up to 2)") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", c.cmd.Name, code, out, errs)
		}
	}
}

// TestRecallReadOnly reads an archive whose file and directory the user
// cannot write. (As root, permissions do not bind, and this checks less.)
func TestRecallReadOnly(t *testing.T) {
	dir := t.TempDir()
	src, ids, outputs := session(t, dir, "s1", 3)
	ro := filepath.Join(dir, "ro")
	db := filepath.Join(ro, "a.db")
	if code, _, errs := runIn(archivecmd.Command, "--db", db, src); code != 0 {
		t.Fatalf("ctx-archive: %d %s", code, errs)
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	code, out, errs := runIn(recallCmd, "--db", db, ids[1])
	if code != 0 || out != outputs[1] {
		t.Errorf("ctx-recall of a read-only archive: exit %d, %q, %s", code, out, errs)
	}
}

// TestConcurrentArchiveAndRecall runs several ctx-archive and ctx-recall
// processes at once on one new archive: none fails (busy or otherwise),
// and every output archived comes back.
func TestConcurrentArchiveAndRecall(t *testing.T) {
	_, dir := shell(t)
	db := filepath.Join(dir, "shared.db")
	const writers, runs, calls = 4, 3, 40
	type file struct {
		path    string
		ids     []string
		outputs []string
	}
	var files []file
	for w := 0; w < writers; w++ {
		for r := 0; r < runs; r++ {
			// Sessions repeat between writers: the same executions
			// arrive from two processes at once.
			p, ids, outs := session(t, dir, fmt.Sprintf("s%d", (w*runs+r)%(writers*runs-2)), calls)
			files = append(files, file{p, ids, outs})
		}
	}
	run := func(name string, args ...string) (string, string, error) {
		cmd := exec.Command(filepath.Join(dir, name), args...)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		return out.String(), errs.String(), err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < runs; r++ {
				f := files[w*runs+r]
				if _, errs, err := run("ctx-archive", "--db", db, f.path); err != nil {
					fail("ctx-archive %s: %v: %s", filepath.Base(f.path), err, errs)
				}
			}
		}()
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				f := files[(r*5+i)%len(files)]
				out, errs, err := run("ctx-recall", "--db", db, f.ids[i])
				switch {
				case err == nil && out != f.outputs[i]:
					fail("ctx-recall %s: %q, want %q", f.ids[i], out, f.outputs[i])
				case err != nil && !strings.Contains(errs, "no execution with id") && !strings.Contains(errs, "no archive there"):
					// Not archived yet is fine; anything else is not.
					fail("ctx-recall %s: %v: %s", f.ids[i], err, errs)
				}
				if _, errs, err := run("ctx-recall", "--db", db, "--query", "output", "--json"); err != nil && !strings.Contains(errs, "no archive there") {
					fail("ctx-recall --query: %v: %s", err, errs)
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	for _, f := range files {
		for i, id := range f.ids {
			if i%7 != 0 {
				continue
			}
			if out, errs, err := run("ctx-recall", "--db", db, id); err != nil || out != f.outputs[i] {
				t.Errorf("after the runs, ctx-recall %s: %v %q %s", id, err, out, errs)
			}
		}
	}
	out, _, err := run("ctx-recall", "--db", db, "--json", "--limit", "1")
	if err != nil || !strings.Contains(out, fmt.Sprintf(`{"total":%d}`, (writers*runs-2)*calls)) {
		t.Errorf("the archive holds %s, want %d executions", strings.TrimSpace(out[strings.LastIndex(out, "{"):]), (writers*runs-2)*calls)
	}
}

// TestMCPOverPipes speaks the Model Context Protocol to ctx-recall --mcp over
// its stdin and stdout: initialize, tools/list, and tools/call of
// memory_query by id, by query, and with an unknown id.
func TestMCPOverPipes(t *testing.T) {
	_, dir := shell(t)
	src, ids, outputs := session(t, dir, "mcp", 5)
	db := filepath.Join(dir, "a.db")
	if code, _, errs := runIn(archivecmd.Command, "--db", db, src); code != 0 {
		t.Fatalf("ctx-archive: %d %s", code, errs)
	}
	cmd := exec.Command(filepath.Join(dir, "ctx-recall"), "--mcp", "--db", db)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stdout)
	// call sends a request and reads the response with its id.
	call := func(id int, method string, params any) map[string]any {
		t.Helper()
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(req, '\n')); err != nil {
			t.Fatal(err)
		}
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: %v (stderr %s)", method, err, stderr.String())
			}
			var resp map[string]any
			if err := json.Unmarshal(line, &resp); err != nil {
				t.Fatalf("%s: not JSON: %q", method, line)
			}
			if resp["id"] == float64(id) {
				if resp["error"] != nil {
					t.Fatalf("%s: %v", method, resp["error"])
				}
				return resp["result"].(map[string]any)
			}
		}
	}
	init := call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "0"}})
	if init["protocolVersion"] != "2025-06-18" || init["serverInfo"].(map[string]any)["name"] != "ctx-recall" {
		t.Errorf("initialize: %v", init)
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	tools := call(2, "tools/list", map[string]any{})["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools/list: %d tools, want 1", len(tools))
	}
	tool := tools[0].(map[string]any)
	props := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)
	if tool["name"] != "memory_query" || props["id"] == nil || props["query"] == nil || !strings.Contains(tool["description"].(string), "memory_query id=") {
		t.Errorf("tools/list: %v", tool)
	}
	text := func(res map[string]any) string {
		return res["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	byID := call(3, "tools/call", map[string]any{"name": "memory_query", "arguments": map[string]any{"id": ids[2]}})
	if byID["isError"] == true || text(byID) != outputs[2] {
		t.Errorf("memory_query id=%s: %v, want %q", ids[2], byID, outputs[2])
	}
	ranged := call(4, "tools/call", map[string]any{"name": "memory_query", "arguments": map[string]any{"id": ids[2], "range": "2,2"}})
	if text(ranged) != strings.SplitAfter(outputs[2], "\n")[1] {
		t.Errorf("memory_query range=2,2: %q", text(ranged))
	}
	var page struct {
		Total   int `json:"total"`
		Records []struct {
			ID      string `json:"id"`
			Snippet string `json:"snippet"`
		} `json:"records"`
	}
	query := call(5, "tools/call", map[string]any{"name": "memory_query", "arguments": map[string]any{"query": "call 3"}})
	if err := json.Unmarshal([]byte(text(query)), &page); err != nil {
		t.Fatalf("memory_query query: %v: %s", err, text(query))
	}
	if page.Total != 1 || len(page.Records) != 1 || page.Records[0].ID != ids[3] || !strings.Contains(page.Records[0].Snippet, "**call** **3**") {
		t.Errorf("memory_query query='call 3': %+v", page)
	}
	limited := call(55, "tools/call", map[string]any{"name": "memory_query", "arguments": map[string]any{"query": "session", "limit": 2}})
	page.Records = nil
	if err := json.Unmarshal([]byte(text(limited)), &page); err != nil || page.Total != 5 || len(page.Records) != 2 {
		t.Errorf("memory_query query=session limit=2: %v %+v", err, page)
	}
	unknown := call(6, "tools/call", map[string]any{"name": "memory_query", "arguments": map[string]any{"id": "toolu_unknown_XXXXXXXXXXXX"}})
	if unknown["isError"] != true || !strings.Contains(text(unknown), `no execution with id "toolu_unknown_XXXXXXXXXXXX"`) {
		t.Errorf("memory_query of an unknown id: %v", unknown)
	}
	bad := call(7, "tools/call", map[string]any{"name": "memory_query", "arguments": map[string]any{"range": "1,2"}})
	if bad["isError"] != true || !strings.Contains(text(bad), "give its id") {
		t.Errorf("memory_query with range alone: %v", bad)
	}
	// Closing stdin ends the server, quietly.
	stdin.Close()
	if rest, _ := io.ReadAll(lines); len(rest) > 0 {
		t.Errorf("after stdin closed: %q", rest)
	}
	if err := cmd.Wait(); err != nil || stderr.Len() > 0 {
		t.Errorf("ctx-recall --mcp after stdin closed: %v: %s", err, stderr.String())
	}
}

// TestCorruptRecallRefused: a byte of a stored output changed in the
// archive's file (a disk, a hand) and ctx-recall refuses the record,
// naming its id, on the command line (exit 1, nothing on stdout) and
// through the MCP server (a tool error the model reads), instead of giving
// back bytes that are not the output's.
func TestCorruptRecallRefused(t *testing.T) {
	_, dir := shell(t)
	src, ids, outputs := session(t, dir, "corrupt", 3)
	db := filepath.Join(dir, "a.db")
	if code, _, errs := runIn(archivecmd.Command, "--db", db, src); code != 0 {
		t.Fatalf("ctx-archive: %d %s", code, errs)
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(outputs[1]))
	if at < 0 {
		t.Fatalf("the output of %s is not in the file as it is", ids[1])
	}
	data[at] ^= 0x01
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runIn(recallcmd.Command, "--db", db, ids[1])
	if code != cli.ExitFailure || stdout != "" || !strings.Contains(stderr, ids[1]) || !strings.Contains(stderr, "corrupt") {
		t.Errorf("ctx-recall %s: exit %d, stdout %q, stderr %q; want 1, nothing, a line naming the id", ids[1], code, stdout, stderr)
	}
	if code, stdout, _ := runIn(recallcmd.Command, "--db", db, ids[0]); code != 0 || stdout != outputs[0] {
		t.Errorf("ctx-recall %s, whose output is whole: exit %d, %q", ids[0], code, stdout)
	}
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_query","arguments":{"id":"` + ids[1] + `"}}}`,
	}
	mcp := exec.Command(filepath.Join(dir, "ctx-recall"), "--mcp", "--db", db)
	mcp.Stdin = strings.NewReader(strings.Join(requests, "\n") + "\n")
	out, err := mcp.Output()
	if err != nil {
		t.Fatalf("ctx-recall --mcp: %v", err)
	}
	var answer struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, `"id":2`) {
			if err := json.Unmarshal([]byte(line), &answer); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !answer.Result.IsError || len(answer.Result.Content) == 0 || !strings.Contains(answer.Result.Content[0].Text, ids[1]) || strings.Contains(answer.Result.Content[0].Text, outputs[1][1:]) {
		t.Errorf("memory_query id=%s on a corrupt record: %s", ids[1], out)
	}
}
