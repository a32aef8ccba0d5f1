package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// listTools asks an in-process server for its tools.
func listTools(t *testing.T) []*mcp.Tool {
	t.Helper()
	ctx := context.Background()
	cs, ss := mcp.NewInMemoryTransports()
	srv, err := NewServer(filepath.Join(t.TempDir(), "none.db"), "test").Connect(ctx, ss, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return list.Tools
}

// TestDocumentedSchema: docs/recall.md shows memory_query as a plain JSON
// schema for agent builders who wire tools themselves; it is the one the
// server gives.
func TestDocumentedSchema(t *testing.T) {
	tools := listTools(t)
	if len(tools) != 1 || tools[0].Name != ToolName {
		t.Fatalf("tools %v, want memory_query alone", tools)
	}
	served, err := json.Marshal(map[string]any{"name": tools[0].Name, "description": tools[0].Description, "input_schema": tools[0].InputSchema})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(testutil.Root(t), "docs", "recall.md"))
	if err != nil {
		t.Fatal(err)
	}
	const heading = "## memory_query as a JSON schema"
	_, rest, ok := strings.Cut(string(doc), heading)
	_, rest, ok2 := strings.Cut(rest, "```json\n")
	block, _, ok3 := strings.Cut(rest, "```")
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, served, "", "  ")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("docs/recall.md has no %q section with a json block; it should show:\n%s", heading, pretty.String())
	}
	var got, want any
	if err := json.Unmarshal([]byte(block), &got); err != nil {
		t.Fatalf("docs/recall.md's schema: %v", err)
	}
	_ = json.Unmarshal(served, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("docs/recall.md's schema is not the server's; the server gives:\n%s", pretty.String())
	}
}

func TestPage(t *testing.T) {
	short := "a\nb\n"
	if got := page(short, position{id: "x", line: 1, last: 2, lines: 2}); got != short {
		t.Errorf("a short output: %q", got)
	}
	line := strings.Repeat("y", 99) + "\n" // 100 bytes a line
	long := strings.Repeat(line, 1000)     // 100,000 bytes
	got := page(long, position{id: "toolu_X", line: 1, last: 1000, lines: 1000})
	shown := maxChars / len(line)
	want := strings.Repeat(line, shown) + "[memory_query] lines 1-400 of 1,000 shown; for more, call memory_query with id=toolu_X range=401,1000."
	if got != want {
		t.Errorf("a long output ends %q", got[len(got)-120:])
	}
	// A range's lines are numbered as in the whole output, and the next
	// call asks for the rest of the range.
	got = page(strings.Repeat(line, 500), position{id: "toolu_X", line: 101, last: 600, lines: 1000})
	if !strings.HasSuffix(got, "\n[memory_query] lines 101-500 of 1,000 shown; for more, call memory_query with id=toolu_X range=501,600.") {
		t.Errorf("a range of a long output ends %q", got[len(got)-120:])
	}
	one := strings.Repeat("z", 100_000)
	if got := page(one, position{id: "x", line: 1, last: 1, lines: 1}); got != strings.Repeat("z", maxChars)+"\n[memory_query] bytes 1-40,000 of the 100,000 of line 1 shown; for more, call memory_query with id=x range=1,1 offset=40000." {
		t.Errorf("one long line: %q", got[len(got)-100:])
	}
	if got := page(one[:70_000], position{id: "x", line: 1, col: 30_000, last: 1, lines: 1}); !strings.HasSuffix(got, "\n[memory_query] bytes 30,001-70,000 of the 100,000 of line 1 shown; for more, call memory_query with id=x range=1,1 offset=70000.") {
		t.Errorf("one long line from an offset: %q", got[len(got)-100:])
	}
	// Bytes that are not UTF-8 have no character to keep whole.
	if got := page(strings.Repeat("\x80", 50_000), position{id: "x", line: 1, last: 1, lines: 1}); !strings.HasPrefix(got, strings.Repeat("\x80", maxChars)+"\n[memory_query] bytes 1-40,000 ") {
		t.Errorf("bytes that are not UTF-8: %q", got[maxChars-10:])
	}
}
