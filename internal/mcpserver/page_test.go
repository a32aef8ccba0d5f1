package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/archive"
	"github.com/ctxkit/ctxkit/internal/recall"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// archived stores outputs in a new archive, as the results of calls
// call_page_0000000000, call_page_0000000001, ...
func archived(t *testing.T, outputs ...string) string {
	t.Helper()
	var msgs []string
	for i, out := range outputs {
		id := fmt.Sprintf("call_page_%010d", i)
		text, _ := json.Marshal(out)
		msgs = append(msgs, `{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cat big\"}"}}]}`,
			`{"role":"tool","tool_call_id":"`+id+`","content":`+string(text)+`}`)
	}
	tr := transcripttest.Parse(t, []byte("["+strings.Join(msgs, ",\n")+"]"))
	path := filepath.Join(t.TempDir(), "archive.db")
	a, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Store(archive.Executions(tr, tr.Results)); err != nil {
		t.Fatal(err)
	}
	return path
}

// next reads the note that ends a page: what to ask for next.
var next = regexp.MustCompile(`\[memory_query\] [^\n]*; for more, call memory_query with id=(\S+) range=(\d+),(\d+)(?: offset=(\d+))?\.$`)

// TestPageThrough: following the notes that end the pages, a model gets
// every byte of an output back, whatever its lines, a line longer than a
// page included.
func TestPageThrough(t *testing.T) {
	long := strings.Repeat("0123456789", 10_500) // 105,000 bytes on one line
	wide := strings.Repeat("é€😀", 12_000)        // 108,000 bytes of 2-, 3- and 4-byte characters
	outputs := []string{
		long,
		long + "\n",
		"first\nsecond\n" + long + "\nafter\n" + long,
		strings.Repeat(strings.Repeat("y", 99)+"\n", 1000),
		wide,
		strings.Repeat("\x80", 50_000) + "\n" + wide[:20_001], // not UTF-8, and a character cut at the end
		strings.Repeat("z", maxChars) + "\n" + strings.Repeat("z", maxChars+1),
	}
	path := archived(t, outputs...)
	a, err := archive.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := range outputs {
		id := fmt.Sprintf("call_page_%010d", i)
		// What the archive holds: the transcript's JSON made the bytes
		// that are not UTF-8 U+FFFD.
		rec, err := a.Get(id, "")
		if err != nil {
			t.Fatal(err)
		}
		want := *rec.Output
		args := recall.Args{ID: id}
		var got strings.Builder
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatalf("output %d: more than 20 pages", i)
			}
			text, err := answer(context.Background(), path, args)
			if err != nil {
				t.Fatalf("output %d, %+v: %v", i, args, err)
			}
			m := next.FindStringSubmatchIndex(text)
			if m == nil {
				got.WriteString(text)
				break
			}
			shown := text[:m[0]]
			if m[8] >= 0 {
				shown = strings.TrimSuffix(shown, "\n") // the note's own line
			}
			got.WriteString(shown)
			sub := func(k int) string {
				if m[2*k] < 0 {
					return ""
				}
				return text[m[2*k]:m[2*k+1]]
			}
			offset, _ := strconv.Atoi(sub(4))
			args = recall.Args{ID: sub(1), Range: sub(2) + "," + sub(3), Offset: offset}
		}
		if got.String() != want {
			t.Errorf("output %d: paged through, %d bytes of the %d", i, got.Len(), len(want))
		}
	}
}

// TestPastTheEnd: a range or an offset past the end of the output is an
// error that says how long the output is, not an empty answer.
func TestPastTheEnd(t *testing.T) {
	path := archived(t, "one\ntwo\n")
	for _, c := range []struct {
		args recall.Args
		want string
	}{
		{recall.Args{ID: "call_page_0000000000", Range: "3,4"}, "2 lines"},
		{recall.Args{ID: "call_page_0000000000", Offset: 8}, "8 bytes"},
		{recall.Args{ID: "call_page_0000000000", Range: "2,2", Offset: 4}, "4 bytes"},
	} {
		if got, err := answer(context.Background(), path, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %q, %v; want an error saying %s", c.args, got, err, c.want)
		}
	}
}
