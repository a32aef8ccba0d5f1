package proxycmd

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
	entries, err := proxy.ReadLedger(f)
	if err != nil || len(entries) != 2 || entries[1].Usage == nil || entries[1].Usage.Output != 30 || entries[1].Model != "claude-opus-4-8" {
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
