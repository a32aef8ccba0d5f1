package sessionpage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/pricetest"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// FuzzPage feeds the page writer a session whose texts are the fuzzer's:
// the user's text, thinking, the model's name, tool names, paths,
// commands, patterns and outputs (some replaced by a filter's marker),
// and checks that the page stays well-formed with nothing but its own
// elements: whatever a transcript holds shows as text.
func FuzzPage(f *testing.F) {
	for _, s := range []string{"</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", `" onmouseover="x`, "]]>&amp;\x1b[31m\u2028", "\x00\xff\ufffe", "<!--", "\r\n\t"} {
		f.Add(s, "<b>x</b>")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		data := fuzzSession(a, b)
		tr, err := transcript.Parse(data, transcript.Options{})
		if err != nil {
			t.Fatalf("the session does not parse: %v\n%s", err, data)
		}
		checkPage(t, write(t, Build(tr, options(t, a, data, tr, pricetest.HandPrices(t)))))
	})
}

// fuzzSession is a Claude Code session holding a and b in every text the
// page could show.
func fuzzSession(a, b string) []byte {
	var lines []string
	add := func(v map[string]any) {
		out, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		lines = append(lines, string(out))
	}
	msg := func(typ, model string, content any) map[string]any {
		m := map[string]any{"role": typ, "content": content}
		if typ == "assistant" {
			m["model"], m["id"] = model, "msg_"+strings.Repeat("x", len(lines))
			m["usage"] = map[string]any{"input_tokens": 3, "cache_read_input_tokens": 100 * len(lines), "cache_creation_input_tokens": 50, "output_tokens": 10}
		}
		return map[string]any{"type": typ, "sessionId": b, "cwd": a, "message": m, "timestamp": "2026-03-01T10:00:00Z"}
	}
	add(msg("user", "", a+b))
	calls := []struct {
		name  string
		input map[string]any
		out   string
		err   bool
	}{
		{"Bash", map[string]any{"command": a}, b, true},
		{"Read", map[string]any{"file_path": a + "/" + b}, a, false},
		{"Grep", map[string]any{"pattern": b, "path": a}, b + "\n" + a, false},
		{b, map[string]any{a: b}, "[ctx-dedupe] " + a, false},
		{"Edit", map[string]any{"file_path": b, "old_string": a, "new_string": b}, "The user doesn't want to proceed with this tool use. " + a, true},
	}
	for i, c := range calls {
		id := "toolu_" + strings.Repeat(string(rune('a'+i)), 20)
		add(msg("assistant", a, []any{
			map[string]any{"type": "thinking", "thinking": b, "signature": "s"},
			map[string]any{"type": "text", "text": a},
			map[string]any{"type": "tool_use", "id": id, "name": c.name, "input": c.input}}))
		add(msg("user", "", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": c.out, "is_error": c.err}}))
	}
	add(msg("assistant", a, b))
	return []byte(strings.Join(lines, "\n") + "\n")
}
