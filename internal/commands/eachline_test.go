package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/archivecmd"
	"github.com/ctxkit/ctxkit/internal/commands/changelogcmd"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
	"github.com/ctxkit/ctxkit/internal/commands/dedupecmd"
	"github.com/ctxkit/ctxkit/internal/commands/loopscmd"
	"github.com/ctxkit/ctxkit/internal/commands/summarizecmd"
	"github.com/ctxkit/ctxkit/internal/commands/truncatecmd"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// oneLine is a JSON document on one line, for --each-line input; "" for a
// file that is JSONL, not one document.
func oneLine(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v json.RawMessage
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEachLineIsEachAlone: for every tool, on every fixture and corpus file
// that is one JSON document, line N of --each-line's output (on 4 jobs) is
// the tool's output for line N alone: the transcript for a filter and for
// ctx-archive, the report for ctx-count and ctx-changelog. A bad line and a blank line keep
// their places.
func TestEachLineIsEachAlone(t *testing.T) {
	var lines []string
	for _, path := range testutil.FixturesAndCorpus(t) {
		if l := oneLine(t, path); l != "" {
			lines = append(lines, l)
		}
	}
	bad := len(lines) / 2
	lines = append(lines[:bad], append([]string{`{"messages": [`, ""}, lines[bad:]...)...)
	input := strings.Join(lines, "\n") + "\n"
	for _, c := range []struct {
		cmd  cli.Command
		args []string
	}{
		{dedupecmd.Command, []string{"--encoding", "approx", "--all-tools"}},
		{truncatecmd.Command, []string{"--max-chars", "2000", "--head", "600", "--tail", "600"}},
		{summarizecmd.Command, []string{"--encoding", "approx", "--protect-tokens", "1000", "--protect-turns", "0", "--min-savings", "0"}},
		{countcmd.Command, []string{"--encoding", "approx", "--top", "3"}},
		{changelogcmd.Command, nil},
		{archivecmd.Command, []string{"--db", filepath.Join(t.TempDir(), "archive.db")}},
		{loopscmd.Command, []string{"--min", "2"}},
		{loopscmd.Command, []string{"--banner"}},
	} {
		t.Run(c.cmd.Name, func(t *testing.T) {
			args := append([]string{c.cmd.Name, "--each-line", "--jobs", "4"}, c.args...)
			var stdout, stderr bytes.Buffer
			code := cli.Run(c.cmd, args, strings.NewReader(input), &stdout, &stderr)
			if code != cli.ExitFailure {
				t.Errorf("exit %d, want 1 for the bad line", code)
			}
			if want := fmt.Sprintf("%s: <stdin>:%d:15: invalid JSON: truncated (unexpected end of input)\n", c.cmd.Name, bad+1); stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(got) != len(lines) {
				t.Fatalf("%d lines out, want %d", len(got), len(lines))
			}
			for i, l := range lines {
				want := ""
				switch {
				case i == bad:
					want = fmt.Sprintf(`{"error":"<stdin>:%d:15: invalid JSON: truncated (unexpected end of input)","file":"<stdin>","line":%d}`, i+1, i+1)
				case l == "":
				default:
					want = alone(t, c.cmd, c.args, l, i+1)
				}
				if got[i] != want {
					t.Errorf("line %d:\n got %.300s\nwant %.300s", i+1, got[i], want)
				}
			}
		})
	}
}

// alone is what a tool's --each-line output for a line should be, from the
// tool run on the line alone: the transcript for a filter; for ctx-count,
// ctx-changelog and ctx-loops the same report as --json, on one line, with
// the line number.
func alone(t *testing.T, cmd cli.Command, args []string, line string, num int) string {
	report := cmd.Name == countcmd.Command.Name || cmd.Name == changelogcmd.Command.Name || cmd.Name == loopscmd.Command.Name && !slices.Contains(args, "--banner")
	argv := append([]string{cmd.Name}, args...)
	if report {
		argv = append(argv, "--json")
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Run(cmd, append(argv, "-"), strings.NewReader(line), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("%s alone: exit %d: %s", cmd.Name, code, stderr.String())
	}
	out := stdout.Bytes()
	switch cmd.Name {
	case countcmd.Command.Name:
		var s struct {
			Version  int               `json:"version"`
			Encoding string            `json:"encoding"`
			Files    []json.RawMessage `json:"files"`
		}
		if err := json.Unmarshal(out, &s); err != nil || len(s.Files) != 1 {
			t.Fatalf("ctx-count --json: %v", err)
		}
		// --json escapes HTML's characters, --each-line not: "<stdin>".
		report := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(compact(t, s.Files[0]))
		return fmt.Sprintf(`{"version":%d,"encoding":%q,"line":%d,%s`, s.Version, s.Encoding, num, report[1:])
	case changelogcmd.Command.Name:
		return strings.ReplaceAll(compact(t, out), `"source":"<stdin>"`, fmt.Sprintf(`"source":"<stdin>:%d"`, num))
	case loopscmd.Command.Name:
		if !report {
			break
		}
		var s struct {
			Version, Min, Cycles int
			Files                []json.RawMessage
		}
		if err := json.Unmarshal(out, &s); err != nil || len(s.Files) != 1 {
			t.Fatalf("ctx-loops --json: %v", err)
		}
		r := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(compact(t, s.Files[0]))
		return fmt.Sprintf(`{"version":%d,"min":%d,"cycles":%d,"line":%d,%s`, s.Version, s.Min, s.Cycles, num, r[1:])
	}
	return string(out)
}

func compact(t *testing.T, js []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, js); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
