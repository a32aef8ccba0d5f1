package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/proxy"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/agenttest"
	"github.com/ctxkit/ctxkit/internal/testkit/proxytest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// startProxy starts the ctx-proxy binary on a free port in front of the
// scripted server, with its ledger and archive in dir.
func startProxy(t *testing.T, srv *agenttest.Server, dir string) *proxytest.Proxy {
	t.Helper()
	return proxytest.Start(t, exec.Command(filepath.Join(tools(t), "ctx-proxy"), "--listen", "127.0.0.1:0", "--anthropic-url", srv.URL,
		"--openai-url", srv.URL, "--ledger", filepath.Join(dir, "ledger.jsonl"), "--archive", filepath.Join(dir, "archive.db")))
}

// longSession is a session of 33 shell calls with long outputs, each file
// read again and again, and thinking on some turns; then the answer.
func longSession(tool string, input func(command string) map[string]any) []agenttest.Turn {
	commands := []string{"cat src/main.go", "cat app.log", "seq 1 2500", "grep -n func src/main.go", "cat notes.md", "ls -la src"}
	var script []agenttest.Turn
	for i := range 33 {
		turn := agenttest.Turn{Tool: tool, Input: input(commands[i%len(commands)])}
		if tool == "Bash" && i%4 == 0 {
			turn.Thinking = fmt.Sprintf("Step %d: look at the output again.", i)
		}
		script = append(script, turn)
	}
	return append(script, agenttest.Turn{Text: "All done."})
}

// sessionFiles are the files the long session reads: a Go file, a test log
// of 25,000 chars with its failures in the middle, notes.
func sessionFiles() map[string]string {
	var src, log, notes strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n")
	for i := range 60 {
		fmt.Fprintf(&src, "// handler%d serves /api/v1/items/%d.\nfunc handler%d(id int) string {\n\treturn fmt.Sprint(\"item\", id, %d)\n}\n\n", i, i, i, i)
	}
	for i := range 400 {
		fmt.Fprintf(&log, "tests/test_api.py::test_case_%04d PASSED ..........................\n", i)
		if i == 200 {
			log.WriteString("FAILED tests/test_api.py::test_case_0200 - AssertionError: expected 200, got 500\n")
		}
	}
	log.WriteString("=== 1 failed, 399 passed in 4.20s ===\n")
	for i := range 80 {
		fmt.Fprintf(&notes, "- note %d: the items API pages by %d and caches for %d seconds\n", i, 10+i, 60*i)
	}
	return map[string]string{"src/main.go": src.String(), "app.log": log.String(), "notes.md": notes.String()}
}

