package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCallTimeout: a memory_query that runs past callTimeout is stopped
// and answered with a tool error that says so and how to narrow it; a
// search of many words is one the archive refuses, as a tool error.
func TestCallTimeout(t *testing.T) {
	path := archived(t, "an output of words", "another output")
	run := func(args string) string {
		t.Helper()
		var out bytes.Buffer
		in := strings.NewReader(initialize + "\n" + initialized + "\n" + call(2, args) + "\n")
		if err := Serve(context.Background(), path, "test", in, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got := run(`{"query":"` + strings.Repeat("words ", 5000) + `"}`); !strings.Contains(got, `\"total\": 1`) {
		t.Errorf("a word 5,000 times: %s", got)
	}
	var distinct strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&distinct, "w%d ", i)
	}
	if got := run(`{"query":"` + distinct.String() + `"}`); !strings.Contains(got, `"isError":true`) ||
		!strings.Contains(got, "more than the 64 a query holds") {
		t.Errorf("5,000 words: %s", got)
	}

	defer func(d time.Duration) { callTimeout = d }(callTimeout)
	callTimeout = time.Nanosecond
	for _, args := range []string{`{"query":"words"}`, `{"id":"call_page_0000000000"}`} {
		if got := run(args); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "the search took more than 1ns and was stopped: narrow it") {
			t.Errorf("memory_query %s past its time: %s", args, got)
		}
	}
}
