package commands

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/compactcmd"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// The page's replays: their costs on its cards, and the prefix they send.
var (
	pageCard   = regexp.MustCompile(`<dt>replayed, (as sent|with ctx-compact)</dt><dd>\$([0-9.,]+)`)
	pagePrefix = regexp.MustCompile(`each after the ([0-9,]+) tokens that the agent sent before the history`)
)

// TestPageTakesCompactFlags: ctx-count --html's replay with ctx-compact in
// the loop is ctx-compact's, flag for flag: with the policy's flags, and
// the prefix the page estimates from the usage records given to
// ctx-compact --replay --prefix, both replays cost what ctx-compact's do.
func TestPageTakesCompactFlags(t *testing.T) {
	session := filepath.Join(testutil.Root(t), "internal", "sessionpage", "testdata", "session.jsonl")
	seen := map[string]bool{}
	for _, flags := range [][]string{
		nil,
		{"--mode", "clear", "--recent", "2"},
		{"--no-cut", "--horizon", "0"},
		{"--cache-ttl", "1h", "--keep-edits", "--no-dedupe"},
		{"--model", "claude-opus-4-6"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			page := run(t, countcmd.Command, append(append([]string{"--html"}, flags...), session))
			cards := map[string]float64{}
			for _, m := range pageCard.FindAllStringSubmatch(page, -1) {
				cards[m[1]], _ = strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
			}
			pre := pagePrefix.FindStringSubmatch(page)
			if len(cards) != 2 || pre == nil {
				t.Fatalf("the page shows replays %v and prefix %q", cards, pre)
			}
			var rep struct {
				Sessions []struct {
					AsIs struct {
						Cost float64 `json:"cost_usd"`
					} `json:"as_is"`
					Compacted struct {
						Cost float64 `json:"cost_usd"`
					} `json:"compacted"`
				} `json:"sessions"`
			}
			out := run(t, compactcmd.Command, append(append([]string{"--replay", "--json", "--prefix", strings.ReplaceAll(pre[1], ",", "")}, flags...), session))
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Sessions) != 1 {
				t.Fatalf("ctx-compact --replay --json: %v\n%s", err, out)
			}
			s := rep.Sessions[0]
			for _, c := range []struct {
				name string
				want float64
			}{{"as sent", s.AsIs.Cost}, {"with ctx-compact", s.Compacted.Cost}} {
				if math.Abs(cards[c.name]-c.want) > 0.005 { // the page writes cents over $0.10
					t.Errorf("the page's replay %s costs $%v, ctx-compact's $%.4f", c.name, cards[c.name], c.want)
				}
			}
			seen[strconv.FormatFloat(s.Compacted.Cost, 'f', 6, 64)] = true
		})
	}
	if len(seen) < 3 {
		t.Errorf("the flags gave %d costs with ctx-compact: the test sets too little", len(seen))
	}
}

// run runs a command and returns its stdout; it must succeed.
func run(t *testing.T, cmd cli.Command, args []string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Run(cmd, append([]string{cmd.Name}, args...), strings.NewReader(""), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("%s %s: exit %d: %s", cmd.Name, strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}