// TestProxyAgents runs Claude Code (ANTHROPIC_BASE_URL) and Codex (a
// model_providers entry) through the ctx-proxy binary to the scripted
// server, a session of 33 shell calls with long outputs and re-reads:
//
//   - the agent finishes;
//   - the server receives compacted requests, in which every message of
//     the agent's history (restored from the archive by the ids its
//     markers cite) is sent in at most one form more than it has results
//     and calls, from one request to the next;
//   - the ledger's numbers are those computed from the server's log: its
//     usage as it billed each request, and the bill of the same request as
//     the agent sent it, by the replay's cache model.
func TestProxyAgents(t *testing.T) {
	cases := []struct {
		agent agenttest.Agent
		api   proxy.API
		tool  string
		input func(string) map[string]any
	}{
		{agenttest.ClaudeCode, proxy.Messages, "Bash", func(c string) map[string]any { return map[string]any{"command": c, "description": "Look"} }},
		{agenttest.Codex, proxy.Responses, "exec_command", func(c string) map[string]any { return map[string]any{"cmd": c} }},
	}
	for _, c := range cases {
		t.Run(c.agent.Name, func(t *testing.T) {
			exe := c.agent.Install(t)
			srv := server(t, longSession(c.tool, c.input))
			dir := t.TempDir()
			px := startProxy(t, srv, dir) // Codex's provider takes its URL with /v1, as docs/proxy.md says
			run := c.agent.Run(t, exe, agenttest.Session{Server: srv, BaseURL: px.URL, Prompt: "Find out why the tests fail.", Files: sessionFiles()})
			px.Stop(t)
			if !strings.Contains(run.Stdout, "All done.") {
				t.Errorf("the agent did not finish: %.500s", run.Stdout)
			}
			xs := srv.Exchanges()
			if len(xs) < 34 {
				t.Fatalf("the server got %d requests, want the 34 of the script", len(xs))
			}
			a, err := archive.OpenReadOnly(filepath.Join(dir, "archive.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			ctr, err := tokens.New(tokens.Default)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(dir, "ledger.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			entries, skipped, err := proxy.ReadLedger(f)
			if err != nil || len(skipped) > 0 {
				t.Fatalf("the ledger: %v; lines %v skipped", err, skipped)
			}
			if len(entries) != len(xs) {
				t.Fatalf("the ledger has %d requests, the server's log %d", len(entries), len(xs))
			}
			checkAgainstLog(t, c.api, xs, entries, a, ctr)
			if sig, _ := json.Marshal(agenttest.Signature(0)); c.api == proxy.Messages && !bytes.Contains(xs[len(xs)-1].Body, sig) {
				t.Errorf("the first thinking block's signature did not reach the server as the model wrote it")
			}
		})
	}
}

// checkAgainstLog computes from the server's log what the ledger should
// say, request by request, and checks the forms of every message.
func checkAgainstLog(t *testing.T, api proxy.API, xs []agenttest.Exchange, entries []proxy.Entry, a *archive.Archive, ctr tokens.Counter) {
	t.Helper()
	format := transcript.Anthropic
	if api == proxy.Responses {
		format = transcript.Codex
	}
	prevSent, prevClient := map[string]replay.Prompt{}, map[string]replay.Prompt{}
	forms, bound := map[uint64]map[uint64]bool{}, map[uint64]int{}
	compacted := 0
	for k, x := range xs {
		parse := func() *transcript.Transcript {
			tr, err := transcript.Parse(x.Body, transcript.Options{Format: format})
			if err != nil {
				t.Fatalf("request %d: %v", k, err)
			}
			return tr
		}
		sentTr, client := parse(), parse()
		sent := replay.PromptOf(sentTr, stats.Count(sentTr, ctr))
		for _, r := range client.Results {
			id := marker.CitedIn(r.Text())
			if id == "" {
				continue
			}
			rec, err := a.Get(id, "")
			if err != nil {
				t.Fatalf("request %d cites %s: %v", k, id, err)
			}
			client.SetText(r, *rec.Output)
		}
		if client.Changed() {
			compacted++
		}
		was := replay.PromptOf(client, stats.Count(client, ctr))
		conv := marker.SessionKey(client)
		for _, key := range was.Keys[:min(2, len(was.Keys))] {
			conv += ":" + strconv.FormatUint(key, 36)
		}
		var s, c proxy.Cached
		s.Read, s.Written = sent.After(prevSent[conv])
		c.Read, c.Written = was.After(prevClient[conv])
		prevSent[conv], prevClient[conv] = sent, was

		// The server's usage, and the same request as the agent sent it:
		// what the cache model reads more is read, what it writes more is
		// written (Messages) or input (Responses).
		u := pricing.Tokens{Input: int64(x.Usage.Input), CacheWrite: int64(x.Usage.CacheWrite), CacheRead: int64(x.Usage.CacheRead), Output: int64(x.Usage.Output)}
		unc := u
		unc.CacheRead += c.Read - s.Read
		if api == proxy.Messages {
			unc.CacheWrite += c.Written - s.Written
		} else {
			unc.Input += c.Written - s.Written
		}
		price, _ := pricing.Default().For(entries[k].Model, format)
		e := entries[k]
		switch {
		case e.Usage == nil || *e.Usage != u:
			t.Errorf("request %d: the ledger's usage %+v, the server's %+v", k, e.Usage, u)
		case e.Sent != s || e.Client != c:
			t.Errorf("request %d: the ledger's cache model %+v as sent, %+v as the agent sent it; from the log %+v and %+v", k, e.Sent, e.Client, s, c)
		case *e.Uncompacted != unc || e.Cost != price.Cost(u) || e.UncompactedCost != price.Cost(unc):
			t.Errorf("request %d: the ledger's uncompacted bill %+v ($%.6f), from the log %+v ($%.6f)", k, *e.Uncompacted, e.UncompactedCost, unc, price.Cost(unc))
		}
		for j, m := range client.Messages {
			if forms[was.Keys[j]] == nil {
				forms[was.Keys[j]] = map[uint64]bool{}
			}
			forms[was.Keys[j]][sent.Keys[j]] = true
			bound[was.Keys[j]] = 1 + len(m.Results) + len(m.Calls)
		}
	}
	if compacted < len(xs)/2 {
		t.Errorf("%d of %d requests compacted", compacted, len(xs))
	}
	for key, f := range forms {
		if len(f) > bound[key] {
			t.Errorf("a message of the agent's history was sent in %d forms, more than its %d", len(f), bound[key])
		}
	}
	rep := proxy.Summarize(entries)
	t.Logf("%d requests, %d compacted; the bill $%.4f as the agent sent them, $%.4f as sent", len(xs), compacted, rep.Total.UncompactedCost, rep.Total.Cost)
}
