package commands

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPRequestIDs speaks JSON-RPC to ctx-recall --mcp over its stdin and
// stdout: every answer carries its request's id byte for byte, whatever
// number or string it is (a fraction, past 2^53, past 2^64, an exponent,
// escapes), and a request whose id is null gets an error with a null id,
// as JSON-RPC wants, where it used to get nothing.
func TestMCPRequestIDs(t *testing.T) {
	_, dir := shell(t)
	ids := []string{`2.7`, `9007199254740993`, `18446744073709551616`, `-18446744073709551617`, `1e3`, `-0`, `0.0`, `1E+400`,
		`"a"`, `"\u0041"`, `"9007199254740993"`, `""`, `7`}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for _, id := range ids {
		in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id": 8 ,"method":"tools/call","params":{"name":"memory_query","arguments":{"id":"toolu_none_XXXXXXXXXXXX"}}}` + "\n")
	cmd := exec.Command(filepath.Join(dir, "ctx-recall"), "--mcp", "--db", filepath.Join(dir, "none.db"))
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctx-recall --mcp: %v: %s", err, stderr.String())
	}
	answered := map[string]int{}
	var nullErrors int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var a struct {
			ID     json.RawMessage     `json:"id"`
			Result json.RawMessage     `json:"result"`
			Error  *struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("the server wrote %q: %v", sc.Text(), err)
		}
		switch {
		case string(a.ID) == "null" && a.Error != nil && a.Error.Code == -32600:
			nullErrors++
		case a.Error != nil:
			t.Errorf("an error for %s: %s", a.ID, sc.Text())
		default:
			answered[string(a.ID)]++
		}
	}
	for _, id := range append(ids, "1", "8") {
		if answered[id] != 1 {
			t.Errorf("id %s: answered %d times, want once, with its bytes; answers:\n%s", id, answered[id], out)
		}
	}
	if nullErrors != 1 {
		t.Errorf("id null: %d errors with a null id, want 1; answers:\n%s", nullErrors, out)
	}
}
