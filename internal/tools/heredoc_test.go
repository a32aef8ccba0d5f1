package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func TestStubHeredocs(t *testing.T) {
	note := func(files []string) string { return "n " + strings.Join(files, ",") }
	cases := []struct {
		name, in, want string
		ok             bool
	}{
		{"write then run", `{"command":"cd /t && cat > t.py << 'EOF'\nimport os\nprint(1)\nEOF\npython t.py"}`,
			`{"command":"cd /t && cat > t.py << 'EOF'\n(2 lines not shown here)\nEOF\npython t.py","ctx-summarize":"n t.py"}`, true},
		{"two files, tee, cmd key", `{"cmd":"cat <<X | tee a.txt\na\nX\ncat >> b.txt <<-Y\n\tb\n\tc\n\tY","workdir":"/p"}`,
			`{"cmd":"cat <<X | tee a.txt\n(1 line not shown here)\nX\ncat >> b.txt <<-Y\n(2 lines not shown here)\n\tY","workdir":"/p","ctx-summarize":"n a.txt,b.txt"}`, true},
		{"a body without its delimiter", `{"command":"cat > a <<EOF\nx\ny"}`, `{"command":"cat > a <<EOF\n(2 lines not shown here)\n","ctx-summarize":"n a"}`, true},
		{"a heredoc into a program, not a file", `{"command":"python - <<EOF\nprint(1)\nEOF"}`, "", false},
		{"cat of a file to a file", `{"command":"cat x <<EOF > y\nz\nEOF"}`, "", false},
		{"an empty body", `{"command":"cat > a <<EOF\nEOF"}`, "", false},
		{"argv", `{"command":["bash","-lc","cat > a <<EOF\nx\nEOF"]}`, "", false},
		{"a stub already", `{"command":"cat > a <<EOF\nx\nEOF","ctx-summarize":"n"}`, "", false},
		{"not an object", `"cat > a <<EOF"`, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := StubHeredocs(c.in, note)
			if got != c.want || ok != c.ok {
				t.Fatalf("StubHeredocs(%s) =\n%s, %v; want\n%s, %v", c.in, got, ok, c.want, c.ok)
			}
			if !ok {
				return
			}
			if !IsStub(got) {
				t.Errorf("IsStub(%s) = false", got)
			}
			if _, again := StubHeredocs(got, note); again {
				t.Errorf("a stub of a stub: %s", got)
			}
		})
	}
}

// FuzzStubHeredocs: a stub of any command's heredocs is JSON, a stub, not
// made a second time, and keeps the command line's first line.
func FuzzStubHeredocs(f *testing.F) {
	f.Add(`{"command":"cd /t && cat > t.py << 'EOF'\nimport os\nEOF\npython t.py"}`)
	f.Add(`{"cmd":"cat <<X | tee a.txt\na\nX\ncat >> b <<-Y\n\tb\n\tY"}`)
	f.Add(`{"command":"cat > \"a b\" <<'E O'\nx\nE O","command":"y"}`)
	f.Fuzz(func(t *testing.T, input string) {
		stub, ok := StubHeredocs(input, func(files []string) string { return strings.Join(files, ",") })
		if !ok {
			return
		}
		if !gjson.Valid(stub) || !IsStub(stub) {
			t.Fatalf("StubHeredocs(%s) = %s", input, stub)
		}
		if _, again := StubHeredocs(stub, func([]string) string { return "" }); again {
			t.Fatalf("a stub of a stub: %s", stub)
		}
		for _, key := range commandKeys {
			before, after := gjson.Get(input, key), gjson.Get(stub, key)
			if before.Type != gjson.String {
				continue
			}
			if !utf8.ValidString(before.Str) {
				break // its invalid bytes come back as U+FFFD
			}
			first, _, _ := strings.Cut(before.Str, "\n")
			if !strings.HasPrefix(after.Str, first) {
				t.Fatalf("the command's first line changed: %q → %q", before.Str, after.Str)
			}
			break
		}
	})
}
