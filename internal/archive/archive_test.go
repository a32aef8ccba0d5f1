package archive

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// open creates an archive in a test's temporary directory.
func open(t testing.TB) *Archive {
	t.Helper()
	a, err := Open(filepath.Join(t.TempDir(), "sub", "archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// store archives every result of a transcript.
func store(t testing.TB, a *Archive, tr *transcript.Transcript) Stored {
	t.Helper()
	st, err := a.Store(Executions(tr, tr.Results))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// checkRecall checks that every original result of tr comes back from the
// archive byte for byte by its handle.
func checkRecall(t *testing.T, a *Archive, tr *transcript.Transcript) {
	t.Helper()
	for _, r := range tr.Results {
		text := r.Text()
		if strings.HasPrefix(text, "[ctx-") {
			continue
		}
		rec, err := a.Get(marker.Handle(tr, r), "")
		if err != nil {
			t.Errorf("result %d (call %q): %v", r.Index, r.CallID, err)
			continue
		}
		if *rec.Output != text {
			t.Errorf("result %d (call %q): recalled %d bytes, want the %d of the original", r.Index, r.CallID, len(*rec.Output), len(text))
		}
	}
}

// TestRecallEveryResult stores every fixture and corpus transcript and gets
// every result back, byte for byte, by its handle; storing again adds
// nothing.
func TestRecallEveryResult(t *testing.T) {
	files := testutil.Fixtures(t)
	if _, err := os.Stat(testutil.CorpusDir(t)); err == nil {
		files = append(files, testutil.CorpusFiles(t)...)
	}
	a := open(t)
	for _, path := range files {
		t.Run(testutil.Name(path), func(t *testing.T) {
			tr := transcripttest.Load(t, path)
			st := store(t, a, tr)
			if st.New != st.Executions {
				t.Errorf("first store: %d new of %d", st.New, st.Executions)
			}
			checkRecall(t, a, tr)
			if again := store(t, a, transcripttest.Load(t, path)); again.New != 0 || again.Outputs != 0 {
				t.Errorf("second store added %d executions and %d outputs", again.New, again.Outputs)
			}
		})
	}
}

// TestStoreDeduplicatesOutputs stores one output for executions that
// printed the same text.
func TestStoreDeduplicatesOutputs(t *testing.T) {
	a := open(t)
	tr := transcripttest.Parse(t, []byte(`[
{"role":"assistant","content":null,"tool_calls":[{"id":"call_aaaaaaaaaaaaaaaaaaaaaaaa","type":"function","function":{"name":"bash","arguments":"{\"command\":\"date\"}"}},{"id":"call_bbbbbbbbbbbbbbbbbbbbbbbb","type":"function","function":{"name":"bash","arguments":"{\"command\":\"date  \"}"}}]},
{"role":"tool","tool_call_id":"call_aaaaaaaaaaaaaaaaaaaaaaaa","content":"same"},
{"role":"tool","tool_call_id":"call_bbbbbbbbbbbbbbbbbbbbbbbb","content":"same"}]`))
	st := store(t, a, tr)
	if st.New != 2 || st.Outputs != 1 {
		t.Errorf("stored %d executions and %d outputs, want 2 and 1", st.New, st.Outputs)
	}
	var n int
	if err := a.db.QueryRow(`SELECT count(*) FROM outputs`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d outputs in the table (%v), want 1", n, err)
	}
}

// TestMarkersAreNotArchived leaves out results that are a filter's marker or
// cut: they are not original outputs.
func TestMarkersAreNotArchived(t *testing.T) {
	tr := transcripttest.Parse(t, []byte(`[
{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"c","type":"function","function":{"name":"bash","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"a","content":"[ctx-dedupe] Repeated bash call: identical to the result of call x above; not repeated here."},
{"role":"tool","tool_call_id":"b","content":"head\n[ctx-truncate] 90,000 chars, 900 lines; 89,000 chars (898 lines) cut here; kept the first 1 and last 1 lines.\ntail"},
{"role":"tool","tool_call_id":"c","content":"an output"}]`))
	execs := Executions(tr, tr.Results)
	if len(execs) != 1 || execs[0].CallID != "c" {
		t.Errorf("executions %+v, want only call c's", execs)
	}
}

func TestLines(t *testing.T) {
	text := "one\ntwo\nthree\nfour"
	cases := []struct {
		from, to int
		want     string
	}{
		{1, 1, "one\n"},
		{2, 3, "two\nthree\n"},
		{3, 0, "three\nfour"},
		{4, 9, "four"},
		{5, 6, ""},
		{1, 0, text},
	}
	for _, c := range cases {
		if got := Lines(text, c.from, c.to); got != c.want {
			t.Errorf("Lines(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	if got := Lines("a\nb\n", 3, 3); got != "" {
		t.Errorf("past a final newline: %q, want nothing", got)
	}
}

func TestPreview(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a\nb\n", "a\nb"},
		{"1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\n4\n5"},
		{strings.Repeat("é", 400), strings.Repeat("é", 299) + "…"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Preview(c.in); got != c.want {
			t.Errorf("Preview(%.20q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFTSQuery(t *testing.T) {
	cases := []struct{ in, want string }{
		{"panic nil", `"panic" "nil"`},
		{`"index out of range"`, `"index out of range"`},
		{"store* OR cache", `"store"* OR "cache"`},
		{"OR cache", `"OR" "cache"`},
		{"a OR NOT b", `"a" "OR" "NOT" "b"`},
		{"internal/store/store.go:41", `"internal/store/store.go:41"`},
		{`say "hi`, ""},
		{"   ", ""},
		{`a"b`, `"a""b"`},
	}
	for _, c := range cases {
		got, err := FTSQuery(c.in)
		if c.want == "" {
			if !errors.Is(err, ErrBadQuery) {
				t.Errorf("FTSQuery(%q) = %q, %v; want ErrBadQuery", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("FTSQuery(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestFind runs the queries over the example session, whose content the
// README shows.
func TestFind(t *testing.T) {
	a := open(t)
	tr := transcripttest.Load(t, filepath.Join(testutil.Root(t), "examples", "session.jsonl"))
	store(t, a, tr)
	all, err := a.Find(Query{Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != len(tr.Results) || len(all.Records) != len(tr.Results) {
		t.Fatalf("%d of %d records, want all %d", len(all.Records), all.Total, len(tr.Results))
	}
	ids := func(q Query) []string {
		t.Helper()
		q.Limit = MaxLimit
		p, err := a.Find(q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		var out []string
		for _, r := range p.Records {
			out = append(out, r.Tool+" "+r.Target)
		}
		if p.Total != len(out) {
			t.Errorf("%+v: total %d, %d records", q, p.Total, len(out))
		}
		return out
	}
	wantFailed := 0
	for _, r := range tr.Results {
		if r.Failed() {
			wantFailed++
		}
	}
	if got := ids(Query{Failed: true}); len(got) != wantFailed || wantFailed == 0 {
		t.Errorf("--failed: %q, want %d", got, wantFailed)
	}
	if got := ids(Query{Path: "internal/store/store.go"}); len(got) < 6 {
		t.Errorf("--path store.go: %q, want its six reads and two edits", got)
	}
	for _, p := range []string{"store.go", "./internal/store/store.go", "internal/store", "/home/dev/shortlink/internal/store/store.go"} {
		if got, want := len(ids(Query{Path: p})), len(ids(Query{Path: "internal/store/store.go"})); got < want {
			t.Errorf("--path %s: %d records, want at least %d", p, got, want)
		}
	}
	if got := ids(Query{Path: "tore.go"}); len(got) != 0 {
		t.Errorf("--path tore.go matches part of a name: %q", got)
	}
	if got := ids(Query{Tool: "read"}); len(got) != 7 {
		t.Errorf("--tool read (a kind): %q, want 7 reads", got)
	}
	if got, want := ids(Query{Tool: "READ"}), ids(Query{Tool: "Read"}); len(got) != len(want) {
		t.Errorf("--tool is not case-insensitive: %d vs %d", len(got), len(want))
	}
	for i, r := range all.Records[1:] {
		if *r.Time > *all.Records[i].Time {
			t.Errorf("records not newest first: %s after %s", *r.Time, *all.Records[i].Time)
		}
	}
	mid, _ := time.Parse(time.RFC3339, *all.Records[len(all.Records)/2].Time)
	before, after := ids(Query{Until: mid}), ids(Query{Since: mid})
	if len(before)+len(after) != all.Total || len(before) == 0 || len(after) == 0 {
		t.Errorf("--until and --since %s split %d into %d and %d", mid, all.Total, len(before), len(after))
	}
	// Full text: the failing test's name is in the test log.
	p, err := a.Find(Query{Text: "FAIL", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total == 0 || !strings.Contains(p.Records[0].Snippet, "**FAIL**") {
		t.Errorf("--query FAIL: %d hits, first snippet %q", p.Total, firstSnippet(p))
	}
	if p, err := a.Find(Query{Text: "ExpiresAt"}); err != nil || p.Total == 0 {
		t.Errorf("--query ExpiresAt: %v, %+v", err, p)
	}
	if p, err := a.Find(Query{Text: "nosuchwordanywhere"}); err != nil || p.Total != 0 {
		t.Errorf("--query nosuchwordanywhere: %v, %d hits", err, p.Total)
	}
	// A command matches too.
	if p, err := a.Find(Query{Text: "go test"}); err != nil || p.Total == 0 {
		t.Errorf("--query 'go test': %v, %d hits", err, p.Total)
	}
	lim, _ := a.Find(Query{Limit: 3})
	if len(lim.Records) != 3 || lim.Total != all.Total {
		t.Errorf("--limit 3: %d records of %d", len(lim.Records), lim.Total)
	}
	withOut, _ := a.Find(Query{Limit: 1, IncludeOutput: true})
	if withOut.Records[0].Output == nil || all.Records[0].Output != nil {
		t.Error("IncludeOutput does not decide whether records carry the output")
	}
}

func firstSnippet(p Page) string {
	if len(p.Records) == 0 {
		return ""
	}
	return p.Records[0].Snippet
}

// TestGetAmbiguous: a short call id shared by two conversations with
// different outputs is ambiguous unless the session says which.
func TestGetAmbiguous(t *testing.T) {
	a := open(t)
	mk := func(task, out string) *transcript.Transcript {
		return transcripttest.Parse(t, []byte(`[{"role":"user","content":"`+task+`"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"`+out+`"}]`))
	}
	one, two := mk("one", "first"), mk("two", "second")
	store(t, a, one)
	store(t, a, two)
	if _, err := a.Get("call_1", ""); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("Get(call_1): %v, want ErrAmbiguous", err)
	}
	rec, err := a.Get("call_1", marker.SessionKey(two))
	if err != nil || *rec.Output != "second" {
		t.Errorf("Get(call_1, session two): %v %v", rec.Output, err)
	}
	if rec, err := a.Get(marker.Handle(one, one.Results[0]), ""); err != nil || *rec.Output != "first" {
		t.Errorf("Get(handle of one): %v %v", rec.Output, err)
	}
	if _, err := a.Get("toolu_nothing_like_this_here", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
}

// FuzzFTSQuery: whatever the user types, FTSQuery refuses it or makes a
// query that FTS5 runs.
func FuzzFTSQuery(f *testing.F) {
	for _, s := range []string{"panic nil", `"a b" c*`, "error\x00", "OR", "a OR", "NOT NOT b", "x AND OR y", `a"b`, "*", `""`, "a-b:c/d.go", "NEAR(a b)", "^x", "col:x"} {
		f.Add(s)
	}
	a := open(f)
	f.Fuzz(func(t *testing.T, text string) {
		q, err := FTSQuery(text)
		if err != nil {
			if !errors.Is(err, ErrBadQuery) {
				t.Fatalf("FTSQuery(%q): %v", text, err)
			}
			return
		}
		if _, err := a.Find(Query{Text: text}); err != nil {
			t.Fatalf("FTSQuery(%q) = %q: %v", text, q, err)
		}
	})
}

// TestFindControlCharacters: a NUL or another control character in a query
// is text, as the tokenizer reads it (a separator), not the end of the
// query that SQLite's parser would see.
func TestFindControlCharacters(t *testing.T) {
	a := open(t)
	store(t, a, transcripttest.Load(t, filepath.Join(testutil.Root(t), "examples", "session.jsonl")))
	want, err := a.Find(Query{Text: "FAIL"})
	if err != nil || want.Total == 0 {
		t.Fatalf("FAIL: %v, %d hits", err, want.Total)
	}
	for _, q := range []string{"FAIL\x00", "\x00FAIL", `"FAIL` + "\x00" + `"`, "FAIL\x01\x7f", "FAIL*\x00"} {
		p, err := a.Find(Query{Text: q})
		if err != nil || p.Total == 0 {
			t.Errorf("%q: %v, %d hits; want the hits of FAIL", q, err, p.Total)
		}
	}
	if _, err := a.Find(Query{Text: "\x00"}); err != nil && !errors.Is(err, ErrBadQuery) {
		t.Errorf("a NUL alone: %v, want no error or ErrBadQuery", err)
	}
}
