package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// stall opens a connection to the proxy and sends a request that
// announces a body of size bytes (chunked when size < 0), then sends sent
// bytes of it and nothing more.
func stall(t *testing.T, proxyURL string, size, sent int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(proxyURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	head := "POST /v1/messages HTTP/1.1\r\nHost: " + strings.TrimPrefix(proxyURL, "http://") + "\r\nContent-Type: application/json\r\n"
	part := bytes.Repeat([]byte(" "), sent)
	if size >= 0 {
		head += fmt.Sprintf("Content-Length: %d\r\n\r\n", size)
	} else {
		head += "Transfer-Encoding: chunked\r\n\r\n"
		part = append(fmt.Appendf(nil, "%x\r\n", sent), append(part, "\r\n"...)...)
	}
	if _, err := c.Write(append([]byte(head), part...)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStalledUploads: clients that announce large bodies and send a byte
// of them hold no more of the proxy's memory for bodies than they sent,
// and block no one: a request after them is compacted at once. Each is
// answered 408, in the API's error shape, once it has sent nothing for the
// body timeout, and one line logged.
func TestStalledUploads(t *testing.T) {
	up := newUpstream(t, nil)
	cfg := config(t, up)
	cfg.MaxBody, cfg.Memory = 1<<20, 4<<20
	cfg.BodyTimeout = time.Second
	proxyURL, logs := serve(t, cfg)
	var stalled []net.Conn
	for i := range 8 {
		size := 1 << 20
		if i%2 == 1 {
			size = -1
		}
		stalled = append(stalled, stall(t, proxyURL, size, 1))
	}
	time.Sleep(100 * time.Millisecond) // the proxy reads what they sent
	// The deadline only ends a test that would otherwise hang.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := claudeCode(t)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxyURL+r.path, bytes.NewReader(r.body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a request after eight stalled uploads: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || bytes.Equal(up.last(t).Body, r.body) {
		t.Errorf("a request after eight stalled uploads: %d, compacted %v", resp.StatusCode, !bytes.Equal(up.last(t).Body, r.body))
	}
	for i, c := range stalled {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("stalled upload %d: %v", i, err)
			continue
		}
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(answer), `"type":"error"`) {
			t.Errorf("stalled upload %d: %d %s", i, resp.StatusCode, answer)
		}
	}
	if n := len(up.got()); n != 1 {
		t.Errorf("the upstream got %d requests", n)
	}
	logs.settle()
	lines := logs.all()
	if len(lines) != 8 {
		t.Errorf("logged %q, want a line a stalled upload", lines)
	}
	for _, line := range lines {
		if !strings.Contains(line, "the client sent no byte of the body for 1s") {
			t.Errorf("logged %s", line)
		}
	}
}

// TestBudgetFull: when the bodies the proxy holds fill its memory for
// bodies, a request is not held waiting: it goes upstream as it came, at
// once, and one line says why.
func TestBudgetFull(t *testing.T) {
	up := newUpstream(t, nil)
	cfg := config(t, up)
	cfg.MaxBody, cfg.Memory = 1<<20, 1<<20
	proxyURL, logs := serve(t, cfg)
	var stalled []net.Conn
	for _, size := range []int{1 << 20, -1} {
		stalled = append(stalled, stall(t, proxyURL, size, 400<<10))
	}
	time.Sleep(100 * time.Millisecond) // the proxy reads what they sent
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := claudeCode(t)
	for _, chunked := range []bool{false, true} {
		var body io.Reader = bytes.NewReader(r.body)
		if chunked {
			body = io.MultiReader(body)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxyURL+r.path, body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("chunked %v: %v", chunked, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Equal(up.last(t).Body, r.body) {
			t.Errorf("chunked %v: %d, the client's body sent %v", chunked, resp.StatusCode, bytes.Equal(up.last(t).Body, r.body))
		}
	}
	for _, c := range stalled {
		c.Close()
	}
	logs.settle()
	lines := logs.all()
	for _, line := range lines {
		if !strings.Contains(line, "sent as received: the proxy holds 1 MiB of request bodies already") {
			t.Errorf("logged %s", line)
		}
	}
	if len(lines) != 2 {
		t.Errorf("logged %q, want a line a request", lines)
	}
}

// TestMaxBodyOverMemory: a largest body compacted over the memory for
// bodies is a mistake in the setup, said at once; without a memory given,
// the proxy's is sized from the largest body.
func TestMaxBodyOverMemory(t *testing.T) {
	cfg := config(t, newUpstream(t, nil))
	cfg.MaxBody, cfg.Memory = 64<<20, 32<<20
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("New: %v", err)
	}
	cfg.MaxBody, cfg.Memory = 1<<30, 0
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.budget.total < 2*cfg.MaxBody {
		t.Errorf("a largest body of 1 GiB, memory for bodies %d", p.budget.total)
	}
}
