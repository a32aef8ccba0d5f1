package commands

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/dedupecmd"
	"github.com/ctxkit/ctxkit/internal/commands/summarizecmd"
	"github.com/ctxkit/ctxkit/internal/commands/truncatecmd"
	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/stats"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

type filterStep struct {
	cmd  cli.Command
	args []string
	// grows: the step adds tokens on purpose (ctx-loops --banner).
	grows bool
}

// pipeline is the README's pipeline, with ctx-summarize's protection lowered
// so that it acts on small transcripts too.
var pipeline = []filterStep{
	{dedupecmd.Command, []string{"--all-tools"}, false},
	{truncatecmd.Command, []string{"--max-chars", "2000", "--head", "600", "--tail", "600"}, false},
	{summarizecmd.Command, []string{"--protect-tokens", "1000", "--protect-turns", "0", "--min-savings", "0"}, false},
}

func runFilter(t *testing.T, cmd cli.Command, args []string, in []byte) []byte {
	t.Helper()
	out, _ := runFilterStats(t, cmd, args, in)
	return out
}

// runFilterStats runs a filter with --stats, and returns its output and
// the tokens before and after that its stats line gives.
func runFilterStats(t *testing.T, cmd cli.Command, args []string, in []byte) ([]byte, [2]int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	argv := append(append([]string{cmd.Name, "--encoding", "approx", "--stats"}, args...), "-")
	if code := cli.Run(cmd, argv, bytes.NewReader(in), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("%s: exit %d: %s", cmd.Name, code, stderr.String())
	}
	m := statsTokens.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("%s: no tokens in the stats line %q", cmd.Name, stderr.String())
	}
	var n [2]int
	for i := range n {
		n[i], _ = strconv.Atoi(strings.ReplaceAll(m[i+1], ",", ""))
	}
	return stdout.Bytes(), n
}

// statsTokens reads the transcript's tokens, before and after, from a
// --stats line.
var statsTokens = regexp.MustCompile(`; ([0-9,]+) → ([0-9,]+) tokens \(`)

// TestPipeline runs ctx-dedupe | ctx-truncate | ctx-summarize, in every
// order, over every real transcript and the example, and checks the contract
// between the filters: the output keeps every invariant against the input
// (pointers still point at whole results above them), every filter run
// again on the output changes nothing, and the --stats lines add up: each
// filter's tokens before are the previous one's after, the first's are the
// input's and the last's the output's, as ctx-count counts them.
func TestPipeline(t *testing.T) {
	for _, order := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		steps := make([]filterStep, 3)
		names := make([]string, 3)
		for i, j := range order {
			steps[i] = pipeline[j]
			names[i] = strings.TrimPrefix(pipeline[j].cmd.Name, "ctx-")
		}
		t.Run(strings.Join(names, "|"), func(t *testing.T) { testPipeline(t, steps) })
	}
}

func testPipeline(t *testing.T, pipeline []filterStep) {
	files := append([]string{filepath.Join(testutil.Root(t), "examples", "session.jsonl")}, testutil.CorpusIfPresent(t)...)
	for _, path := range files {
		t.Run(testutil.Name(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out := in
			ctr, err := tokens.New(tokens.Approx)
			if err != nil {
				t.Fatal(err)
			}
			want := stats.Count(transcripttest.Parse(t, in), ctr).Tokens()
			for _, step := range pipeline {
				var n [2]int
				out, n = runFilterStats(t, step.cmd, step.args, out)
				if n[0] != want {
					t.Errorf("%s: %d tokens before, the transcript it got has %d", step.cmd.Name, n[0], want)
				}
				want = n[1]
			}
			if got := stats.Count(transcripttest.Parse(t, out), ctr).Tokens(); got != want {
				t.Errorf("the last filter says %d tokens after, the output has %d", want, got)
			}
			checkTargets(t, in, out)
			if err := invariant.Compare(in, out); err != nil {
				t.Fatalf("the pipeline's output against its input: %v", err)
			}
			checkTargets(t, in, out)
			for _, step := range pipeline {
				if again := runFilter(t, step.cmd, step.args, out); !bytes.Equal(again, out) {
					t.Errorf("%s on the pipeline's output changed it", step.cmd.Name)
				}
			}
			if strings.Contains(testutil.Name(path), "session.jsonl") && bytes.Equal(in, out) {
				t.Error("the pipeline changed nothing in the example session")
			}
		})
	}
}

// checkTargets: every result a pointer names is, in the output, exactly
// what it was in the input: no later filter cut or summarized it.
func checkTargets(t *testing.T, in, out []byte) {
	t.Helper()
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	for id := range marker.Referenced(after) {
		for i, c := range after.Calls {
			if c.ID == id && c.Result != nil && c.Result.Text() != before.Calls[i].Result.Text() {
				t.Errorf("call %s is named by a pointer, but its result was changed", id)
			}
		}
	}
}

// TestPipelineKeepsTargets: three identical long outputs of cat through a
// shell tool. ctx-dedupe points the middle one at the first; ctx-truncate
// would cut the first (a long shell result) but for the pointer.
func TestPipelineKeepsTargets(t *testing.T) {
	log := strings.Repeat("INFO request served in 12ms\n", 200)
	var b strings.Builder
	b.WriteString(`{"type":"user","cwd":"/p","message":{"role":"user","content":"Why is the server slow?"}}` + "\n")
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("toolu_%d", i)
		b.WriteString(`{"type":"assistant","cwd":"/p","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"cat server.log"}}]}}` + "\n")
		b.WriteString(`{"type":"user","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + strconv.Quote(log) + `}]}}` + "\n")
	}
	in := []byte(b.String())
	out := in
	for _, step := range pipeline {
		out = runFilter(t, step.cmd, step.args, out)
	}
	after := transcripttest.Parse(t, out)
	if refs := marker.Referenced(after); !refs["toolu_1"] {
		t.Fatalf("no pointer to toolu_1 in the output; the test needs one (pointers: %v)", refs)
	}
	checkTargets(t, in, out)
}
