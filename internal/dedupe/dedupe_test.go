package dedupe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/testkit/invariant"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// counter is one exact counter for every test: each new one loads its
// ranks again.
var counter = sync.OnceValue(func() tokens.Counter {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		panic(err)
	}
	return c
})

func defaults(t testing.TB) Options {
	return Options{MaxReads: DefaultMaxReads, Counter: counter()}
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// filter is ctx-dedupe with opts as the invariant checks run it.
func filter(t testing.TB, opts Options) invariant.Filter {
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return invariant.Of(func(tr *transcript.Transcript) { f.Apply(tr) })
}

func TestWholeByCount(t *testing.T) {
	cases := []struct {
		n, max int
		want   string // x: whole, .: may be replaced
	}{
		{1, 5, "x"},
		{2, 5, "xx"},
		{3, 5, "x.x"},
		{5, 5, "x...x"},
		{6, 5, "xx.xxx"},
		{7, 5, "xx.x.xx"},
		{14, 5, "x..x...x...x.x"},
		{3, 2, "x.x"},
		{9, 2, "x.......x"},
		{4, 3, "x.xx"},
		{10, 10, "x........x"},
		{11, 10, "xxxxx.xxxxx"},
		{12, 10, "xxx.xxxx.xxx"},
	}
	for _, c := range cases {
		var got strings.Builder
		for _, w := range wholeByCount(c.n, c.max) {
			if w {
				got.WriteByte('x')
			} else {
				got.WriteByte('.')
			}
		}
		if got.String() != c.want {
			t.Errorf("wholeByCount(%d, %d) = %s, want %s", c.n, c.max, got.String(), c.want)
		}
		if whole := strings.Count(got.String(), "x"); c.n > c.max && whole != c.max {
			t.Errorf("wholeByCount(%d, %d): %d whole, want %d", c.n, c.max, whole, c.max)
		}
	}
}

func TestNew(t *testing.T) {
	ctr := counter()
	for _, c := range []struct {
		opts Options
		err  string
	}{
		{Options{MaxReads: 1, Counter: ctr}, "max-reads must be 2 or more"},
		{Options{MaxReads: 0, Counter: ctr}, "max-reads must be 2 or more"},
		{Options{MaxReads: 5, KeepRecent: -1, Counter: ctr}, "keep-recent must be 0 or more"},
		{Options{MaxReads: 5}, "no token counter"},
		{Options{MaxReads: 2, Counter: ctr}, ""},
	} {
		_, err := New(c.opts)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("New(%+v) = %v, want %q", c.opts, err, c.err)
		}
	}
}

// goldenCases are the inputs of testdata/ and the options they run with.
var goldenCases = []struct {
	name, input string
	opts        func(*Options)
}{
	{"ranges", "ranges.jsonl", nil},
	{"edits", "edits.jsonl", nil},
	{"edits-no-diff", "edits.jsonl", func(o *Options) { o.NoDiff = true }},
	{"edits-keep-mirrors", "edits.jsonl", func(o *Options) { o.KeepMirrors = true }},
	{"failed", "failed.jsonl", nil},
	{"fourteen", "fourteen.jsonl", nil},
	{"fourteen-max-reads-2", "fourteen.jsonl", func(o *Options) { o.MaxReads = 2 }},
	{"fourteen-keep-recent", "fourteen.jsonl", func(o *Options) { o.KeepRecent = 8 }},
	{"codex", "codex.jsonl", nil},
	{"editor", "editor.json", nil},
	{"alltools", "alltools.jsonl", func(o *Options) { o.AllTools = true }},
	{"alltools-off", "alltools.jsonl", nil},
	{"ranges-keep-latest", "ranges.jsonl", func(o *Options) { o.Keep = KeepLatest }},
	{"edits-keep-latest", "edits.jsonl", func(o *Options) { o.Keep = KeepLatest }},
	{"codex-keep-latest", "codex.jsonl", func(o *Options) { o.Keep = KeepLatest }},
	{"fourteen-keep-first", "fourteen.jsonl", first},
	{"edits-archived", "edits.jsonl", func(o *Options) { o.Handle = invariant.Handles }},
	{"alltools-archived", "alltools.jsonl", func(o *Options) { o.AllTools = true; o.Handle = invariant.Handles }},
}

