package truncate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestGoldenLogs cuts real logs (testdata/logs, see its README) with the
// default rules, as the output of the failed calls they were, and compares
// the cut with testdata/golden/NAME.golden (go test -update rewrites them).
func TestGoldenLogs(t *testing.T) {
	ctr := counter(t, tokens.Default)
	files, err := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	if err != nil || len(files) < 6 {
		t.Fatalf("want the logs of testdata/logs: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			text := readLog(t, name)
			r := DefaultRules()
			r.Counter, r.Failed = ctr, true
			out, ok := Cut(text, r)
			if !ok {
				t.Fatal("not cut")
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".log")+".golden"), []byte(out))
			if again, ok := Cut(out, r); ok || again != out {
				t.Error("a second cut changed the golden output")
			}
			if ctr.Count(out) >= ctr.Count(text) {
				t.Error("not fewer tokens")
			}
			// Every error line of the log is in the cut, in the head or
			// tail or numbered under the marker.
			for _, line := range errorLines(text) {
				if !strings.Contains(out, line) {
					t.Errorf("error line lost: %q", line)
				}
			}
		})
	}
}

// TestGoldenSessions runs Apply with the default options over sessions in
// the four formats that run the commands of the logs (testdata/sessions,
// made by TestMakeFixtures), and compares the whole transcript out with
// testdata/golden/sessions/.
func TestGoldenSessions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sessions", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions: %v", err)
	}
	opts := Options{Rules: DefaultRules()}
	opts.Rules.Counter = counter(t, tokens.Default)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out := invariant.Check(t, in, apply(opts))
			testutil.Golden(t, filepath.Join("testdata", "golden", "sessions", filepath.Base(f)), out)
		})
	}
}

// apply is the filter as the invariant checks run it.
func apply(opts Options) invariant.Filter {
	return func(in []byte) ([]byte, error) {
		t, err := transcript.Parse(in, transcript.Options{})
		if err != nil {
			return nil, err
		}
		f, err := New(opts)
		if err != nil {
			return nil, err
		}
		f.Apply(t)
		return t.Bytes(), nil
	}
}
