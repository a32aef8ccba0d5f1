package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/testkit/proxytest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// TestNumbers prints the tables of docs/performance.md's ctx-proxy
// section: the latency the proxy adds on a 1 MB body, the time to the
// first byte of a streamed answer, and the corpus's sessions sent through
// it against the replay. It runs with CTX_NUMBERS=1 (scripts/measure).
func TestNumbers(t *testing.T) {
	if os.Getenv("CTX_NUMBERS") != "1" {
		t.Skip("the measurements run with CTX_NUMBERS=1")
	}
	t.Cleanup(func() {
		if built != "" {
			os.RemoveAll(filepath.Dir(built))
		}
	})
	t.Run("latency", numbersLatency)
	t.Run("first byte", numbersFirstByte)
	t.Run("corpus", numbersCorpus)
	t.Run("memory", numbersMemory)
}

// timed sends body to url+path n times and returns each round trip's time,
// the answer read to its end.
func timed(t *testing.T, url string, body []byte) time.Duration {
	t.Helper()
	start := time.Now()
	status, _ := post(t, url, "/v1/messages", body, nil)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	return time.Since(start)
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

// numbersLatency: a 1 MB Messages body (170 turns of test output, half of
// it re-runs), sent directly to a loopback upstream and through the
// ctx-proxy binary (ledger on, no archive), interleaved so that all see
// the same load: as a session's requests repeat their history (the same
// body again), and as it grows (a turn more each request, through a proxy
// started anew). With CTX_PROXY_REF naming another build of ctx-proxy
// (the reference: the build before a change), each request goes through
// it too, in the same run.
func numbersLatency(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":1}}`)
	})
	builds := []string{buildProxy(t)}
	if ref := os.Getenv("CTX_PROXY_REF"); ref != "" {
		builds = append(builds, ref)
	}
	start := func() []string { // a proxy of each build, started anew
		var urls []string
		for _, exe := range builds {
			urls = append(urls, startProxy(t, exe, up, "--archive", "").URL)
		}
		return urls
	}
	row := func(name string, direct []time.Duration, through [][]time.Duration) {
		for i, ts := range through {
			added := make([]time.Duration, len(ts))
			for j := range ts {
				added[j] = ts[j] - direct[j]
			}
			build := "this build"
			if i > 0 {
				build = "the reference"
			}
			t.Logf("| %s, %s | %s | %s | %s | %s | %s | %s |", name, build, ms(quantile(direct, .5)), ms(quantile(direct, .99)),
				ms(quantile(ts, .5)), ms(quantile(ts, .99)), ms(quantile(added, .5)), ms(quantile(added, .99)))
		}
	}
	body := history(1, 170)
	urls := start()
	timed(t, up.URL, body)
	var cold []string
	for _, u := range urls {
		cold = append(cold, ms(timed(t, u, body)-timed(t, up.URL, body)))
	}
	for range 5 { // warm every path
		timed(t, up.URL, body)
		for _, u := range urls {
			timed(t, u, body)
		}
	}
	var direct []time.Duration
	through := make([][]time.Duration, len(urls))
	for range 300 {
		direct = append(direct, timed(t, up.URL, body))
		for i, u := range urls {
			through[i] = append(through[i], timed(t, u, body))
		}
	}
	row("the same "+textfmt.Int(len(body))+" body, 300 requests", direct, through)

	urls = start()
	direct, through = nil, make([][]time.Duration, len(urls))
	for k := 10; k <= 170; k++ {
		b := history(2, k)
		direct = append(direct, timed(t, up.URL, b))
		for i, u := range urls {
			through[i] = append(through[i], timed(t, u, b))
		}
	}
	row(fmt.Sprintf("a session growing from %s to %s bytes, 161 requests", textfmt.Int(len(history(2, 10))), textfmt.Int(len(body))), direct, through)
	t.Logf("the first request of the 1 MB body, to a proxy just started: %s added (the reference's: %v)", cold[0], cold[1:])
}

// numbersFirstByte: the time to the first byte of a streamed answer whose
// first event the upstream sends at once, for a small body and the 1 MB
// one, directly and through the proxy.
func numbersFirstByte(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n")
		http.NewResponseController(w).Flush()
		time.Sleep(20 * time.Millisecond) // the model writing the rest
		io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	})
	cfg := config(t, up)
	cfg.Ledger = NewLedger(discard{}, nil)
	proxyURL, _ := serve(t, cfg)
	firstByte := func(url string, body []byte) time.Duration {
		start := time.Now()
		resp, err := http.Post(url+"/v1/messages", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		one := make([]byte, 1)
		if _, err := io.ReadFull(resp.Body, one); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		io.Copy(io.Discard, resp.Body)
		return d
	}
	for _, body := range [][]byte{[]byte(`{"model":"claude-sonnet-4-5","stream":true,"messages":[{"role":"user","content":"hi"}]}`), history(1, 170)} {
		for range 3 {
			firstByte(up.URL, body)
			firstByte(proxyURL, body)
		}
		var direct, proxied []time.Duration
		for range 100 {
			direct, proxied = append(direct, firstByte(up.URL, body)), append(proxied, firstByte(proxyURL, body))
		}
		t.Logf("| %s bytes | %s | %s | %s | %s |", textfmt.Int(len(body)), ms(quantile(direct, .5)), ms(quantile(direct, .99)), ms(quantile(proxied, .5)), ms(quantile(proxied, .99)))
	}
}