// TestGolden runs the inputs of testdata/ and pins what became of every
// result in testdata/<name>.golden; the outputs keep every invariant, and
// every pointer and diff holds.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			opts := defaults(t)
			if c.opts != nil {
				c.opts(&opts)
			}
			in := read(t, filepath.Join("testdata", c.input))
			out := invariant.Check(t, in, filter(t, opts))
			check(t, in, out, opts)
			f, _ := New(opts)
			tr := transcripttest.Parse(t, in)
			plan := f.Plan(tr)
			rep := f.Apply(tr)
			if rep.Changed != len(plan.Changes) || rep.Results != len(tr.Results) || rep.Detail != plan.detail() {
				t.Errorf("report %+v, plan of %d changes (%s)", rep, len(plan.Changes), plan.detail())
			}
			testutil.Golden(t, filepath.Join("testdata", c.name+".golden"), []byte(dump(tr, plan, opts)))
		})
	}
}

// dump renders what Apply did for a golden file: the report, then every
// result, whole ones by size and replaced ones in full with their mirrors.
func dump(tr *transcript.Transcript, rep Plan, opts Options) string {
	var b strings.Builder
	opt := ""
	if opts.Keep != "" {
		opt += ", keep " + string(opts.Keep)
	}
	if opts.Handle != nil {
		opt += ", archived"
	}
	fmt.Fprintf(&b, "options: max-reads %d, no-diff %v, all-tools %v, keep-recent %d, keep-mirrors %v%s\n",
		opts.MaxReads, opts.NoDiff, opts.AllTools, opts.KeepRecent, opts.KeepMirrors, opt)
	fmt.Fprintf(&b, "%s of %s; %s, %s, %s, %s\n", textfmt.Plural(rep.Reads, "read", "reads"), textfmt.Plural(rep.Files, "file", "files"),
		textfmt.Plural(rep.Count(Pointer), "pointer", "pointers"), textfmt.Plural(rep.Count(Covered), "covered read", "covered reads"),
		textfmt.Plural(rep.Count(Diff), "diff", "diffs"), textfmt.Plural(rep.Count(Repeat), "repeated call", "repeated calls"))
	changed := map[*transcript.Result]Change{}
	for _, c := range rep.Changes {
		changed[c.Result] = c
	}
	for _, r := range tr.Results {
		c := r.Call
		fmt.Fprintf(&b, "\n#%d %s %s (%s) %s", r.Index, r.CallID, c.Name, c.Kind, c.Args.Target(tr.Cwd))
		ch, ok := changed[r]
		if !ok {
			failed := ""
			if r.Failed() {
				failed = ", failed"
			}
			fmt.Fprintf(&b, ": whole, %s chars%s\n", textfmt.Int(len([]rune(r.Text()))), failed)
			continue
		}
		fmt.Fprintf(&b, ": %s of %s\n", [...]string{"pointer", "diff", "repeat", "covered"}[ch.Kind], ch.Base.CallID)
		for _, l := range strings.Split(r.Text(), "\n") {
			fmt.Fprintf(&b, "  | %s\n", l)
		}
		for _, m := range r.Mirrors() {
			fmt.Fprintf(&b, "  mirror %s: %.100q\n", m.Field, m.Text)
		}
	}
	return b.String()
}

