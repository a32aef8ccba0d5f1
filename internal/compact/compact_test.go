package compact

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/measure"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

var counter = sync.OnceValue(func() tokens.Counter {
	ctr, _ := tokens.New(tokens.Default)
	return ctr
})

func defaults() Options { return Defaults(counter()) }

// asFilter is the filter with opts, bytes to bytes.
func asFilter(t testing.TB, opts Options) invariant.Filter {
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return invariant.Of(func(tr *transcript.Transcript) { f.Apply(tr) })
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// settings are the options the property tests run with.
var settings = map[string]func(*Options){
	"default":  nil,
	"archived": func(o *Options) { o.Handle = invariant.Handles },
	"window 3, nothing on arrival, edits whole, hour cache": func(o *Options) {
		o.Window, o.Cut, o.Dedupe, o.KeepEdits, o.HourCache = 3, nil, false, true, true
	},
	"clears, archived":        func(o *Options) { o.Summarizer, o.Handle = Clears(counter()), invariant.Handles },
	"horizon 0, keep mirrors": func(o *Options) { o.Horizon, o.KeepMirrors = 0, true },
	"reads replaced, referred kept up to 5,000 tokens, archived": func(o *Options) {
		o.KeepReads, o.KeepReferred, o.Handle = false, 5000, invariant.Handles
	},
	"reads replaced, none kept when referred to": func(o *Options) { o.KeepReads, o.KeepReferred = false, 0 },
}

// TestInvariants: over every fixture and corpus file, with every setting,
// the output keeps every invariant (same format and layout, no message
// dropped, every call with its result, idempotent, deterministic, never
// more tokens, pointers at whole results above), cites the archive's
// handle where it has one, keeps every line that says what went wrong,
// and leaves a failed result whole or cut (its error lines kept).
func TestInvariants(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		in := read(t, path)
		for name, set := range settings {
			t.Run(testutil.Name(path)+"/"+name, func(t *testing.T) {
				opts := defaults()
				if set != nil {
					set(&opts)
				}
				out := invariant.Check(t, in, asFilter(t, opts))
				if opts.Handle != nil {
					if err := invariant.Cites(in, out, opts.Handle); err != nil {
						t.Error(err)
					}
				}
				before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
				k := measure.Compare(before, after, counter())
				if k.ErrorLinesKept != k.ErrorLines {
					t.Errorf("%d of %d error lines kept", k.ErrorLinesKept, k.ErrorLines)
				}
				for i, r := range before.Results {
					text := after.Results[i].Text()
					if r.Failed() && text != r.Text() && !marker.IsCut(text) {
						t.Errorf("failed result %s replaced: %.120q", r.CallID, text)
					}
				}
			})
		}
	}
}

// history is one way of sending a session, request by request: each
// unit's text (a result's, or an edit's arguments) at each request.
type history struct {
	units    []*unit
	requests [][]string // per request, per unit that has arrived, its text
}

// replayLoop advances a loop over t to every request, as a live loop
// does, and records what each request sends.
func replayLoop(t *testing.T, f *Filter, tr *transcript.Transcript) history {
	l := f.Start(tr)
	var h history
	for _, tn := range tr.Turns() {
		l.Advance(tn.Messages[0], nil)
		texts := make([]string, len(l.units))
		for i, u := range l.units {
			texts[i] = u.sent()
		}
		h.requests = append(h.requests, texts)
	}
	h.units = l.units
	return h
}

// TestForms: request by request, over every fixture and corpus file, a
// result and an edit's arguments take at most two forms: the form they
// arrive in (whole, cut or a pointer), then their summary (or stub), which
// is final. So a message takes at most one more form than it has results
// and edits.
func TestForms(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		for name, set := range settings {
			t.Run(testutil.Name(path)+"/"+name, func(t *testing.T) {
				opts := defaults()
				if set != nil {
					set(&opts)
				}
				f, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				tr := transcripttest.Load(t, path)
				h := replayLoop(t, f, tr)
				for i, u := range h.units {
					var forms []string
					for _, texts := range h.requests {
						if i < len(texts) && (len(forms) == 0 || forms[len(forms)-1] != texts[i]) {
							forms = append(forms, texts[i])
						}
					}
					if len(forms) > 2 {
						t.Fatalf("%s took %d forms: %.80q", u.name(), len(forms), forms)
					}
					if len(forms) == 2 && !strings.HasPrefix(forms[1], "[ctx-compact") && !strings.Contains(forms[1], `"[ctx-compact`) {
						t.Errorf("%s changed after arrival into something but its summary: %.120q", u.name(), forms[1])
					}
				}
			})
		}
	}
}

