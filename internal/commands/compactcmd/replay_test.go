package compactcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/compact"
	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/usage"
)

// TestReplayTotal: ctx-compact --replay over every fixture and corpus file
// reports, for each, what replay.Replay of it with ctx-compact's defaults
// gives, and as the total the sum of them (replay.Total), on any number of
// goroutines.
func TestReplayTotal(t *testing.T) {
	paths := testutil.FixturesAndCorpus(t)
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	var want []replay.Session
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, data)
		opts := compact.Defaults(ctr)
		opts.HourCache = usage.HourCache(usage.Read(data, tr.Format))
		f, err := compact.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		s := replay.Replay(tr, func(tr *transcript.Transcript) replay.Advance { return f.Start(tr).Advance },
			replay.Options{Counter: ctr, Prices: pricing.Default(), Prefix: 500, HourCache: opts.HourCache})
		s.File = path
		want = append(want, s)
	}
	wantTotal, err := json.Marshal(replay.Total(want))
	if err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []string{"1", "3"} {
		var stdout, stderr bytes.Buffer
		args := append([]string{Command.Name, "--replay", "--json", "--prefix", "500", "--jobs", jobs}, paths...)
		if code := cli.Run(Command, args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("--jobs %s: exit %d: %s", jobs, code, stderr.String())
		}
		var got struct {
			Sessions []json.RawMessage `json:"sessions"`
			Total    json.RawMessage   `json:"total"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Sessions) != len(want) {
			t.Fatalf("--jobs %s: %d sessions, want %d", jobs, len(got.Sessions), len(want))
		}
		for i, s := range want {
			if w, _ := json.Marshal(s); !bytes.Equal(compactJSON(t, got.Sessions[i]), w) {
				t.Errorf("--jobs %s: %s:\n got %s\nwant %s", jobs, s.File, got.Sessions[i], w)
			}
		}
		if g := compactJSON(t, got.Total); !bytes.Equal(g, wantTotal) {
			t.Errorf("--jobs %s: the total\n got %s\nwant %s", jobs, g, wantTotal)
		}
	}
}

// compactJSON is JSON without its indentation.
func compactJSON(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