// check checks what ctx-dedupe promises of out, the output for in, beyond
// the invariants of every filter: every new ctx-dedupe marker points at a
// call above (below, with KeepLatest) whose result is whole, unchanged, and
// identical to the text the marker replaced, or shows the same lines, or
// gives that text back with the diff that follows it, and with an archive
// cites the handle of the text it replaced; its mirrors carry its marker
// line; failed results and the last KeepRecent results are unchanged; the
// last read of every file and range is whole, or a pointer to the same
// text.
func check(t *testing.T, in, out []byte, opts Options) {
	t.Helper()
	if opts.Handle != nil {
		if err := invariant.Cites(in, out, opts.Handle); err != nil {
			t.Error(err)
		}
	}
	before, after := transcripttest.Parse(t, in), transcripttest.Parse(t, out)
	latest := opts.Keep == KeepLatest
	byID := map[string]*transcript.Result{}
	for _, r := range after.Results {
		byID[r.CallID] = r
	}
	type readKey struct {
		file string
		rng  tools.Range
	}
	last := map[readKey]int{}
	for i, r := range before.Results {
		if c := r.Call; c != nil && c.Kind == tools.Read && !r.Failed() && c.Args.File(before.Cwd) != "" {
			last[readKey{c.Args.File(before.Cwd), c.Args.Range}] = i
		}
	}
	isLast := map[int]bool{}
	for _, i := range last {
		isLast[i] = true
	}
	for i, r := range after.Results {
		old := before.Results[i]
		text := r.Text()
		if text == old.Text() {
			continue
		}
		line, _, _ := strings.Cut(text, "\n")
		switch {
		case old.Failed():
			t.Errorf("failed result %s changed", r.CallID)
		case isLast[i] && strings.Contains(line, ": changed ") && opts.Keep != KeepFirst:
			t.Errorf("last read %s became a diff", r.CallID)
		case i >= len(after.Results)-opts.KeepRecent:
			t.Errorf("%s is one of the last %d results, but changed", r.CallID, opts.KeepRecent)
		case !marker.Is(text, tool):
			t.Fatalf("%s changed without a ctx-dedupe marker: %.200q", r.CallID, text)
		}
		refs := marker.Refs(text)
		if len(refs) != 1 {
			t.Fatalf("%s names %d calls, want 1: %q", r.CallID, len(refs), text)
		}
		base := byID[refs[0]]
		if base == nil || marker.Is(base.Text(), "") || base.Text() != before.Results[base.Index].Text() {
			t.Fatalf("%s points at %s, which is not a whole, unchanged result", r.CallID, refs[0])
		}
		if below := strings.Contains(line, " below;"); below != (base.Index > r.Index) || below != latest {
			t.Fatalf("%s points at %s, on the wrong side of it: %q", r.CallID, refs[0], line)
		}
		switch {
		case strings.Contains(line, ": identical to the result of call "):
			if base.Text() != old.Text() {
				t.Errorf("%s says it is identical to %s, but is not", r.CallID, base.CallID)
			}
		case strings.Contains(line, ": the same text as "):
			if err := sameLines(line, base, old); err != nil {
				t.Errorf("%s: %v", r.CallID, err)
			}
		case strings.Contains(line, ": changed since the result of call "), strings.Contains(line, ": changed before the result of call "):
			got, err := rebuild(base.Text(), text)
			if err != nil || got != old.Text() {
				t.Errorf("%s: its diff against %s does not give its text back: %v", r.CallID, base.CallID, err)
			}
		default:
			t.Errorf("%s: unknown marker %q", r.CallID, line)
		}
		// A copy gets the marker line, citing the copy's own handle.
		for j, m := range r.Mirrors() {
			want := marker.Recite(line, opts.Handle.Of(before, old), opts.Handle.Mirror(before, old, old.Mirrors()[j]))
			if opts.KeepMirrors != (m.Text != want) {
				t.Errorf("%s: mirror %s is %.80q (keep mirrors: %v)", r.CallID, m.Field, m.Text, opts.KeepMirrors)
			}
		}
	}
}

// coveredRange reads the lines a covered read's marker names: "lines A-B
// of the file" or "the last N lines".
var coveredRange = regexp.MustCompile(`: the same text as (?:lines (\d+)-(\d+) of the file|the last ([\d,]+) lines?) in the result`)

// sameLines checks a covered read's marker: the lines it names, taken from
// the base's output, are the lines the replaced read showed.
func sameLines(line string, base, old *transcript.Result) error {
	m := coveredRange.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("no lines named in %q", line)
	}
	bx := &fileRead{r: base, rng: base.Call.Args.Range}
	ox := &fileRead{r: old, rng: old.Call.Args.Range}
	lb, fb := bx.shown()
	lo, fo := ox.shown()
	var from int
	switch {
	case m[3] != "":
		n, _ := strconv.Atoi(strings.ReplaceAll(m[3], ",", ""))
		from = len(lb) - n
	case fb == 0:
		return fmt.Errorf("%q names lines, but the base does not say where it starts", line)
	default:
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		if fo > 0 && fo != a || b-a+1 != len(lo) {
			return fmt.Errorf("%q: the read showed %d lines from line %d", line, len(lo), fo)
		}
		from = a - fb
	}
	if from < 0 || from+len(lo) > len(lb) || !slices.Equal(lb[from:from+len(lo)], lo) {
		return fmt.Errorf("%q: the lines named are not the lines the read showed", line)
	}
	return nil
}

// inputs are every fixture and every corpus file.
func inputs(t *testing.T) []string {
	return append(testutil.FixturesAndCorpus(t), filepath.Join(testutil.Root(t), "examples", "session.jsonl"))
}

