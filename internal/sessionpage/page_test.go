package sessionpage

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/replay"
	"github.com/ctxkit/ctxkit/internal/testkit/pricetest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

func counter(t testing.TB) tokens.Counter {
	ctr, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	return ctr
}

// options are ctx-count --html's, for the transcript in data, at these
// prices.
func options(t testing.TB, name string, data []byte, tr *transcript.Transcript, prices *pricing.Table) Options {
	opts, err := Defaults(name, data, tr, counter(t))
	if err != nil {
		t.Fatal(err)
	}
	opts.Prices = prices
	return opts
}

func load(t testing.TB, path string) ([]byte, *transcript.Transcript) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, transcripttest.Parse(t, data)
}

func write(t testing.TB, p *Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := p.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden pins the pages of testdata/session.jsonl, a Claude Code
// session with a failure, a re-read, an error loop, a denied call and
// markup in every text it could hold, and of filtered.jsonl, the same
// after ctx-dedupe and ctx-truncate, with the session as --before.
func TestGolden(t *testing.T) {
	data, tr := load(t, filepath.Join("testdata", "session.jsonl"))
	page := write(t, Build(tr, options(t, "session.jsonl", data, tr, pricetest.HandPrices(t))))
	testutil.Golden(t, filepath.Join("testdata", "session.html"), page)

	fdata, ftr := load(t, filepath.Join("testdata", "filtered.jsonl"))
	opts := options(t, "filtered.jsonl", fdata, ftr, pricetest.HandPrices(t))
	opts.Before, opts.BeforeName = tr, "session.jsonl"
	testutil.Golden(t, filepath.Join("testdata", "filtered.html"), write(t, Build(ftr, opts)))
}

// TestSession checks the numbers of testdata/session.jsonl's page by hand.
func TestSession(t *testing.T) {
	data, tr := load(t, filepath.Join("testdata", "session.jsonl"))
	p := Build(tr, options(t, "session.jsonl", data, tr, pricetest.HandPrices(t)))
	if p.Requests != 12 || p.Calls != 11 || p.Failed != 4 || p.Denied != 1 {
		t.Errorf("%d requests, %d calls, %d failed, %d denied; want 12, 11, 4, 1", p.Requests, p.Calls, p.Failed, p.Denied)
	}
	if len(p.Loops) != 1 || p.Loops[0].First != 5 || p.Loops[0].Last != 7 || p.Loops[0].Calls != 3 {
		t.Errorf("loops %+v, want one of calls 5 to 7", p.Loops)
	}
	for _, c := range p.Timeline {
		wantLoop := 0
		if c.N >= 5 && c.N <= 7 {
			wantLoop = 1
		}
		if c.Reread != (c.N == 4) || c.Loop != wantLoop {
			t.Errorf("call %d: re-read %v, loop %d", c.N, c.Reread, c.Loop)
		}
	}
	if st := p.Timeline[7].Status; st != "denied" {
		t.Errorf("the rejected edit is %q", st)
	}
	if r := p.Largest[0]; r.Call != 1 || r.Whole || r.Status != "failed" || !strings.HasPrefix(r.Text, "Exit code 1\n--- FAIL") || r.Handle != tr.Calls[0].ID || r.HandleCited {
		t.Errorf("the largest result is %+v", r)
	}
	if len(p.Usage) != 12 || p.Cost == nil || len(p.Cost.Runs) != 3 {
		t.Fatalf("%d usage rows, cost %+v", len(p.Usage), p.Cost)
	}
	if p.Filters != nil || p.Before != nil {
		t.Errorf("filters %+v, before %+v: nothing was filtered", p.Filters, p.Before)
	}
	// Like with like: the replays send the prefix that the first usage
	// record shows beyond the first request's history, and each cost says
	// what it is compared with.
	if want := int(p.Usage[0].Tokens.Prompt()) - p.Context[0].Total; p.Cost.Prefix != want || want <= 0 {
		t.Errorf("a prefix of %d tokens, want the first record's %d less the first request's %d", p.Cost.Prefix, p.Usage[0].Tokens.Prompt(), p.Context[0].Total)
	}
	for i, want := range []string{"", "the bill", "the replay as sent"} {
		if r := p.Cost.Runs[i]; r.Against != want || (r.Change == "") != (want == "") {
			t.Errorf("%s: %q against %q, want against %q", r.Name, r.Change, r.Against, want)
		}
	}
	// A failed call says how it failed.
	for _, c := range p.Timeline {
		if (c.Error != "") != (c.Status == "failed") {
			t.Errorf("call %d, %s: error %q", c.N, c.Status, c.Error)
		}
	}
	if e := p.Timeline[0].Error; e != "failed, exit 1: --- FAIL: TestSum (0.00s)" {
		t.Errorf("the first call's error is %q", e)
	}
	page := string(write(t, p))
	for _, want := range []string{
		`<dd>$0.0612 <small>&#43;66.4% against the bill</small></dd>`,
		`<small>-26.0% against the replay as sent</small>`,
		`<span class="failed">failed, exit 1: --- FAIL: TestSum (0.00s)</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %s", want)
		}
	}
}

// TestRecorded: the cost an agent recorded stands beside the table's price
// of its requests, with their ratio where they differ; a session's totals
// (SWE-agent's) give no rows of the usage chart, and no prefix.
func TestRecorded(t *testing.T) {
	msa := `{"info":{"model_stats":{"instance_cost":0.00108146,"api_calls":2}},"messages":[
{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Fix the bug."},
{"role":"assistant","content":"Looking.","extra":{"cost":0.00048146,"response":{"id":"r1","model":"deepseek-chat","usage":{"completion_tokens":115,"prompt_tokens":1835,"prompt_cache_hit_tokens":320}}}},
{"role":"user","content":"ok"},
{"role":"assistant","content":"Done.","extra":{"cost":0.0006,"response":{"id":"r2","model":"deepseek-chat","usage":{"completion_tokens":10,"prompt_tokens":2000,"prompt_cache_hit_tokens":1800}}}}]}`
	swe := `{"trajectory":[],"history":[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":"a","action":"ls"},{"role":"user","content":"o"}],
"info":{"model_stats":{"instance_cost":0.01952,"tokens_sent":7141,"tokens_received":243,"api_calls":5}},"replay_config":{"agent":{"model":{"name":"gpt-4o"}}}}`
	for _, tc := range []struct {
		name, in, card string
		usage          int
		prefix         bool
	}{
		{"mini-swe-agent", msa, "recorded by the agent</dt><dd>$0.0011 <small>3.85× the table&#39;s price of them, $0.0003</small>", 2, true},
		{"SWE-agent", swe, "recorded by the agent</dt><dd>$0.0195 <small>the table prices them at $0.0203</small>", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			tr := transcripttest.Parse(t, data)
			p := Build(tr, options(t, tc.name, data, tr, pricing.Default()))
			page := string(write(t, p))
			checkPage(t, []byte(page))
			if !strings.Contains(page, tc.card) {
				t.Errorf("no card %q", tc.card)
			}
			if len(p.Usage) != tc.usage || (p.Cost.Prefix > 0) != tc.prefix {
				t.Errorf("%d rows of usage, a prefix of %d tokens", len(p.Usage), p.Cost.Prefix)
			}
		})
	}
}

// TestFiltered: the page of filtered.jsonl against session.jsonl shows
// what each filter replaced, the largest results by their size before,
// and the output before the filter.
func TestFiltered(t *testing.T) {
	_, tr := load(t, filepath.Join("testdata", "session.jsonl"))
	fdata, ftr := load(t, filepath.Join("testdata", "filtered.jsonl"))
	opts := options(t, "filtered.jsonl", fdata, ftr, pricetest.HandPrices(t))
	opts.Before, opts.BeforeName = tr, "session.jsonl"
	p := Build(ftr, opts)
	if len(p.Filters) != 2 || p.Filters[0].Name != "dedupe" || p.Filters[1].Name != "truncate" {
		t.Fatalf("filters %+v, want dedupe and truncate", p.Filters)
	}
	for _, f := range p.Filters {
		if f.Results != 1 || f.Tokens >= f.Before {
			t.Errorf("%s: %+v", f.Name, f)
		}
	}
	r := p.Largest[0]
	if r.Filter != "truncate" || r.Before <= r.Tokens || !strings.HasPrefix(r.Marker, "20,739 chars") || r.Whole || r.Bytes != len(tr.Results[0].Text()) {
		t.Errorf("the cut result: %+v", r)
	}
	if p.Before.Tokens <= p.Tokens || p.Before.Sent <= p.Sent || len(p.Cost.Runs) != 4 {
		t.Errorf("before %+v, %d runs", p.Before, len(p.Cost.Runs))
	}
	for _, row := range p.Context {
		if row.Before < row.Total {
			t.Errorf("request %d sent %d, %d before the filter", row.At, row.Total, row.Before)
		}
	}
}

// TestCorpus: over every fixture and corpus session, the page's requests
// send what a replay sends, each column shows the largest request of its
// run, the page is well-formed with only the page's own elements, and it
// stays small.
func TestCorpus(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		t.Run(testutil.Name(path), func(t *testing.T) {
			data, tr := load(t, path)
			opts := options(t, filepath.Base(path), data, tr, pricing.Default())
			p := Build(tr, opts)
			ropts := replay.Options{Counter: opts.Counter, Prices: opts.Prices, HourCache: opts.HourCache}
			r := replay.Replay(tr, nil, ropts)
			if p.Sent != r.AsIs.Sent || p.Peak != r.AsIs.Peak || p.Requests != r.AsIs.Requests {
				t.Errorf("the page sends %d tokens, %d at most, in %d requests; the replay %d, %d, %d",
					p.Sent, p.Peak, p.Requests, r.AsIs.Sent, r.AsIs.Peak, r.AsIs.Requests)
			}
			// The page's replays count the prefix the usage records show.
			ropts.Prefix = p.Cost.Prefix
			if rp := replay.Replay(tr, nil, ropts); p.Cost.Runs[len(p.Cost.Runs)-2].Cost != rp.AsIs.Cost {
				t.Errorf("the page's replay costs %v, the replay with a prefix of %d tokens %v", p.Cost.Runs[len(p.Cost.Runs)-2].Cost, ropts.Prefix, rp.AsIs.Cost)
			}
			// What ctx-compact's replay hid, with the same prefix, is what the
			// page says.
			rc := replay.Replay(tr, opts.Policy, ropts)
			if h := p.Cost.Hidden; (h != nil) != (rc.FactsUsed > 0) || h != nil && (h.Used != rc.FactsUsed || h.Hidden != rc.Compacted.Hidden ||
				h.Recalls != rc.Compacted.Recalls || h.WithRecalls != rc.Compacted.WithRecalls) {
				t.Errorf("the page's hidden facts %+v, the replay's %d used, %+v", h, rc.FactsUsed, *rc.Compacted)
			}
			if h := p.Cost.Hidden; h != nil && !bytes.Contains(write(t, p), []byte(`<p id="hidden">Of the `+textfmt.Plural(h.Used, "fact", "facts"))) {
				t.Error("the page does not say what the replay hid")
			}
			if p.Cost.Prefix > 0 && (len(opts.Usage) == 0 || opts.Usage[0].Requests > 1) {
				t.Errorf("a prefix of %d tokens from %d usage records", p.Cost.Prefix, len(opts.Usage))
			}
			n := 0
			for _, row := range p.Context {
				n += row.Last - row.First + 1
				sum := 0
				for _, v := range row.Layers {
					sum += v
				}
				if sum != row.Total {
					t.Errorf("request %d: its layers add up to %d, not %d", row.At, sum, row.Total)
				}
			}
			if n != p.Requests {
				t.Errorf("the columns hold %d requests of %d", n, p.Requests)
			}
			page := write(t, p)
			checkPage(t, page)
			if len(page) > 600<<10 {
				t.Errorf("the page is %d bytes", len(page))
			}
		})
	}
}

// TestManyRequests: a session of more requests than MaxColumns gets a
// column for each run of requests, showing the largest, and a slot of the
// timeline for each run of calls.
func TestManyRequests(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"role":"user","content":"go"}` + "\n")
	for i := range 700 {
		fmt.Fprintf(&b, `{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"bash","arguments":"{\"command\":\"echo %d\"}"}}]}`+"\n", i, i)
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"c%d","content":%q}`+"\n", i, strings.Repeat("x ", i%50))
	}
	data := []byte(b.String())
	tr := transcripttest.Parse(t, data)
	p := Build(tr, options(t, "many.jsonl", data, tr, pricing.Default()))
	if p.Bucket != 3 || len(p.Context) != 234 || len(p.Cost.Columns) != 234 {
		t.Fatalf("%d requests in %d columns of %d (cost: %d columns)", p.Requests, len(p.Context), p.Bucket, len(p.Cost.Columns))
	}
	s := read(tr, counter(t))
	for _, row := range p.Context {
		for k := row.First; k <= row.Last; k++ {
			if n := sumOf(s.sent[k-1]); n > row.Total {
				t.Fatalf("column %d-%d shows %d tokens, request %d sent %d", row.First, row.Last, row.Total, k, n)
			}
		}
	}
	for _, run := range p.Cost.Runs {
		if len(run.Cum) != 234 || run.Cum[233] != run.Cost {
			t.Errorf("%s: %d points, the last %v of %v", run.Name, len(run.Cum), run.Cum[len(run.Cum)-1], run.Cost)
		}
	}
	calls, tokens := 0, 0
	for _, s := range p.Slots {
		for _, k := range s.Kinds {
			calls += k.Calls
			tokens += k.Tokens
		}
	}
	want := 0
	for _, c := range p.Timeline {
		want += c.Tokens
	}
	if p.CallBucket != 3 || len(p.Slots) != 234 || calls != 700 || tokens != want {
		t.Errorf("%d calls in %d slots of %d, %d tokens of %d", calls, len(p.Slots), p.CallBucket, tokens, want)
	}
	if ch := p.Charts().Calls; ch.Slots != 234 || len(ch.Events) != 234 {
		t.Errorf("the timeline has %d slots, %d events", ch.Slots, len(ch.Events))
	}
	checkPage(t, write(t, p))
}

func sumOf(xs []int) int { return sum(xs) }

// The elements and attributes a page has: any other came from a
// transcript unescaped.
var (
	elements = set("html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p", "dl", "div", "dt", "dd", "small",
		"ul", "ol", "li", "span", "b", "code", "br", "details", "summary", "table", "thead", "tbody", "tr", "th", "td", "pre", "footer",
		"svg", "g", "rect", "line", "polyline", "circle", "text")
	attributes = set("lang", "charset", "http-equiv", "content", "name", "class", "id", "title", "viewBox", "role", "aria-label",
		"x", "y", "x1", "y1", "x2", "y2", "width", "height", "points", "cx", "cy", "r", "text-anchor", "transform")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// checkPage fails the test when the page is not as pageError wants it.
func checkPage(t testing.TB, page []byte) {
	t.Helper()
	if err := pageError(page); err != nil {
		t.Fatal(err)
	}
}

// pageError says what is wrong with a page: not well-formed (as XML:
// every tag closed, every attribute quoted, every text escaped, no
// character an HTML parser would choke on), an element or attribute that
// is not the page's own, an id that two elements have (a link to it, or a
// script, finds one of them), a stylesheet not its own, a script.
func pageError(page []byte) error {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	inStyle := false
	ids := map[string]string{} // the element that has each id
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the page is not well-formed: %v\n%s", err, around(page, d.InputOffset()))
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if !elements[tok.Name.Local] || tok.Name.Space != "" && tok.Name.Space != "http://www.w3.org/2000/svg" {
				return fmt.Errorf("the page has an element <%s>\n%s", tok.Name.Local, around(page, d.InputOffset()))
			}
			for _, a := range tok.Attr {
				if !attributes[a.Name.Local] && !(a.Name.Local == "xmlns" && a.Value == "http://www.w3.org/2000/svg") {
					return fmt.Errorf("the page has an attribute %s=%q\n%s", a.Name.Local, a.Value, around(page, d.InputOffset()))
				}
				if a.Name.Local == "id" {
					if other, ok := ids[a.Value]; ok {
						return fmt.Errorf("the page has two elements of id %q: <%s> and <%s>", a.Value, other, tok.Name.Local)
					}
					ids[a.Value] = tok.Name.Local
				}
			}
			inStyle = tok.Name.Local == "style"
		case xml.CharData:
			if inStyle && string(tok) != style {
				return errors.New("the stylesheet is not the page's own")
			}
		case xml.EndElement:
			inStyle = false
		case xml.ProcInst, xml.Comment:
			return fmt.Errorf("the page has %T", tok)
		case xml.Directive:
			if string(tok) != "DOCTYPE html" {
				return fmt.Errorf("the page has <!%s>", tok)
			}
		}
	}
}

// TestPageError: pageError finds what a transcript's text would do to a
// page if it were not escaped.
func TestPageError(t *testing.T) {
	data, tr := load(t, filepath.Join("testdata", "session.jsonl"))
	page := string(write(t, Build(tr, options(t, "session.jsonl", data, tr, pricetest.HandPrices(t)))))
	if err := pageError([]byte(page)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"<script>alert(1)</script>",
		"<b onclick=\"alert(1)\">x</b>",
		"<img src=x onerror=alert(1)>",
		"a & b",
		"<!-- x -->",
		"\x1b[31m",
		"</pre><pre>",
		"<svg><foreignObject></foreignObject></svg>",
		`<span id="cost">a second element of id cost</span>`,
	} {
		mutated := strings.Replace(page, "<h1>", "<h1>"+bad, 1)
		if pageError([]byte(mutated)) == nil {
			t.Errorf("a page with %q passes", bad)
		}
	}
	if pageError([]byte(strings.Replace(page, "body{", "body{background:url(http://x/)}body{", 1))) == nil {
		t.Errorf("a page with another stylesheet passes")
	}
}

func around(page []byte, off int64) string {
	lo, hi := max(0, int(off)-200), min(len(page), int(off)+100)
	return string(page[lo:hi])
}

// TestEscaped: the markup that testdata/session.jsonl holds in its
// user's text, thinking, tool names, commands, arguments and outputs is on
// the page as text.
func TestEscaped(t *testing.T) {
	data, tr := load(t, filepath.Join("testdata", "session.jsonl"))
	page := write(t, Build(tr, options(t, "<b>session</b>.jsonl", data, tr, pricetest.HandPrices(t))))
	checkPage(t, page)
	for _, want := range []string{
		"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;",
		"mcp__x__&lt;svg onload=alert(3)&gt;",
		"&lt;b&gt;session&lt;/b&gt;.jsonl",
		`\x1b[31mFAIL\x1b[0m`, // a terminal's escapes show as escapes
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page does not show %s", want)
		}
	}
}

// TestEdges: sessions with nothing to chart, or odd pieces (a call without
// its result, a result without its call, an image), still make a
// well-formed page.
func TestEdges(t *testing.T) {
	for name, doc := range map[string]string{
		"a user's message":       `[{"role":"user","content":"hi"}]`,
		"an answer":              `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`,
		"a call without result":  `[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}]`,
		"a result without call":  `[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c9","content":"orphan"},{"role":"assistant","content":"ok"}]`,
		"an image":               `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},{"role":"assistant","content":"a picture"}]`,
		"an empty message array": `[]`,
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := transcript.Parse([]byte(doc), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := Build(tr, options(t, name, []byte(doc), tr, pricetest.HandPrices(t)))
			checkPage(t, write(t, p))
		})
	}
}
