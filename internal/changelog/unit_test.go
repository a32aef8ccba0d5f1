package changelog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// TestFullRead: which reads give a file's whole content.
func TestFullRead(t *testing.T) {
	var long strings.Builder // as many lines as Claude Code's Read shows at most
	for i := 1; i <= claudeReadLimit; i++ {
		fmt.Fprintf(&long, "%6d→x\n", i)
	}
	cases := []struct {
		name, format, input, result string
		isError                     bool
		want                        string
		ok                          bool
	}{
		{"claude whole", "claude-code", `{"file_path":"/p/a.go"}`, "     1→a\n     2→", false, "a\n", true},
		{"claude range", "claude-code", `{"file_path":"/p/a.go","offset":1,"limit":5}`, "     1→a", false, "", false},
		{"claude failed", "claude-code", `{"file_path":"/p/a.go"}`, "     1→a", true, "", false},
		{"claude stub", "claude-code", `{"file_path":"/p/a.go"}`, "File unchanged since last read.", false, "", false},
		{"claude empty file", "claude-code", `{"file_path":"/p/a.go"}`, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", false, "", true},
		{"claude cut at the limit", "claude-code", `{"file_path":"/p/a.go"}`, strings.TrimSuffix(long.String(), "\n"), false, "", false},
		{"claude long line", "claude-code", `{"file_path":"/p/a.go"}`, "     1→" + strings.Repeat("x", claudeReadLimit), false, "", false},
		{"other tool, raw text", "anthropic", `{"path":"a.toml"}`, "x = 1\n", false, "x = 1\n", true},
	}
	for _, c := range cases {
		tool := "Read"
		if c.format == "anthropic" {
			tool = "read_file"
		}
		tr := oneCall(t, transcript.Format(c.format), tool, c.input, c.result, c.isError)
		got, ok := fullRead(tr, tr.Calls[0])
		if ok != c.ok || got != c.want {
			t.Errorf("%s: fullRead = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// oneCall is a transcript with one call and its result.
func oneCall(t *testing.T, format transcript.Format, name, input, result string, isError bool) *transcript.Transcript {
	t.Helper()
	q := func(s string) string {
		b := strings.Builder{}
		b.WriteByte('"')
		for _, r := range s {
			switch r {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		return b.String()
	}
	errField := ""
	if isError {
		errField = `,"is_error":true`
	}
	msgs := `[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":` + q(name) + `,"input":` + input + `}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":` + q(result) + errField + `}]}]`
	opts := transcript.Options{Format: transcript.Anthropic}
	tr, err := transcript.Parse([]byte(msgs), opts)
	if err != nil {
		t.Fatal(err)
	}
	tr.Format = format // the model reads Claude Code's messages as Anthropic's
	return tr
}

func TestDefinition(t *testing.T) {
	cases := []struct {
		line string
		md   bool
		want string
	}{
		{"func (s *Store) expired(l *Link) bool {", false, "func expired"},
		{"func main() {", false, "func main"},
		{"type Store struct {", false, "type Store"},
		{"    def render(self, ctx):", false, "def render"},
		{"async def fetch(url):", false, "def fetch"},
		{"class Task:", false, "class Task"},
		{"  defp selection_label(nil), do: \"\"", false, "defp selection_label"},
		{"defmodule Spotter.Transcripts do", false, "defmodule Spotter.Transcripts"},
		{`    test "closes all open annotations" do`, false, `test "closes all open annotations"`},
		{"export async function load(id) {", false, "function load"},
		{"export const total = (items) => {", false, "function total"},
		{"pub fn parse(input: &str) -> Result<Ast> {", false, "fn parse"},
		{"impl Display for Token {", false, "impl Token"},
		{"  public static int count(List<String> xs) {", false, "method count"},
		{"  async mounted() {", false, "method mounted"},
		{"deploy() {", false, "function deploy"},
		{"int parse_args(int argc, char **argv)", false, "function parse_args"},
		{"[server]", false, "section [server]"},
		{"## Usage", true, `section "Usage"`},
		{"# Title #", true, `section "Title"`},
		// Statements are not definitions.
		{"    if (x) {", false, ""},
		{"  } else if (ready(x)) {", false, ""},
		{"if not hasattr(inspect, 'formatargspec'):", false, ""},
		{"    return compute(x)", false, ""},
		{"    for (const item of items) {", false, ""},
		{"## not a heading in code", false, ""},
		{"func f() {}", true, ""},
	}
	for _, c := range cases {
		if got := definition(c.line, c.md); got != c.want {
			t.Errorf("definition(%q, %v) = %q, want %q", c.line, c.md, got, c.want)
		}
	}
}

func TestLocate(t *testing.T) {
	before := strings.Split(`package store

type Store struct {
	now func() time.Time
}

// Touch extends a link's life.
func (s *Store) Touch(l *Link) {
	l.ExpiresAt = l.ExpiresAt.Add(d)
}

func (s *Store) expired(l *Link) bool {
	return l.ExpiresAt.Before(s.now())
}`, "\n")
	cases := []struct {
		name           string
		removed, added []string
		first          int
		want           location
	}{
		{"in a body", []string{"\treturn l.ExpiresAt.Before(s.now())"}, []string{"\treturn !s.now().Before(l.ExpiresAt)"}, 12, location{in: []string{"func expired"}}},
		{"a doc comment", []string{"// Touch extends a link's life."}, []string{"// Touch extends a link's life; an expired link stays expired."}, 6, location{in: []string{"func Touch"}}},
		{"a signature", []string{"func (s *Store) Touch(l *Link) {"}, []string{"func (s *Store) Touch(l *Link, d time.Duration) {"}, 7, location{in: []string{"func Touch"}}},
		{"a new function", nil, []string{"func (s *Store) Len() int {", "\treturn 0", "}"}, 14, location{adds: []string{"func Len"}}},
		{"a removed function", []string{"func (s *Store) expired(l *Link) bool {", "\treturn l.ExpiresAt.Before(s.now())", "}"}, nil, 11, location{removes: []string{"func expired"}}},
		{"a field", nil, []string{"\tlinks map[string]*Link"}, 3, location{in: []string{"type Store"}}},
		{"top level, nothing above", []string{"package store"}, []string{"package links"}, 0, location{}},
	}
	for _, c := range cases {
		if got := locate(c.removed, c.added, before, c.first, false); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: locate = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestFailedMessage: a failed edit says how it failed, in words: the
// tool's error, or the exit code and the error line of a shell's output.
func TestFailedMessage(t *testing.T) {
	for _, c := range []struct {
		tool, input string
		output      string
		isError     bool
		want        string
	}{
		{"Edit", `{"file_path":"x.txt","old_string":"a","new_string":"b"}`,
			"<tool_use_error>String to replace not found in file.\nString: a</tool_use_error>", true, "String to replace not found in file."},
		{"bash", `{"command":"sed -i 's/a/b/' x.txt"}`,
			"<returncode>2</returncode>\n<output>\nsed: can't read x.txt: No such file or directory\n</output>", false, "failed, exit 2: sed: can't read x.txt: No such file or directory"},
		{"bash", `{"command":"sed -i 's/a/b/' x.txt"}`, "<returncode>2</returncode>\n<output>\n</output>", false, "failed, exit 2"},
		{"Edit", `{"file_path":"x.txt","old_string":"a","new_string":"b"}`,
			"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", true,
			"denied: The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file)."},
		{"Edit", `{"file_path":"x.txt","old_string":"a","new_string":"b"}`, "<tool_use_error>Sibling tool call errored</tool_use_error>", true, "cancelled: Sibling tool call errored"},
	} {
		tr := oneCall(t, transcript.Anthropic, c.tool, c.input, c.output, c.isError)
		rep := NewChangelog([]*History{Analyze(tr, "s", Options{})}, ReportOptions{IncludeFailed: true})
		cl := rep.Changelogs[0]
		if f := cl.NotApplied; len(f) != 1 || f[0].Error != c.want || len(cl.Files) != 0 || cl.Totals.NotApplied() != 1 {
			t.Errorf("%s %s: not made %+v, files %+v; want the error %q", c.tool, c.input, f, cl.Files, c.want)
		}
	}
}

// TestChangesOf: what each kind of edit or write call changes.
func TestChangesOf(t *testing.T) {
	type want struct {
		path   string
		action Action
		after  string // the op applied to "a\nb\n"; "?" when the call does not show the change
	}
	cases := []struct {
		name, tool, input string
		want              []want
	}{
		{"Edit", "Edit", `{"file_path":"/w/x.txt","old_string":"b","new_string":"B"}`, []want{{"x.txt", Edit, "a\nB\n"}}},
		{"MultiEdit", "MultiEdit", `{"file_path":"x.txt","edits":[{"old_string":"a","new_string":"A"},{"old_string":"A\nb","new_string":"A\nc","replace_all":true}]}`, []want{{"x.txt", Edit, "A\nc\n"}}},
		{"mcp edits", "edit_file", `{"path":"x.txt","edits":[{"oldText":"a","newText":"z"}]}`, []want{{"x.txt", Edit, "z\nb\n"}}},
		{"Write", "Write", `{"file_path":"x.txt","content":"new\n"}`, []want{{"x.txt", Write, "new\n"}}},
		{"editor create", "str_replace_editor", `{"command":"create","path":"x.txt","file_text":"c\n"}`, []want{{"x.txt", Create, "c\n"}}},
		{"editor insert", "str_replace_based_edit_tool", `{"command":"insert","path":"x.txt","insert_line":1,"new_str":"i"}`, []want{{"x.txt", Edit, "a\ni\nb\n"}}},
		{"editor str_replace", "str_replace_editor", `{"command":"str_replace","path":"x.txt","old_str":"a\n","new_str":""}`, []want{{"x.txt", Edit, "b\n"}}},
		{"apply_patch function", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: x.txt\n@@\n-a\n+A\n*** Add File: y.txt\n+y\n*** End Patch"}`, []want{{"x.txt", Edit, "A\nb\n"}, {"y.txt", Create, "y\n"}}},
		{"unified diff argument", "apply_diff", `{"diff":"--- a/x.txt\n+++ b/x.txt\n@@ -2 +2 @@\n-b\n+B\n"}`, []want{{"x.txt", Edit, "a\nB\n"}}},
		{"a patch that does not parse", "apply_patch", `{"input":"*** Begin Patch\n*** Frobnicate File: x.txt\n*** End Patch"}`, []want{{"(no path)", Edit, "?"}}},
		{"code_edit sketch", "edit_file", `{"target_file":"x.txt","code_edit":"// ... existing code ...\nB"}`, []want{{"x.txt", Edit, "?"}}},
		{"cat heredoc", "Bash", `{"command":"cat > x.txt <<'EOF'\nhi\nEOF"}`, []want{{"x.txt", Write, "hi\n"}}},
		{"cat append", "Bash", `{"command":"cd /w && cat >> x.txt <<EOF\nc\nEOF"}`, []want{{"x.txt", Edit, "a\nb\nc\n"}}},
		{"echo", "Bash", `{"command":"echo done > x.txt"}`, []want{{"x.txt", Write, "done\n"}}},
		{"tee", "Bash", `{"command":"echo t | tee x.txt"}`, []want{{"x.txt", Write, "t\n"}}},
		{"tee -a", "Bash", `{"command":"echo t | tee -a x.txt"}`, []want{{"x.txt", Edit, "a\nb\nt\n"}}},
		{"sed", "Bash", `{"command":"sed -i 's/a/b/' x.txt y.txt"}`, []want{{"x.txt", Edit, "b\nb\n"}, {"y.txt", Edit, "b\nb\n"}}},
		{"sed unsupported", "Bash", `{"command":"sed -i 'y/a/b/' x.txt"}`, []want{{"x.txt", Edit, "?"}}},
		{"patch heredoc", "Bash", `{"command":"patch -p1 <<'EOF'\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+A\nEOF"}`, []want{{"x.txt", Edit, "A\nb\n"}}},
		{"patch from a file", "Bash", `{"command":"patch -p1 x.txt fix.diff"}`, []want{{"x.txt", Edit, "?"}}},
		{"apply_patch heredoc", "exec_command", `{"cmd":"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x.txt\n*** End Patch\nEOF"}`, []want{{"x.txt", Delete, ""}}},
		{"repeated keys: the last wins", "Edit", `{"file_path":"/w/y.txt","old_string":"a","new_string":"A","file_path":"/w/x.txt","new_string":"Z"}`, []want{{"x.txt", Edit, "Z\nb\n"}}},
		{"repeated keys in MultiEdit's edits", "MultiEdit", `{"file_path":"x.txt","edits":[{"old_string":"a","old_string":"b","new_string":"B"}]}`, []want{{"x.txt", Edit, "a\nB\n"}}},
		{"apply_patch argv", "shell", `{"command":["apply_patch","*** Begin Patch\n*** Update File: x.txt\n*** Move to: z.txt\n@@\n-b\n+c\n*** End Patch"]}`, []want{{"x.txt", Move, "a\nc\n"}}},
	}
	for _, c := range cases {
		tr := oneCall(t, transcript.Anthropic, c.tool, c.input, "ok", false)
		tr.Cwd = "/w"
		got := changesOf(tr.Calls[0], tr.Cwd)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d changes, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i, w := range c.want {
			after, err := got[i].op.apply("a\nb\n")
			if err != nil {
				after = "?"
			}
			if got[i].path != w.path || got[i].action != w.action || after != w.after {
				t.Errorf("%s: change %d = %s %s -> %q (%v); want %s %s -> %q", c.name, i, got[i].action, got[i].path, after, err, w.action, w.path, w.after)
			}
		}
	}
}

// TestOwnLimits: what ctx-changelog cannot follow it says as its own limit,
// not as the tool's error; a write of a file the session had not seen does
// not claim the file had a content before; the header names the file
// read even when the format gives no session id.
func TestOwnLimits(t *testing.T) {
	tr := oneCall(t, transcript.Anthropic, "Bash", `{"command":"sed -i 'y/ab/cd/' x.txt"}`, "", false)
	var out strings.Builder
	rep := NewChangelog([]*History{Analyze(tr, "s.json", Options{})}, ReportOptions{})
	if err := rep.WriteMarkdown(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"s.json (anthropic): 1 file changed: 1 change, lines not counted.",
		"lines changed not known: ctx-changelog cannot follow this sed script: command",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	tr = oneCall(t, transcript.Anthropic, "Bash", "{\"command\":\"cat > new.txt <<'EOF'\\nhello\\nEOF\"}", "", false)
	h := Analyze(tr, "s.json", Options{})
	if d := h.Changes[0].Description; d != "1 line written; the transcript does not show whether the file existed before" {
		t.Errorf("a write of a file not seen before: %q", d)
	}
}