// TestInvariants runs ctx-dedupe over every fixture and corpus file with
// several settings (the default only under -race or -short): every
// invariant of docs/model.md holds, and every pointer and diff holds.
func TestInvariants(t *testing.T) {
	settings := map[string]func(*Options){
		"default":  nil,
		"archived": func(o *Options) { o.Handle = invariant.Handles },
	}
	if !raceEnabled && !testing.Short() {
		settings["all-tools, max-reads 2"] = func(o *Options) { o.AllTools = true; o.MaxReads = 2 }
		settings["no-diff, keep-recent 10, keep-mirrors"] = func(o *Options) { o.NoDiff = true; o.KeepRecent = 10; o.KeepMirrors = true }
		settings["keep latest"] = func(o *Options) { o.Keep = KeepLatest }
		settings["keep first, all tools"] = func(o *Options) { o.Keep = KeepFirst; o.AllTools = true }
	}
	for _, path := range inputs(t) {
		in := read(t, path)
		for name, set := range settings {
			t.Run(testutil.Name(path)+"/"+name, func(t *testing.T) {
				opts := defaults(t)
				if set != nil {
					set(&opts)
				}
				out := invariant.Check(t, in, filter(t, opts))
				check(t, in, out, opts)
			})
		}
	}
}

// TestFindsRereads guards the corpus tests against passing by doing nothing:
// the shipped example session has re-reads that become diffs.
func TestFindsRereads(t *testing.T) {
	f, _ := New(defaults(t))
	rep := f.Plan(transcripttest.Parse(t, read(t, filepath.Join(testutil.Root(t), "examples", "session.jsonl"))))
	if rep.Count(Diff) == 0 {
		t.Errorf("example session: %d pointers, %d diffs; want diffs", rep.Count(Pointer), rep.Count(Diff))
	}
}

// session builds a small OpenAI transcript: one call and result per entry,
// "name args => output" with ! before the output for a failed call.
func session(entries ...string) []byte {
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range entries {
		call, out, _ := strings.Cut(e, " => ")
		name, args, _ := strings.Cut(call, " ")
		id := fmt.Sprintf("c%d", i+1)
		failed := strings.HasPrefix(out, "!")
		out = strings.TrimPrefix(out, "!")
		fmt.Fprintf(&b, `{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]},`+"\n", id, name, args)
		if failed {
			out = "<returncode>1</returncode>\n" + out
		}
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":%q,"content":%q}`, id, out)
		if i < len(entries)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return []byte(b.String())
}

// fates runs Apply and tells what became of each result: "=" whole, "p"
// pointer, "d" diff, "r" repeat, each followed by the number of the call it
// points at.
func fates(t *testing.T, in []byte, opts Options) string {
	t.Helper()
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := transcripttest.Parse(t, in)
	rep := f.Plan(tr)
	f.Apply(tr)
	got := make([]string, len(tr.Results))
	for i := range got {
		got[i] = "="
	}
	for _, c := range rep.Changes {
		got[c.Result.Index] = "pdrc"[c.Kind:c.Kind+1] + strings.TrimPrefix(c.Base.CallID, "c")
	}
	// The invariants of every filter are checked on the golden files and the
	// corpus; these are ctx-dedupe's own, and idempotence.
	out := tr.Bytes()
	check(t, in, out, opts)
	again, err := filter(t, opts)(out)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("a second run changed the output (%v)", err)
	}
	return strings.Join(got, " ")
}

