package compact

import "testing"

// FuzzOwnMarkers: any text, read as a result or as a call's arguments,
// gives a count or nothing, never a panic; a summary made of any text
// reads back the count it was made with.
func FuzzOwnMarkers(f *testing.F) {
	for _, s := range []string{"[ctx-summarize] Read a.go: 3 lines", "[ctx-compact] 12 tokens summarized: x", "[ctx-summarize, model m] x",
		`{"ctx-summarize":"[ctx-compact] 1,204 tokens of arguments left out: x"}`, "[ctx-", "]", ""} {
		f.Add(s, 42)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		ownTokens(s)
		ownStubTokens(s)
		if n < 0 {
			return
		}
		if got, ok := ownTokens(summaryText(s, n)); !ok || got != n {
			t.Fatalf("summaryText(%q, %d) reads back %d, %v", s, n, got, ok)
		}
	})
}
