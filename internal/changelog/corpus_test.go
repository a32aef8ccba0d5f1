package changelog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestEveryEditOnce checks, on every corpus file and fixture, that every
// successful edit or write appears in the changelog exactly once for each
// file it changes, and nothing else does. The expected calls are found
// independently of the model and of this package: from the raw JSON with
// encoding/json, by tool name and, for shell tools, by the command's shape.
func TestEveryEditOnce(t *testing.T) {
	files := append(fixtures(t), testutil.CorpusIfPresent(t)...)
	total := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := rawEdits(t, data)
		h := Analyze(transcripttest.Load(t, path), path, Options{})
		rep := NewChangelog([]*History{h}, ReportOptions{})
		got := map[string]int{}
		for _, f := range rep.Changelogs[0].Files {
			for _, c := range f.Changes {
				got[c.CallID]++
			}
		}
		for id, n := range want {
			if got[id] != n {
				t.Errorf("%s: call %s appears %d times, want %d (once per file it changes)", testutil.Name(path), id, got[id], n)
			}
		}
		for id, n := range got {
			if want[id] == 0 {
				t.Errorf("%s: call %s appears %d times but is not a successful edit", testutil.Name(path), id, n)
			}
			total += n
		}
		t.Logf("%s: %d successful edits and writes", testutil.Name(path), len(want))
	}
	if total == 0 {
		t.Fatal("no edits at all: the test checks nothing")
	}
}

// rawCall is a tool call as the raw JSON has it, in any of the formats.
type rawCall struct {
	id, name string
	input    map[string]any // JSON arguments
	text     string         // a custom tool's free-form input
}

// rawEdits finds the successful edit and write calls of a transcript and
// how many files each changes, reading the JSON with encoding/json.
func rawEdits(t *testing.T, data []byte) map[string]int {
	var values []map[string]any
	trimmed := strings.TrimSpace(string(data))
	var traj struct{ History []map[string]any }
	if strings.HasPrefix(trimmed, "{") && json.Unmarshal(data, &traj) == nil && traj.History != nil {
		return rawActionEdits(traj.History)
	}
	switch {
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(data, &values); err != nil {
			t.Fatal(err)
		}
	case strings.HasPrefix(trimmed, "{") && strings.Contains(strings.SplitN(trimmed, "\n", 2)[0], `"messages"`) || !strings.Contains(trimmed, "\n{"):
		var doc struct{ Messages []map[string]any }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		values = doc.Messages
	default:
		for _, line := range strings.Split(trimmed, "\n") {
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatal(err)
			}
			values = append(values, v)
		}
	}
	var calls []rawCall
	ok := map[string]bool{} // call id → its result says it succeeded
	for _, v := range values {
		if m, isMap := v["message"].(map[string]any); isMap {
			v = m // Claude Code
		}
		if p, isMap := v["payload"].(map[string]any); isMap {
			v = p // Codex
		}
		switch v["type"] {
		case "function_call":
			var in map[string]any
			_ = json.Unmarshal([]byte(str(v["arguments"])), &in)
			calls = append(calls, rawCall{id: str(v["call_id"]), name: str(v["name"]), input: in})
		case "custom_tool_call":
			calls = append(calls, rawCall{id: str(v["call_id"]), name: str(v["name"]), text: str(v["input"])})
		case "function_call_output", "custom_tool_call_output":
			var out struct {
				Metadata struct {
					ExitCode int `json:"exit_code"`
				}
			}
			_ = json.Unmarshal([]byte(str(v["output"])), &out)
			ok[str(v["call_id"])] = out.Metadata.ExitCode == 0
		}
		if v["role"] == "tool" { // OpenAI
			ok[str(v["tool_call_id"])] = !strings.Contains(str(v["content"]), "<returncode>") || strings.HasPrefix(str(v["content"]), "<returncode>0</returncode>")
		}
		if tcs, isList := v["tool_calls"].([]any); isList {
			for _, tc := range tcs {
				fn, _ := tc.(map[string]any)["function"].(map[string]any)
				var in map[string]any
				_ = json.Unmarshal([]byte(str(fn["arguments"])), &in)
				calls = append(calls, rawCall{id: str(tc.(map[string]any)["id"]), name: str(fn["name"]), input: in})
			}
		}
		if blocks, isList := v["content"].([]any); isList { // Anthropic blocks
			for _, b := range blocks {
				b, _ := b.(map[string]any)
				switch b["type"] {
				case "tool_use":
					in, _ := b["input"].(map[string]any)
					calls = append(calls, rawCall{id: str(b["id"]), name: str(b["name"]), input: in})
				case "tool_result":
					ok[str(b["tool_use_id"])] = b["is_error"] != true
				}
			}
		}
	}
	want := map[string]int{}
	for _, c := range calls {
		if n := filesChanged(c); n > 0 && ok[c.id] {
			want[c.id] = n
		}
	}
	return want
}