func (u *unit) name() string {
	if u.c != nil {
		return "the arguments of " + u.c.ID
	}
	return "the result of " + u.r.CallID
}

// TestRestart: the compacted history is a function of the history alone.
// At requests throughout every fixture and corpus file, the filter run
// from scratch on the history before the request (as after a restart, or
// in another process) sends what the loop advanced request by request
// sends, byte for byte; and two runs send the same.
func TestRestart(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			data := read(t, path)
			f, err := New(defaults())
			if err != nil {
				t.Fatal(err)
			}
			tr := transcripttest.Parse(t, data)
			h := replayLoop(t, f, tr)
			again := replayLoop(t, f, transcripttest.Parse(t, data))
			for k := range h.requests {
				if strings.Join(h.requests[k], "\x00") != strings.Join(again.requests[k], "\x00") {
					t.Fatalf("request %d: two runs send different histories", k)
				}
			}
			turns := tr.Turns()
			step := max(1, len(turns)/12)
			for k := 0; k < len(turns); k += step {
				at := turns[k].Messages[0]
				pt, err := transcript.Parse(transcripttest.Prefix(t, data, tr, at), transcript.Options{Format: tr.Format})
				if err != nil {
					t.Fatal(err)
				}
				f.Apply(pt)
				calls := map[string]string{}
				for _, c := range pt.Calls {
					calls[c.ID] = c.Input
				}
				results := map[int]string{}
				for _, r := range pt.Results {
					results[r.Index] = r.Text()
				}
				for i, u := range h.units[:len(h.requests[k])] {
					got := results[u.indexOr(-1)]
					if u.c != nil {
						got = calls[u.c.ID]
					}
					if want := h.requests[k][i]; got != want {
						t.Fatalf("request %d: %s is %.100q from scratch, %.100q in the loop", k, u.name(), got, want)
					}
				}
			}
		})
	}
}

func (u *unit) indexOr(def int) int {
	if u.r != nil {
		return u.r.Index
	}
	return def
}

// TestOwnMarkers: a summary says how many tokens it replaced, and the
// filter reads it back; a stub's note does too; other markers are not
// ctx-compact's.
func TestOwnMarkers(t *testing.T) {
	cases := []struct {
		summary string
		want    string
	}{
		{"[ctx-summarize] Read a.go: 329 lines\nline 1", "[ctx-compact] 4,210 tokens summarized: Read a.go: 329 lines\nline 1"},
		{"[ctx-summarize, model m1] grep x: 3 hits", "[ctx-compact, model m1] 4,210 tokens summarized: grep x: 3 hits"},
		{"The file a.go has been updated; the 36 lines after it are not shown here.", "[ctx-compact] 4,210 tokens summarized: The file a.go has been updated; the 36 lines after it are not shown here."},
	}
	for _, c := range cases {
		got := summaryText(c.summary, 4210)
		if got != c.want {
			t.Errorf("summaryText(%q) = %q, want %q", c.summary, got, c.want)
		}
		if n, ok := ownTokens(got); !ok || n != 4210 {
			t.Errorf("ownTokens(%q) = %d, %v", got, n, ok)
		}
		if !marker.Is(got, tool) {
			t.Errorf("%q is not a ctx-compact marker", got)
		}
	}
	for _, text := range []string{"[ctx-summarize] 12 tokens summarized: x", "[ctx-compact] summarized: x", "12 tokens summarized: x", ""} {
		if _, ok := ownTokens(text); ok {
			t.Errorf("ownTokens(%q) read a count", text)
		}
	}
	stub := `{"file_path":"a.go","ctx-summarize":"[ctx-compact] 1,204 tokens of arguments left out: the text this edit of a.go changed is not shown here."}`
	if n, ok := ownStubTokens(stub); !ok || n != 1204 {
		t.Errorf("ownStubTokens = %d, %v", n, ok)
	}
	if _, ok := ownStubTokens(`{"file_path":"a.go","ctx-summarize":"[ctx-summarize] Change 1 of 2"}`); ok {
		t.Error("ctx-summarize's stub read as ctx-compact's")
	}
}

