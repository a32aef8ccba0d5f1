//go:build unix

package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hangGuard is how long a test waits for what should happen at once
// before it fails, instead of hanging: not a measure of speed.
const hangGuard = time.Minute

// blockingServer is a server with one tool, block, that says so on started
// when it runs, and runs until its request is cancelled, and says so on
// stopped; over real pipes, through the server's transport. It returns the
// client's ends of stdin and stdout, and the end of the server's run.
func blockingServer(t *testing.T) (stdin, stdout *os.File, started, stopped <-chan struct{}, done <-chan error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	start, stop := make(chan struct{}, 8), make(chan struct{}, 8)
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		start <- struct{}{}
		<-ctx.Done()
		stop <- struct{}{}
		return nil, nil, ctx.Err()
	})
	end := make(chan error, 1)
	go func() { end <- s.Run(context.Background(), &lineTransport{in: inR, out: outW}) }()
	return inW, outR, start, stop, end
}

// send writes lines to the server.
func send(t *testing.T, w *os.File, lines ...string) {
	t.Helper()
	if _, err := w.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

func wait[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s: still waiting after %v", what, hangGuard)
	}
	panic("unreachable")
}

// TestClientGone: at the end of its input the server waits for the answer
// to a request still running, but when the client is gone (its end of
// stdout closed too), the request is cancelled and the server ends.
func TestClientGone(t *testing.T) {
	stdin, stdout, started, stopped, done := blockingServer(t)
	send(t, stdin, initialize, initialized, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	wait(t, started, "the request")
	stdin.Close()
	stdout.Close()
	wait(t, stopped, "the running request, once the client was gone")
	if err := wait(t, done, "the server, once the client was gone"); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("the server ended with %v", err)
	}
}

// TestCancelByWireID: the client cancels a request by the id it sent
// (notifications/cancelled), whatever number it is; the request stops and
// is answered with that id.
func TestCancelByWireID(t *testing.T) {
	stdin, stdout, started, stopped, _ := blockingServer(t)
	lines := bufio.NewReader(stdout)
	send(t, stdin, initialize, initialized)
	if _, err := lines.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{`2.7`, `18446744073709551616`, `"x"`} {
		send(t, stdin, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
		wait(t, started, "request "+id)
		send(t, stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"enough"}}`)
		wait(t, stopped, "request "+id+", cancelled")
		line, err := lines.ReadBytes('\n')
		var a reply
		if err != nil || json.Unmarshal(line, &a) != nil || string(a.ID) != id {
			t.Errorf("request %s, cancelled: answered %s, %v", id, line, err)
		}
	}
}