func TestRules(t *testing.T) {
	big := strings.Repeat("some line of the file that is long enough\n", 20)
	big2 := big + "one more line\n"
	big3 := "a changed first line\n" + big2[strings.Index(big2, "\n")+1:]
	other := strings.Repeat("a different file altogether, all of it new\n", 20)
	read := func(path, out string) string { return `read_file {"path":"` + path + `"} => ` + out }
	cat := func(path, out string) string { return `bash {"command":"cat ` + path + `"} => ` + out }
	cases := []fateCase{
		{"one read", []string{read("a", big)}, nil, "="},
		{"an identical re-read points up", []string{read("a", big), read("a", big)}, nil, "= p1"},
		{"three: both point at the first", []string{read("a", big), read("a", big), read("a", big)}, nil, "= p1 p1"},
		{"relative and absolute, without a cwd", []string{read("/w/a", big), read("a", big), read("/w/./a", big)}, nil, "= = p1"},
		{"a changed middle becomes a diff", []string{read("a", big), read("a", big2), read("a", big2)}, nil, "= d1 ="},
		{"a diff against the last whole read", []string{read("a", big), read("a", big2), read("a", big3), read("a", big3)}, nil, "= d1 d1 ="},
		{"no-diff keeps changes whole", []string{read("a", big), read("a", big2), read("a", big2), read("a", big2)}, func(o *Options) { o.NoDiff = true }, "= = p2 p2"},
		{"a whole middle is a base", []string{read("a", big), read("a", other), read("a", other), read("a", big)}, nil, "= = p2 p1"},
		{"points at the latest identical whole read", []string{read("a", big), read("a", other), read("a", big), read("a", big)}, nil, "= = p1 p1"},
		{"tiny reads are not worth a pointer", []string{read("a", "x"), read("a", "x"), read("a", "x")}, nil, "= = ="},
		{"other files are other reads", []string{read("a", big), read("b", big), read("a", big), read("b", big), read("a", big)}, nil, "= = p1 p2 p1"},
		{"failed reads stay, and are no bases", []string{cat("a", "!"+big), read("a", big), cat("a", "!"+big), read("a", big), cat("a", "!"+big), read("a", big)}, nil, "= = = p2 = p2"},
		{"keep-recent", []string{read("a", big), read("a", big), read("a", big), read("a", big)}, func(o *Options) { o.KeepRecent = 2 }, "= p1 = ="},
		{"repeated calls only with all-tools", []string{`bash {"command":"ls"} => ` + other, `bash {"command":"ls"} => ` + other}, nil, "= ="},
		{"repeated calls", []string{`bash {"command":"ls"} => ` + other, `bash {"command":"ls"} => ` + other, `bash {"command":"ls -a"} => ` + other, `bash {"command":"ls"} => ` + other + "x"}, func(o *Options) { o.AllTools = true }, "= r1 = ="},
		{"repeated failures stay", []string{`bash {"command":"make"} => !` + other, `bash {"command":"make"} => !` + other}, func(o *Options) { o.AllTools = true }, "= ="},
		{"edits are never repeats", []string{`write_file {"path":"a","content":"x"} => ` + other, `write_file {"path":"a","content":"x"} => ` + other}, func(o *Options) { o.AllTools = true }, "= ="},
		{"reads are not repeats", []string{read("a", big), read("a", big)}, func(o *Options) { o.AllTools = true }, "= p1"},
	}
	runFates(t, cases)
}