// TestNew: bad options are refused.
func TestNew(t *testing.T) {
	for name, set := range map[string]func(*Options){
		"no counter":       func(o *Options) { o.Counter = nil },
		"window 0":         func(o *Options) { o.Window = 0 },
		"negative horizon": func(o *Options) { o.Horizon = -1 },
		"bad cut":          func(o *Options) { o.Cut.Max = -1 },
	} {
		opts := defaults()
		cut := *opts.Cut
		opts.Cut = &cut
		set(&opts)
		if _, err := New(opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestNoPointerAcrossRestart: after the agent compacted its history, a
// re-read does not point at a read from before, which is no longer sent;
// before it, it does.
func TestNoPointerAcrossRestart(t *testing.T) {
	body := strings.Repeat("line of the file, long enough to be worth a pointer\n", 40)
	read := func(id string) string {
		return `{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"t` + id + `","name":"Read","input":{"file_path":"/p/a.go"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + id + `","content":` + strconv.Quote(body) + `}]}}
`
	}
	in := `{"type":"user","cwd":"/p","message":{"role":"user","content":"go"}}
` + read("1") + read("2") + `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}
{"type":"user","message":{"role":"user","content":"summary"}}
` + read("3")
	tr := transcripttest.Parse(t, []byte(in))
	f, err := New(defaults())
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(tr)
	if got := tr.Results[1].Text(); !marker.Is(got, "dedupe") {
		t.Errorf("the re-read before the restart: %.100q, want a pointer", got)
	}
	if got := tr.Results[2].Text(); got != body {
		t.Errorf("the re-read after the restart: %.100q, want it whole", got)
	}
}

// TestCutIsNoBase: a long output cut on arrival is no base for a pointer,
// whether the filter cut it now or it came cut: the output and a second
// run agree.
func TestCutIsNoBase(t *testing.T) {
	body := strings.Repeat("a line of a long file, printed by cat, long enough to be cut\n", 400)
	cat := func(id string) string {
		return `{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"t` + id + `","name":"Bash","input":{"command":"cat /p/a.txt"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + id + `","content":` + strconv.Quote(body) + `}]}}
`
	}
	in := []byte(`{"type":"user","cwd":"/p","message":{"role":"user","content":"go"}}
` + cat("1") + cat("2"))
	opts := defaults()
	opts.Window = 5 // both stay as they arrived
	out := invariant.Check(t, in, asFilter(t, opts))
	tr := transcripttest.Parse(t, out)
	for _, r := range tr.Results {
		if !marker.IsCut(r.Text()) {
			t.Errorf("result %s: %.100q, want a cut", r.CallID, r.Text())
		}
	}
}

// TestListingArrivesGrouped: a long listing is cut on arrival as
// ctx-truncate cuts it: every path after its head, grouped by directory;
// a second run changes nothing.
func TestListingArrivesGrouped(t *testing.T) {
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "./internal/pkg%02d/file%03d.go\n", i%20, i)
	}
	in := []byte(`{"type":"user","cwd":"/p","message":{"role":"user","content":"go"}}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"find . -name '*.go'"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + strconv.Quote(body.String()) + `}]}}
`)
	opts := defaults()
	opts.Window = 5 // it stays as it arrived
	out := invariant.Check(t, in, asFilter(t, opts))
	got := transcripttest.Parse(t, out).Results[0].Text()
	if !marker.IsCut(got) || !strings.Contains(got, "every one named below by directory") {
		t.Fatalf("not grouped on arrival:\n%.600s", got)
	}
	for i := range 400 {
		if file := fmt.Sprintf("file%03d.go", i); !strings.Contains(got, file) {
			t.Errorf("%s is not named", file)
		}
	}
}

// TestHeredocStub: a command that writes a file through a heredoc and runs
// it is sent, once used, without the text it wrote (a later read of the
// file shows it), as an edit's arguments are; the rest of the command
// line stays, and a second run changes nothing.
func TestHeredocStub(t *testing.T) {
	script := strings.Repeat("print('a line of the script that the agent wrote to a file')\n", 60)
	cmd := "cd /p && cat > t.py << 'EOF'\n" + script + "EOF\npython3 t.py"
	in := []byte(`{"type":"user","cwd":"/p","message":{"role":"user","content":"go"}}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + strconv.Quote(cmd) + `}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"t.py"}]}}
{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"done"}]}}
`)
	out := invariant.Check(t, in, asFilter(t, defaults()))
	c := transcripttest.Parse(t, out).Calls[0]
	want := `{"command":"cd /p && cat > t.py << 'EOF'\n(60 lines not shown here)\nEOF\npython3 t.py","ctx-summarize":"[ctx-compact] `
	if !strings.HasPrefix(c.Input, want) || !strings.Contains(c.Input, "the text this command wrote to t.py is not shown here.") {
		t.Errorf("the call's arguments: %s", c.Input)
	}
}