// numbersCorpus: each session of the corpus sent through the proxy request
// by request (TestReplayThroughHTTP), its ledger's bills against the
// replay's.
func numbersCorpus(t *testing.T) {
	ctr := counter(t)
	var rows []string
	for _, s := range sessions(t, ctr) {
		if !strings.Contains(s.name, "/") || strings.HasPrefix(s.name, "formats/") {
			continue
		}
		got, _, _ := s.throughProxy(t, ctr)
		want := s.replay(t, ctr)
		t.Logf("%s: $%.6f sent, the replay $%.6f", s.name, got.Cost, want.Compacted.Cost)
		rows = append(rows, fmt.Sprintf("| %s | %d | %s → %s | %.3f | %.3f |", s.name, got.Requests,
			textfmt.Dollars(got.UncompactedCost), textfmt.Dollars(got.Cost), got.Ratio, want.Ratio()))
	}
	t.Log("\n" + strings.Join(rows, "\n"))
}

// buildProxy builds the ctx-proxy binary of this tree once, unless
// CTX_PROXY_BIN names another to measure.
func buildProxy(t *testing.T) string {
	if exe := os.Getenv("CTX_PROXY_BIN"); exe != "" {
		return exe
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctx-proxy-numbers-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "ctx-proxy")
		cmd := exec.Command("go", "build", "-o", built, "./cmd/ctx-proxy")
		cmd.Dir = testutil.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// startProxy starts the ctx-proxy binary exe in front of up, its ledger
// and archive in a directory of the test's; args come after, and may name
// others.
func startProxy(t *testing.T, exe string, up *upstream, args ...string) *proxytest.Proxy {
	dir := t.TempDir()
	return proxytest.Start(t, exec.Command(exe, append([]string{"--listen", "127.0.0.1:0", "--anthropic-url", up.URL, "--openai-url", up.URL,
		"--ledger", filepath.Join(dir, "ledger.jsonl"), "--archive", filepath.Join(dir, "archive.db")}, args...)...))
}

// peak is a process's peak resident memory (VmHWM).
func peak(t *testing.T, pid int) string {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no VmHWM")
	return ""
}

// numbersMemory: the ctx-proxy binary (ledger and archive on) under 32
// sessions at once, each growing request by request to 600 KB; and under
// 12 bodies of 30 MB at once: its peak resident memory (VmHWM), and how
// long the load took; the reference build's too with CTX_PROXY_REF.
func numbersMemory(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil || !bytes.Contains(status, []byte("VmHWM")) {
		t.Skip("no /proc/PID/status here")
	}
	builds := map[string]string{"this build": buildProxy(t)}
	if ref := os.Getenv("CTX_PROXY_REF"); ref != "" {
		builds["the reference"] = ref
	}
	for _, name := range []string{"this build", "the reference"} {
		if exe, ok := builds[name]; ok {
			t.Run("sessions, "+name, func(t *testing.T) { numbersSessions(t, name, exe) })
			t.Run("large bodies, "+name, func(t *testing.T) { numbersLarge(t, name, exe) })
		}
	}
}

func numbersSessions(t *testing.T, build, exe string) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseAnswer(body))
	})
	px := startProxy(t, exe, up)
	proxyURL := px.URL
	const sessions, turns = 32, 100
	start := time.Now()
	var wg sync.WaitGroup
	var requests, bytesSent atomic.Int64
	for s := range sessions {
		wg.Go(func() {
			for k := 0; k <= turns; k += 4 {
				body := history(100+s, k)
				if status, _ := post(t, proxyURL, "/v1/messages", body, nil); status != http.StatusOK {
					t.Errorf("status %d", status)
					return
				}
				requests.Add(1)
				bytesSent.Add(int64(len(body)))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	hwm := peak(t, px.Pid())
	t.Logf("| %s: %d sessions at once, %s requests of up to %s bytes (%s MB in all) | %s | %.1f s |", build, sessions, textfmt.Int(int(requests.Load())),
		textfmt.Int(len(history(0, turns))), textfmt.Int(int(bytesSent.Load()>>20)), hwm, took.Seconds())
}

// numbersLarge: 12 bodies of 30 MB (5,000 turns each, a session of its
// own) sent at once: the peak resident memory, how long until every
// answer was in, and how many went upstream compacted (the others found
// the memory for bodies spent, and went as they came).
func numbersLarge(t *testing.T, build, exe string) {
	var compacted atomic.Int64
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("[ctx-")) {
			compacted.Add(1)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseAnswer(body))
	})
	px := startProxy(t, exe, up)
	const bodies = 12
	var all [][]byte
	for s := range bodies {
		all = append(all, history(200+s, 5000))
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, body := range all {
		wg.Go(func() {
			if status, _ := post(t, px.URL, "/v1/messages", body, nil); status != http.StatusOK {
				t.Errorf("status %d", status)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("| %s: %d bodies of %s bytes at once | %s | %.1f s | %d of %d compacted |", build, bodies, textfmt.Int(len(all[0])), peak(t, px.Pid()),
		took.Seconds(), compacted.Load(), bodies)
}
