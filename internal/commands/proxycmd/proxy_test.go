package proxycmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/proxy"
	"github.com/ctxkit/ctxkit/internal/testkit/proxytest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// asCommand makes the test binary ctx-proxy itself, for the tests to run
// as a process.
const asCommand = "CTX_PROXY_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		os.Exit(cli.Main(Command, append([]string{"ctx-proxy"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestServe runs ctx-proxy as a user starts it, on a free port: its first
// line on stderr says where it listens; a request goes upstream compacted,
// with what it replaced in the archive and its cost in the ledger; the
// upstreams come from the environment twins too; SIGTERM ends it with
// status 0 and nothing more said.
func TestServe(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(testutil.Root(t), "testdata", "requests", "claude-code-request.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []byte
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = b
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-opus-4-8\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":2000,\"output_tokens\":1}}}\n\n"+
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":30}}\n\n")
	}))
	defer up.Close()
	dir := t.TempDir()
	ledger, db := filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, "archive.db")
	for _, viaEnv := range []bool{false, true} {
		args := []string{"--listen", "127.0.0.1:0", "--ledger", ledger, "--archive", db}
		env := append(os.Environ(), asCommand+"=1")
		if viaEnv {
			env = append(env, "CTX_ANTHROPIC_URL="+up.URL, "CTX_OPENAI_URL="+up.URL)
		} else {
			args = append(args, "--anthropic-url", up.URL, "--openai-url", up.URL)
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = env
		px := proxytest.Start(t, cmd)
		resp, err := http.Post(px.URL+"/v1/messages?beta=true", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(answer, []byte("message_delta")) {
			t.Errorf("the answer: %q", answer)
		}
		px.Stop(t)
		mu.Lock()
		sent := got
		mu.Unlock()
		if bytes.Equal(sent, body) || !bytes.Contains(sent, []byte("[ctx-compact]")) {
			t.Fatalf("the upstream got the body uncompacted")
		}
		a, err := archive.OpenReadOnly(db)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range transcripttest.Parse(t, sent).Results {
			if id := marker.CitedIn(r.Text()); id != "" {
				if _, err := a.Get(id, ""); err != nil {
					t.Errorf("the marker cites %s: %v", id, err)
				}
			}
		}
		a.Close()
	}
	f, err := os.Open(ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, skipped, err := proxy.ReadLedger(f)
	if err != nil || len(skipped) != 0 || len(entries) != 2 || entries[1].Usage == nil || entries[1].Usage.Output != 30 || entries[1].Model != "claude-opus-4-8" {
		t.Errorf("the ledger: %v, %+v", err, entries)
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "32MiB": 32 << 20, "32 mb": 32 << 20, "512k": 512 << 10, "1GiB": 1 << 30, "10B": 10} {
		if got, err := size(in); err != nil || got != want {
			t.Errorf("size(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "1.5MiB", "12parsecs", "9999999GiB"} {
		if _, err := size(bad); err == nil {
			t.Errorf("size(%q) is no error", bad)
		}
	}
}

// TestReportTornLedger: a ledger with lines a crash cut short (one at the
// end, and one that the next proxy's first line was appended to) is
// reported from its whole entries, the one after the cut included, with
// one line on stderr saying what was skipped, and status 0; a proxy that
// opens such a ledger starts its lines on a line of their own.
func TestReportTornLedger(t *testing.T) {
	entry := func(session string, minute int) string {
		return fmt.Sprintf(`{"time":"2026-11-25T10:%02d:00Z","session":%q,"api":"messages","model":"claude-sonnet-4-5","replaced":1,`+
			`"usage":{"input":10,"output":5},"uncompacted":{"input":100,"output":5},"cost_usd":0.0001,"uncompacted_cost_usd":0.0004,`+
			`"sent":{"read":0,"written":10},"client":{"read":0,"written":100}}`, minute, session)
	}
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.jsonl")
	torn := entry("a", 1)[:60]
	content := entry("a", 0) + "\n" + torn + entry("b", 2) + "\n" + entry("b", 3) + "\n" + strings.Repeat("x", 2<<20) + "\n" + entry("c", 4)[:90]
	if err := os.WriteFile(ledger, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--report"}, {"--report", "--json"}} {
		var stdout, stderr bytes.Buffer
		code := cli.Run(Command, append([]string{"ctx-proxy", "--ledger", ledger}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != cli.ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		if want := "ctx-proxy: warning: " + ledger + ": 3 lines skipped (2, 4, 5), not whole entries: a write cut short; 3 entries read\n"; stderr.String() != want {
			t.Errorf("%v: stderr %q, want %q", args, stderr.String(), want)
		}
		if !strings.Contains(stdout.String(), "total") || !strings.Contains(stdout.String(), "a") {
			t.Errorf("%v: %s", args, stdout.String())
		}
		if args[len(args)-1] == "--json" {
			var rep proxy.Report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Total.Requests != 3 || len(rep.Sessions) != 2 {
				t.Errorf("--json: %v, %+v", err, rep.Total)
			}
		}
	}

	// A proxy appends after the cut line on a line of its own.
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"message","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":1}}`)
	}))
	defer up.Close()
	cmd := exec.Command(os.Args[0], "--listen", "127.0.0.1:0", "--ledger", ledger, "--archive", "", "--anthropic-url", up.URL, "--openai-url", up.URL)
	cmd.Env = append(os.Environ(), asCommand+"=1")
	px := proxytest.Start(t, cmd)
	body, err := os.ReadFile(filepath.Join(testutil.Root(t), "testdata", "requests", "claude-code-request.json"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(px.URL+"/v1/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	px.Stop(t)
	f, err := os.Open(ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, skipped, err := proxy.ReadLedger(f)
	if err != nil || len(entries) != 4 || !slices.Equal(skipped, []int{2, 4, 5}) {
		t.Errorf("after a proxy appended: %d entries, lines %v skipped, %v", len(entries), skipped, err)
	}
	all, _ := os.ReadFile(ledger)
	lines := strings.Split(strings.TrimSuffix(string(all), "\n"), "\n")
	if last := lines[len(lines)-1]; !json.Valid([]byte(last)) {
		t.Errorf("the proxy's entry is not a line of its own: %.200q", last)
	}
}
