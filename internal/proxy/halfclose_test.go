package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHalfClose: a client that half-closes its side of the connection once
// it has sent its request (which Go's server cannot tell from one that went
// away) gets its connection closed, never a 200 that looks whole: before
// the upstream answers (no answer at all, not an empty 200), and in the
// middle of a stream (a cut stream, not one that ended).
func TestHalfClose(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		select {
		case <-time.After(300 * time.Millisecond): // the model thinking
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n")
		http.NewResponseController(w).Flush()
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	})
	proxyURL, logs := serve(t, config(t, up))
	body := string(claudeCode(t).body)
	for _, when := range []string{"after the request", "after the first event"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(proxyURL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			strings.TrimPrefix(proxyURL, "http://"), len(body), body)
		if when == "after the request" {
			c.(*net.TCPConn).CloseWrite()
		}
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if when == "after the request" {
			if err == nil {
				answer, rerr := io.ReadAll(resp.Body)
				t.Errorf("%s: answered %d %q (%v), want the connection closed", when, resp.StatusCode, answer, rerr)
			}
			c.Close()
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		first := make([]byte, len("event: message_start"))
		if _, err := io.ReadFull(resp.Body, first); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		c.(*net.TCPConn).CloseWrite()
		rest, err := io.ReadAll(resp.Body)
		if err == nil {
			t.Errorf("%s: the stream ended whole (%q), want it cut", when, rest)
		}
		c.Close()
	}
	logs.settle()
	for _, line := range logs.all() {
		t.Errorf("logged %s", line)
	}
}