// rawActionEdits finds the edits of a SWE-agent trajectory's history: an
// assistant's action that edits, creates or inserts (or is
// str_replace_editor, but not its view), whose observation follows it. Its
// id is its tool call's, or step-N for the Nth action.
func rawActionEdits(history []map[string]any) map[string]int {
	want := map[string]int{}
	open, steps, files := "", 0, 1
	for _, m := range history {
		action := strings.TrimSpace(str(m["action"]))
		switch {
		case m["role"] == "assistant" && action != "":
			steps++
			open, files = "", 1
			id := fmt.Sprintf("step-%d", steps)
			if tcs, isList := m["tool_calls"].([]any); isList && len(tcs) > 0 {
				id = str(tcs[0].(map[string]any)["id"])
			}
			switch words := strings.Fields(action); words[0] {
			case "edit", "create", "insert":
				open = id
			case "rm":
				files = len(words) - 1
				open = id
			case "str_replace_editor":
				if len(words) > 1 && words[1] != "view" {
					open = id
				}
			}
			continue
		case open != "" && (m["role"] == "user" || m["role"] == "tool"):
			// SWE-agent's commands report a refused edit with "Error:",
			// its linter with "Your proposed edit has introduced new
			// syntax error(s)".
			out := strings.TrimSpace(str(m["content"]))
			if !strings.HasPrefix(out, "Error:") && !strings.HasPrefix(out, "Your proposed edit") {
				want[open] = files
			}
		}
		open, files = "", 1
	}
	return want
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

var (
	patchFileHeader = regexp.MustCompile(`(?m)^\*\*\* (?:Add|Update|Delete) File: `)
	// A shell edit: one command, perhaps after cd DIR &&, that writes a
	// file from a heredoc, edits one in place with sed, or applies a patch.
	// A removal: rm (or git rm) of files named plainly.
	shellRemove = regexp.MustCompile(`^(?:cd \S+ && )?(?:git )?rm(?: -\S+)*((?: [^\s*?$'"-][^\s*?$'"]*)+)$`)
	shellEdit   = regexp.MustCompile(`^(?:cd \S+ && )?(?:cat >>? ?\S+ <<-? ?'?(\w+)'?\n|sed -i\S* (?:'[^']*'|"[^"]*") \S+$|apply_patch <<'?(\w+)'?\n)`)
)

// filesChanged is how many files a successful call of this shape changes;
// 0 for a call that is not an edit or a write.
func filesChanged(c rawCall) int {
	switch c.name {
	case "Edit", "MultiEdit", "Write", "edit_file", "write_file", "NotebookEdit":
		return 1
	case "str_replace_based_edit_tool", "str_replace_editor":
		if c.input["command"] == "view" {
			return 0
		}
		return 1
	case "apply_patch":
		if c.text == "" {
			c.text = str(c.input["input"])
		}
		return len(patchFileHeader.FindAllString(c.text, -1))
	case "Bash", "shell", "exec_command", "bash":
		cmd := str(c.input["command"])
		if cmd == "" {
			cmd = str(c.input["cmd"])
		}
		if argv, isList := c.input["command"].([]any); isList && len(argv) == 2 && argv[0] == "apply_patch" {
			return len(patchFileHeader.FindAllString(str(argv[1]), -1))
		}
		if m := shellRemove.FindStringSubmatch(cmd); m != nil {
			return len(strings.Fields(m[1]))
		}
		m := shellEdit.FindStringSubmatch(cmd)
		if m == nil {
			return 0
		}
		// Nothing may follow the heredoc's end: a script that runs more
		// than one command is not one edit.
		if end := m[1] + m[2]; end != "" && !strings.HasSuffix(strings.TrimRight(cmd, "\n"), "\n"+end) {
			return 0
		}
		if m[2] != "" {
			return len(patchFileHeader.FindAllString(cmd, -1))
		}
		return 1
	}
	return 0
}

// TestReplayMatchesReads checks the replay against the transcript itself:
// wherever a whole read of a file follows changes to it, the file replayed
// to the last change before the read is what the read shows.
func TestReplayMatchesReads(t *testing.T) {
	files := append(fixtures(t), filepath.Join(testutil.Root(t), "examples", "session.jsonl"))
	files = append(files, testutil.CorpusIfPresent(t)...)
	exact, formatted := 0, 0
	for _, path := range files {
		tr := transcripttest.Load(t, path)
		h := Analyze(tr, path, Options{})
		last := map[string]Change{} // the last successful change of each file
		for _, c := range h.Changes {
			if c.Failed {
				continue
			}
			if c.Action != Read {
				last[c.Path] = c
				continue
			}
			prev, changed := last[c.Path]
			if !c.FullContent || !changed {
				continue
			}
			read, err := At(tr, c.Path, c.CallID)
			if err != nil {
				t.Fatalf("%s: at the whole read %s: %v", testutil.Name(path), c.CallID, err)
			}
			replayed, err := At(tr, c.Path, prev.CallID)
			if err != nil {
				if strings.Contains(err.Error(), "no write, create or whole read") {
					continue
				}
				t.Errorf("%s: %s at %s: %v", testutil.Name(path), c.Path, prev.CallID, err)
				continue
			}
			switch {
			case replayed == read && !c.ChangedOutside:
				exact++
			case replayed != read && c.ChangedOutside && strings.Join(strings.Fields(replayed), "") == strings.Join(strings.Fields(read), ""):
				// A formatter ran outside the transcript (Claude Code
				// hooks do): only white space differs, and the read says
				// the file changed outside the edits.
				formatted++
			default:
				t.Errorf("%s: %s replayed to %s differs from the read %s (changed outside: %v):\n%s", testutil.Name(path), c.Path, prev.CallID, c.CallID, c.ChangedOutside, firstDifference(replayed, read))
			}
		}
	}
	t.Logf("%d replays equal a later whole read; %d differ in white space only, changed by a formatter", exact, formatted)
	if exact < 3 {
		t.Fatalf("only %d replays checked: the test checks too little", exact)
	}
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q\n      vs %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines and %d lines", len(al), len(bl))
}