// TestCoveredReads: a read whose lines a whole read of the file showed,
// the same, points at them, whatever tools made the two reads.
func TestCoveredReads(t *testing.T) {
	lines := make([]string, 60)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the file, long enough to be worth a pointer", i+1)
	}
	span := func(from, to int) string { return strings.Join(lines[from-1:to], "\n") + "\n" }
	numbered := func(sep string, from, to int) string { return testutil.NumberLines(from, sep, lines[from-1:to]...) }
	sh := func(cmd, out string) string { return `bash {"command":"` + cmd + `"} => ` + out }
	whole := sh("cat a.py", span(1, 60))
	edited := strings.Replace(span(1, 60), "line 15 of", "line fifteen of", 1)
	cases := []fateCase{
		{"sed -n in a whole cat", []string{whole, sh("sed -n '10,20p' a.py", span(10, 20))}, nil, "= c1"},
		{"head in a whole cat", []string{whole, sh("head -30 a.py", span(1, 30))}, nil, "= c1"},
		{"tail in a whole cat", []string{whole, sh("tail -n 25 a.py", span(36, 60))}, nil, "= c1"},
		{"a range in a range", []string{sh("sed -n '1,40p' a.py", span(1, 40)), sh("sed -n '10,30p' a.py", span(10, 30))}, nil, "= c1"},
		{"nl -ba | sed -n in cat -n", []string{sh("cat -n a.py", numbered("\t", 1, 60)), sh("nl -ba a.py | sed -n '10,30p'", numbered("\t", 10, 30))}, nil, "= c1"},
		{"plain in numbered", []string{`read_file {"path":"a.py"} => ` + numbered("→", 1, 60), sh("sed -n '10,30p' a.py", span(10, 30))}, nil, "= c1"},
		{"numbered in plain", []string{whole, `read_file {"path":"a.py","start_line":10,"end_line":30} => ` + numbered("→", 10, 30)}, nil, "= c1"},
		{"the file changed in between", []string{whole, sh("sed -n '10,20p' a.py", strings.Replace(span(10, 20), "line 15 of", "line fifteen of", 1))}, nil, "= ="},
		{"changed elsewhere: the lines are the same", []string{whole, sh("sed -n '20,30p' a.py", span(20, 30))}, nil, "= c1"},
		{"the latest whole read", []string{whole, sh("cat a.py", edited), sh("sed -n '10,20p' a.py", strings.Replace(span(10, 20), "line 15 of", "line fifteen of", 1))}, nil, "= = c2"},
		{"a range that does not hold it", []string{sh("sed -n '1,20p' a.py", span(1, 20)), sh("sed -n '10,30p' a.py", span(10, 30))}, nil, "= ="},
		{"other files", []string{whole, sh("sed -n '10,20p' b.py", span(10, 20))}, nil, "= ="},
		{"keep latest: a pointer down", []string{sh("sed -n '10,20p' a.py", span(10, 20)), whole}, func(o *Options) { o.Keep = KeepLatest }, "c2 ="},
		{"keep latest: identical, and a diff down", []string{sh("cat a.py", edited), whole, whole}, func(o *Options) { o.Keep = KeepLatest }, "d3 p3 ="},
		{"keep latest: no samples", []string{whole, whole, whole, whole, whole, whole, whole}, func(o *Options) { o.Keep = KeepLatest }, "p7 p7 p7 p7 p7 p7 ="},
		{"keep latest: repeated calls point down", []string{sh("git log", span(1, 40)), sh("git log", span(1, 40)), sh("git log", span(1, 40))}, func(o *Options) { o.Keep = KeepLatest; o.AllTools = true }, "r3 r3 ="},
		{"keep latest: keep-recent", []string{whole, whole, whole}, func(o *Options) { o.Keep = KeepLatest; o.KeepRecent = 2 }, "p2 = ="},
		{"keep first: no samples, the last points up", []string{whole, whole, whole, whole, whole, whole, whole}, first, "= p1 p1 p1 p1 p1 p1"},
		{"keep first: a diff, then a pointer to the first", []string{whole, sh("cat a.py", edited), whole}, first, "= d1 p1"},
		{"keep first: covered, up", []string{whole, sh("sed -n '10,20p' a.py", span(10, 20))}, first, "= c1"},
		{"keep first: a range read first stays whole", []string{sh("sed -n '10,20p' a.py", span(10, 20)), whole}, first, "= ="},
		{"keep first, within 2: only at a near read", []string{whole, sh("ls", span(1, 3)), sh("ls -a", span(1, 4)), whole, whole}, func(o *Options) { o.Keep = KeepFirst; o.Within = 2 }, "= = = = p4"},
		{"keep first, within 3", []string{whole, sh("ls", span(1, 3)), sh("ls -a", span(1, 4)), whole, whole}, func(o *Options) { o.Keep = KeepFirst; o.Within = 3 }, "= = = p1 ="},
		{"keep first: repeated calls point up", []string{sh("git log", span(1, 40)), sh("git log", span(1, 40)), sh("git log", span(1, 40))}, func(o *Options) { o.Keep = KeepFirst; o.AllTools = true }, "= r1 r1"},
	}
	runFates(t, cases)
}

// first sets the first-read rule.
func first(o *Options) { o.Keep = KeepFirst }

// fateCase is a session of entries (see session), the options to run it
// with, and the fates of its results (see fates).
type fateCase struct {
	name    string
	entries []string
	opts    func(*Options)
	want    string
}

