package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// archiveFile stores every result of tr in a new archive, closes it (its
// WAL written into the file), and returns the file's path and bytes.
func archiveFile(t testing.TB, tr *transcript.Transcript) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "archive.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	store(t, a, tr)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// corrupted stores one execution whose output is text, closes the archive
// and changes one byte of that text in the file, as a disk or a hand might.
func corrupted(t *testing.T, id, text string) string {
	t.Helper()
	path, b := archiveFile(t, transcripttest.Parse(t, []byte(`[{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cat notes\"}"}}]},
{"role":"tool","tool_call_id":"`+id+`","content":"`+text+`"}]`)))
	at := bytes.Index(b, []byte(text))
	if at < 0 || bytes.Count(b, []byte(text)) != 1 {
		t.Fatalf("the output is %d times in the file, want once", bytes.Count(b, []byte(text)))
	}
	b[at+3] ^= 0x01 // "the" → "thd"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCorruptOutputRefused: an output whose bytes no longer match the
// SHA-256 stored with it is an error naming the id, wherever it is read:
// by id, in a page with the outputs, and in a page's previews.
func TestCorruptOutputRefused(t *testing.T) {
	const id = "call_corrupt0123456789abcdef"
	path := corrupted(t, id, "the quick brown fox jumps over the lazy dog")
	a, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), id) {
			t.Errorf("%s: %v, want ErrCorrupt naming %s", what, err, id)
		}
	}
	rec, err := a.Get(id, "")
	if err == nil {
		t.Errorf("Get gave %q with no error", *rec.Output)
	}
	check("Get", err)
	_, err = a.Find(Query{IncludeOutput: true})
	check("Find with the outputs", err)
	_, err = a.Find(Query{})
	check("Find", err)
	_, err = a.Find(Query{Text: "quick"})
	check("Find a word", err)
}

// FuzzCorruptArchive changes random bytes of a real archive (the example
// session's) and reads every execution back, by id and in pages: each read
// is an error, or the bytes of a stored output that match the SHA-256
// stored with them, never bytes the tool did not print.
func FuzzCorruptArchive(f *testing.F) {
	tr := transcripttest.Load(f, filepath.Join(testutil.Root(f), "examples", "session.jsonl"))
	_, orig := archiveFile(f, tr)
	outputs := map[string]string{} // by handle
	sums := map[string]bool{}      // of every stored output
	for _, e := range Executions(tr, tr.Results) {
		outputs[e.Handle] = e.Output
		sum := sha256.Sum256([]byte(e.Output))
		sums[hex.EncodeToString(sum[:])] = true
	}
	for seed := range int64(16) {
		f.Add(seed, uint8(1+seed%4))
	}
	f.Fuzz(func(t *testing.T, seed int64, flips uint8) {
		b := bytes.Clone(orig)
		rnd := rand.New(rand.NewPCG(uint64(seed), 0))
		for range int(flips%8) + 1 {
			b[rnd.IntN(len(b))] ^= byte(1 + rnd.IntN(255))
		}
		path := filepath.Join(t.TempDir(), "archive.db")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := OpenReadOnly(path)
		if err != nil {
			return
		}
		defer a.Close()
		verified := func(what string, r Record) {
			t.Helper()
			if !sums[r.SHA256] {
				t.Fatalf("%s: record %s gives an output of SHA-256 %s, which is no stored output's", what, r.ID, r.SHA256)
			}
			if r.Output != nil {
				if sum := sha256.Sum256([]byte(*r.Output)); hex.EncodeToString(sum[:]) != r.SHA256 {
					t.Fatalf("%s: record %s gives %d bytes that do not match its SHA-256", what, r.ID, len(*r.Output))
				}
			}
		}
		for h, want := range outputs {
			rec, err := a.Get(h, "")
			if err != nil {
				continue
			}
			verified("Get", rec)
			if *rec.Output != want && rec.ID == h {
				t.Fatalf("Get(%s): %d bytes that are another output's", h, len(*rec.Output))
			}
		}
		for _, q := range []Query{{Limit: MaxLimit, IncludeOutput: true}, {Text: "store", Limit: MaxLimit}} {
			p, err := a.Find(q)
			if err != nil {
				continue
			}
			for _, r := range p.Records {
				verified("Find", r)
			}
		}
	})
}
