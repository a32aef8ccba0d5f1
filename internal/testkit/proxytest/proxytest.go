// Package proxytest runs ctx-proxy as a process, as a user starts it: on a
// free port, its address read from its first line on stderr, stopped with
// SIGTERM. The tests of the command, of the real agents through it and the
// measurements share it.
package proxytest

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Proxy is a ctx-proxy process that listens.
type Proxy struct {
	URL     string // http://ADDR
	cmd     *exec.Cmd
	stderr  *bufio.Reader
	stopped bool
}

// Start starts cmd, a ctx-proxy command line with --listen on port 0, and
// waits for its first line on stderr: "listening on ADDR". The process is
// killed when the test ends, unless Stop stopped it.
func Start(t testing.TB, cmd *exec.Cmd) *Proxy {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proxy{cmd: cmd, stderr: bufio.NewReader(stderr)}
	t.Cleanup(func() {
		if !p.stopped {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	first, err := p.stderr.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(first), "listening on ")
	if err != nil || !ok || strings.HasSuffix(addr, ":0") {
		t.Fatalf("ctx-proxy's first line: %q (%v), want listening on ADDR", first, err)
	}
	p.URL = "http://" + addr
	return p
}

// Pid is the process's id.
func (p *Proxy) Pid() int { return p.cmd.Process.Pid }

// Stop sends SIGTERM, and checks that the proxy exits 0 having said
// nothing more on stderr: no line logged.
func (p *Proxy) Stop(t testing.TB) {
	t.Helper()
	if lines := p.Logged(t); len(lines) > 0 {
		t.Errorf("ctx-proxy logged:\n%s", strings.Join(lines, "\n"))
	}
}

// Logged sends SIGTERM, checks that the proxy exits 0, and returns the
// lines it logged after its first.
func (p *Proxy) Logged(t testing.TB) []string {
	t.Helper()
	if p.stopped {
		return nil
	}
	p.stopped = true
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(p.stderr)
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("ctx-proxy after SIGTERM: %v; it logged:\n%s", err, rest)
	}
	if len(rest) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n")
}