// runFates runs each case with the defaults and its options.
func runFates(t *testing.T, cases []fateCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := defaults(t)
			if c.opts != nil {
				c.opts(&opts)
			}
			if got := fates(t, session(c.entries...), opts); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestLeavesMarkersAlone runs ctx-dedupe over results that other filters
// replaced or point at: a marker is never replaced nor pointed at, and a
// result that a marker names is never replaced.
func TestLeavesMarkersAlone(t *testing.T) {
	big := strings.Repeat("the same content, line after line\n", 30)
	read := `read_file {"path":"a"} => `
	in := session(
		read+big,
		read+"[ctx-truncate] 1,020 chars, 30 lines; cut here.",
		read+big,
		`note {} => [ctx-summarize] see call c3 for the file.`,
		read+big,
		read+big,
	)
	if got, want := fates(t, in, defaults(t)), "= = = = p3 p3"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestOddIDs leaves alone the calls that a pointer could not name without
// doubt.
func TestOddIDs(t *testing.T) {
	big := strings.Repeat("the same content, line after line\n", 30)
	in := string(session(`read_file {"path":"a"} => `+big, `read_file {"path":"a"} => `+big, `read_file {"path":"a"} => `+big))
	// The first call is left alone; the third points at the second, unless
	// the second shares its id with the first.
	for name, c := range map[string]struct{ id, want string }{"a space": {"c 1", "= = p2"}, "one char": {"x", "= = p2"}, "a shared id": {"c2", "= = ="}} {
		odd := []byte(strings.ReplaceAll(in, `"c1"`, `"`+c.id+`"`))
		if got := fates(t, odd, defaults(t)); got != c.want {
			t.Errorf("%s: got %s, want %s", name, got, c.want)
		}
	}
}

func TestMarkerLines(t *testing.T) {
	rng := tools.Range{Start: 1, End: 200}
	got := []string{
		pointerLine("src/app.go", rng, "a\nb\n", "toolu_01AB", false),
		diffLine("src/app.go", tools.Range{}, "a", "toolu_01AB", true, false),
		diffLine("src/app.go", tools.Range{}, "", "call_9", false, false),
		coveredLine("src/app.go", tools.Range{Start: 50, End: 51}, "a\nb\n", "toolu_01AB", 50, 2, false),
		coveredLine("src/app.go", tools.Range{Last: 1}, "a\n", "toolu_01AB", 0, 1, false),
		pointerLine("src/app.go", rng, "a\nb\n", "toolu_01CD", true),
		diffLine("src/app.go", tools.Range{}, "a", "toolu_01CD", true, true),
		coveredLine("src/app.go", tools.Range{Start: 50, End: 51}, "a\nb\n", "toolu_01CD", 50, 2, true),
		repeatLine("Bash", "git status", "x\n", "toolu_01AB", false),
		repeatLine("list", "", "x\ny", "c1", true),
	}
	want := []string{
		"[ctx-dedupe] Re-read of src/app.go (lines 1-200; 4 chars, 2 lines): identical to the result of call toolu_01AB above; content not repeated here.",
		"[ctx-dedupe] Re-read of src/app.go (1 chars, 1 line): changed since the result of call toolu_01AB above; content not repeated here, only a unified diff against it follows (line numbers stripped).",
		"[ctx-dedupe] Re-read of src/app.go (0 chars, 0 lines): changed since the result of call call_9 above; content not repeated here, only a unified diff against it follows.",
		"[ctx-dedupe] Re-read of src/app.go (lines 50-51; 4 chars, 2 lines): the same text as lines 50-51 of the file in the result of call toolu_01AB above; content not repeated here.",
		"[ctx-dedupe] Re-read of src/app.go (last 1 lines; 2 chars, 1 line): the same text as the last 1 line in the result of call toolu_01AB above; content not repeated here.",
		"[ctx-dedupe] Earlier read of src/app.go (lines 1-200; 4 chars, 2 lines): identical to the result of call toolu_01CD below; content not repeated here.",
		"[ctx-dedupe] Earlier read of src/app.go (1 chars, 1 line): changed before the result of call toolu_01CD below; content not repeated here, only a unified diff against it follows (line numbers stripped).",
		"[ctx-dedupe] Earlier read of src/app.go (lines 50-51; 4 chars, 2 lines): the same text as lines 50-51 of the file in the result of call toolu_01CD below; content not repeated here.",
		"[ctx-dedupe] Repeated Bash call (git status), 2 chars, 1 line of output: identical to the result of call toolu_01AB above; not repeated here.",
		"[ctx-dedupe] Repeated list call, 3 chars, 2 lines of output: identical to the result of call c1 below; not repeated here.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("marker lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if refs := marker.Refs(l); len(refs) != 1 {
			t.Errorf("%q names %v", l, refs)
		}
	}
}

func TestShorter(t *testing.T) {
	f, _ := New(defaults(t))
	a := &apply{Filter: f, counts: map[string]int{}}
	marker := "[ctx-dedupe] Re-read of a.go (600 chars, 1 line): identical to the result of call toolu_01AB above; content not repeated here."
	cases := []struct {
		name, text, old string
		want            bool
	}{
		{"fewer bytes and tokens", marker, strings.Repeat("ab", 300), true},
		{"more bytes", marker, "short", false},
		{"as many bytes", "abc", "xyz", false},
		// 600 chars of "=" are 10 tokens: fewer than the marker's.
		{"fewer bytes, more tokens", marker, strings.Repeat("=", 600), false},
		{"so many bytes it must have more tokens", marker, strings.Repeat("=", 128*len(marker)+1), true},
	}
	for _, c := range cases {
		if got := a.shorter(c.text, c.old); got != c.want {
			t.Errorf("%s: shorter = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMaxTokenBytes checks shorter's bound on the texts that make the
// longest tokens: no token of any encoding is longer than maxTokenBytes.
func TestMaxTokenBytes(t *testing.T) {
	for _, name := range tokens.Names() {
		ctr, err := tokens.New(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{" ", "=", "-", "\n", "\t", "a", "0", "é", "//", "ab"} {
			text := strings.Repeat(s, 4096)
			if n := ctr.Count(text); n*maxTokenBytes < len(text) {
				t.Errorf("%s: %d bytes of %q are %d tokens, more than %d bytes a token", name, len(text), s, n, maxTokenBytes)
			}
		}
	}
}

// FuzzRereads builds sessions of reads, shell reads, failed reads and
// repeated calls from the fuzzer's bytes and checks what ctx-dedupe makes of
// them: every pointer and diff holds, the last reads and failures stay, and
// a second run changes nothing.
func FuzzRereads(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 0, 6, 0}, 5)
	f.Add([]byte{1, 4, 7, 10, 1, 4, 7, 2, 2, 2}, 2)
	f.Add([]byte{0, 9, 18, 27, 36, 45, 54, 63, 72, 81, 90, 99, 108, 117}, 5)
	f.Fuzz(func(t *testing.T, ops []byte, maxReads int) {
		if len(ops) > 40 || maxReads < 2 || maxReads > 8 {
			return
		}
		lines := make([]string, 60)
		for i := range lines {
			lines[i] = fmt.Sprintf("line %d of the file, long enough to be worth a pointer", i)
		}
		var entries []string
		for _, op := range ops {
			file := "abc"[op%3 : op%3+1]
			if op%4 == 0 {
				lines[int(op)%len(lines)] += "!" // an edit, now and then of the same line
			}
			text := strings.Join(lines[:20+int(op)%40], "\n")
			switch op / 3 % 7 {
			case 0, 1:
				entries = append(entries, `read_file {"path":"`+file+`"} => `+text)
			case 2:
				entries = append(entries, `read_file {"path":"`+file+`","start_line":1,"end_line":20} => `+strings.Join(lines[:20], "\n"))
			case 3:
				entries = append(entries, `bash {"command":"cat `+file+`"} => !no such file`)
			case 4:
				entries = append(entries, `bash {"command":"git status"} => `+strings.Join(lines[:int(op)%4+10], "\n"))
			case 5:
				from := 1 + int(op)%20
				entries = append(entries, fmt.Sprintf(`bash {"command":"sed -n '%d,%dp' %s"} => %s`, from, from+14, file, strings.Join(lines[from-1:from+14], "\n")+"\n"))
			default:
				entries = append(entries, `read_file {"path":"/w/`+file+`"} => `+text)
			}
		}
		if len(entries) == 0 {
			return
		}
		opts := Options{MaxReads: maxReads, AllTools: ops[0]%2 == 0, NoDiff: ops[0]%5 == 4, KeepRecent: int(ops[0] % 3), Counter: counter()}
		if ops[len(ops)-1]%2 == 1 {
			opts.Keep = KeepLatest
		}
		fates(t, session(entries...), opts)
	})
}

// TestSharedIDs: calls that share an id are neither replaced nor pointed
// at (a marker names a call by its id), and the plan counts what that left
// whole, with one such id; unique ids leave nothing to count.
func TestSharedIDs(t *testing.T) {
	long := strings.Repeat("func f() int { return 1 }\n", 30)
	in := session(`read_file {"path":"a.go"} => `+long, `read_file {"path":"a.go"} => `+long, `read_file {"path":"a.go"} => `+long)
	opts := defaults(t)
	opts.Keep = KeepFirst
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Plan(transcripttest.Parse(t, in)); len(p.Changes) != 2 || p.Shared != 0 || p.SharedID != "" {
		t.Fatalf("unique ids: %d changes, %d shared (%q); want 2, 0", len(p.Changes), p.Shared, p.SharedID)
	}
	shared := bytes.ReplaceAll(bytes.ReplaceAll(in, []byte(`"c2"`), []byte(`"c1"`)), []byte(`"c3"`), []byte(`"c1"`))
	tr := transcripttest.Parse(t, shared)
	if p := f.Plan(tr); len(p.Changes) != 0 || p.Shared != 2 || p.SharedID != "c1" {
		t.Fatalf("one id for every call: %d changes, %d shared (%q); want 0, 2, c1", len(p.Changes), p.Shared, p.SharedID)
	}
	rep := f.Apply(tr)
	if rep.Changed != 0 || rep.Shared != 2 || !strings.Contains(rep.Detail, "2 left whole: their calls share ids") {
		t.Errorf("report %+v: want nothing changed, and why", rep)
	}
}
