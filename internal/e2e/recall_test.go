package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestRecallThroughMCP: a history is filtered with an archive, and the
// real agent, with ctx-recall --mcp as an MCP server, calls memory_query
// with the id a marker of that history cites; the next request to the
// model carries the archived output whole. Claude Code takes the server
// from --mcp-config and names the tool mcp__ctx-recall__memory_query;
// Codex takes it from config.toml's [mcp_servers] and offers the tool in a
// namespace, mcp__ctx_recall.
func TestRecallThroughMCP(t *testing.T) {
	bin := tools(t)
	db := filepath.Join(t.TempDir(), "archive.db")
	example := filepath.Join(testutil.Root(t), "examples", "session.jsonl")
	in, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runTool(filepath.Join(bin, "ctx-truncate"), in, "--archive", db)
	if err != nil {
		t.Fatal(err)
	}
	// The cut in the filtered history, its marker line, and what it cut.
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	var handle, line, want string
	for i, r := range after.Results {
		if h := marker.CitedIn(r.Text()); h != "" {
			handle, want = h, before.Results[i].Text()
			for _, l := range strings.Split(r.Text(), "\n") {
				if marker.Is(l, "truncate") {
					line = l
				}
			}
			break
		}
	}
	if handle == "" {
		t.Fatal("ctx-truncate --archive cut nothing in the example session")
	}
	mcpServer := map[string]any{"command": filepath.Join(bin, "ctx-recall"), "args": []string{"--mcp", "--db", db}}
	cases := []struct {
		agent agenttest.Agent
		call  agenttest.Turn
		setup func(t *testing.T, s *agenttest.Session)
		// output is the tool's own answer in what the model saw of it:
		// Codex puts "Wall time: …\nOutput:\n" before it.
		output func(seen string) string
	}{
		{agenttest.ClaudeCode, agenttest.Turn{Tool: "mcp__ctx-recall__memory_query", Input: map[string]any{"id": handle}},
			func(t *testing.T, s *agenttest.Session) {
				config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"ctx-recall": mcpServer}})
				path := filepath.Join(t.TempDir(), "mcp.json")
				if err := os.WriteFile(path, config, 0o644); err != nil {
					t.Fatal(err)
				}
				s.Args = []string{"--mcp-config", path}
			},
			func(seen string) string { return seen }},
		{agenttest.Codex, agenttest.Turn{Namespace: "mcp__ctx_recall", Tool: "memory_query", Input: map[string]any{"id": handle}},
			func(t *testing.T, s *agenttest.Session) {
				s.Config = fmt.Sprintf("\n[mcp_servers.ctx-recall]\ncommand = %q\nargs = [\"--mcp\", \"--db\", %q]\n", mcpServer["command"], db)
			},
			func(seen string) string {
				_, out, _ := strings.Cut(seen, "\nOutput:\n")
				return out
			}},
	}
	for _, c := range cases {
		t.Run(c.agent.Name, func(t *testing.T) {
			exe := c.agent.Install(t)
			srv := server(t, []agenttest.Turn{c.call, {Text: "Found it."}})
			s := agenttest.Session{Server: srv, Prompt: "An earlier result says: " + line + " Show me the whole log."}
			c.setup(t, &s)
			run := c.agent.Run(t, exe, s)
			results := srv.ToolResults()
			if len(results) != 1 {
				t.Fatalf("the model saw %d tool results, want 1: %q", len(results), results)
			}
			if c.output(results[0]) != want {
				t.Errorf("memory_query id=%s: the model saw %d chars, not the %d of the archived output:\n%.500q", handle, len(results[0]), len(want), results[0])
			}
			everyTool(t, bin, run.Transcript(t))
		})
	}
}
