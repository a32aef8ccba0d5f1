package shellwrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const filter = "ctx-truncate --output-of toolu_01"

// wrapped are command lines the rewrite takes; docs/hooks.md has this table.
var wrapped = []string{
	"pytest -x tests/",
	"go test ./...",
	"npm test",
	"make 2>&1",
	"cd sub && make",
	"cd sub; make",
	"cd sub\nmake",
	"export CI=1 && npm test",
	"source venv/bin/activate && pytest",
	"CI=1 LANG=C npm test",
	"grep -rn TODO .",
	"sort < data.txt",
	"python3 script.py",
	"echo 'a | b; c' \"$HOME\"",
	"  ls -la  \n",
	"git log -p",
}

// leftAlone are command lines the rewrite leaves as they are, with a word
// of the reason.
var unwrapped = map[string]string{
	"grep -n x f | wc -l":                    "pipeline",
	"make | tail -5":                         "pipeline",
	"make && cd sub && make test":            "after a command that prints",
	"make && vim notes.md":                   "interactive",
	"make > build.log && make test":          "redirection",
	"make || echo failed":                    "||",
	"make > build.log":                       "redirection",
	"make 2>/dev/null":                       "redirection",
	"make &> log":                            "redirection",
	"make >&2":                               "redirection",
	"cat <<EOF\nhello\nEOF":                  "here-document",
	"echo $(ls)":                             "command substitution",
	"echo `ls`":                              "command substitution",
	"diff <(ls a) <(ls b)":                   "process substitution",
	"sleep 10 &":                             "background",
	"server & sleep 1; curl localhost":       "background",
	"cd sub":                                 "acts on the shell",
	"exit 1":                                 "acts on the shell",
	"set -e; make":                           "acts on the shell",
	"FOO=1":                                  "assignments only",
	"vim main.go":                            "interactive",
	"python3":                                "interactive",
	"tail -f app.log":                        "never ends",
	"docker run -it ubuntu":                  "interactive",
	"git rebase -i HEAD~3":                   "interactive git",
	"if true; then make; fi":                 "not a simple command",
	"for f in *.go; do gofmt -l $f; done":    "not a simple command",
	"{ make; }":                              "not a simple command",
	"(cd sub && make)":                       "not a simple command",
	"! make":                                 "negated",
	"make # build it":                        "comment",
	"make;":                                  "a ;",
	"$CMD --version":                         "not a plain word",
	"f() { make; }; f":                       "function",
	"echo 'unclosed":                         "not a command line",
	"set -o pipefail; make 2>&1 | " + filter: "already rewritten",
	"":                                       "no command",
}

// grouped are command lines where more than one command prints: those go
// in braces, after the commands that set up the shell.
var grouped = map[string]string{
	"make && make test":                    "{ make && make test; }",
	"cd sub && npm ci && npm test":         "cd sub && { npm ci && npm test; }",
	"cd sub; export CI=1; make; make test": "cd sub; export CI=1; { make; make test; }",
	"go vet ./...\ngo test ./...":          "{ go vet ./...\ngo test ./...; }",
	"echo '{ a; }' && ls":                  "{ echo '{ a; }' && ls; }",
}

func TestWrap(t *testing.T) {
	for _, line := range wrapped {
		got, why := Wrap(line, filter, true)
		if why != "" {
			t.Errorf("Wrap(%q) left it alone: %s", line, why)
			continue
		}
		want := "set -o pipefail; " + strings.TrimSpace(line) + " 2>&1 | " + filter
		if got != want {
			t.Errorf("Wrap(%q) = %q, want %q", line, got, want)
		}
		if back, ok := Unwrap(got); !ok || back != strings.TrimSpace(line) {
			t.Errorf("Unwrap(%q) = %q, %v", got, back, ok)
		}
	}
	for line, group := range grouped {
		if got, why := Wrap(line, filter, false); got != "" || !strings.Contains(why, "would ask") {
			t.Errorf("Wrap(%q) without groups = %q, %q; want it left alone", line, got, why)
		}
		got, why := Wrap(line, filter, true)
		if want := "set -o pipefail; " + group + " 2>&1 | " + filter; got != want {
			t.Errorf("Wrap(%q) = %q (%s), want %q", line, got, why, want)
		}
		if back, ok := Unwrap(got); !ok || back != line {
			t.Errorf("Unwrap(%q) = %q, %v", got, back, ok)
		}
	}
	for line, reason := range unwrapped {
		got, why := Wrap(line, filter, true)
		if got != "" || !strings.Contains(why, reason) {
			t.Errorf("Wrap(%q) = %q, %q; want it left alone for %q", line, got, why, reason)
		}
	}
}

func TestUnwrapOnlyRewrites(t *testing.T) {
	for _, line := range []string{
		"make 2>&1 | ctx-truncate --output-of toolu_01",
		"set -o pipefail; make 2>&1 | tee log",
		"set -o pipefail; make 2>&1 | ctx-truncate --output-of 'a b'",
		"set -o pipefail; make",
	} {
		if got, ok := Unwrap(line); ok {
			t.Errorf("Unwrap(%q) = %q, want no original", line, got)
		}
	}
}

func TestFilter(t *testing.T) {
	got, ok := Filter("ctx-truncate", "toolu_01", "--max-chars", "4000", "--keep-pattern", "WARN|ERR")
	if want := "ctx-truncate --output-of toolu_01 --max-chars 4000 --keep-pattern 'WARN|ERR'"; !ok || got != want {
		t.Errorf("Filter = %q, %v; want %q", got, ok, want)
	}
	for _, id := range []string{"", "a b", "x;rm -rf /", "$(id)"} {
		if _, ok := Filter("ctx-truncate", id); ok {
			t.Errorf("Filter took the call id %q", id)
		}
	}
	if r := Rules("ctx-truncate"); r[0] != "Bash(set -o pipefail)" || r[1] != "Bash(ctx-truncate --output-of:*)" {
		t.Errorf("Rules = %q", r)
	}
}

// TestSameAsUnwrapped runs every wrapped line in bash, with a filter that
// passes its input through, beside the line as it was, in directories of
// the same content: the same output (stdout and stderr merged, as Claude
// Code merges them), the same exit status, the same working directory
// after it (a cd before the last command moves the next call), the same
// files written.
func TestSameAsUnwrapped(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on the PATH")
	}
	bin := t.TempDir()
	pass := "#!/bin/sh\nexec cat\n"
	if err := os.WriteFile(filepath.Join(bin, "ctx-truncate"), []byte(pass), 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"sh -c 'echo out; echo err >&2; echo out2; exit 3'",
		"cd sub && sh -c 'pwd; exit 0'",
		"cd sub && sh -c 'echo failing; exit 1'",
		"cd nowhere && echo never",
		"export A=1 && sh -c 'echo $A; exit 7'",
		"B=2 sh -c 'echo $B'",
		"sort < data.txt",
		"printf 'no newline at the end'",
		"sh -c 'kill -TERM $$'",
		"seq 1 100000",
		"touch made-here",
		"sh -c 'echo a; echo b >&2' && sh -c 'echo c; exit 4'",
		"sh -c 'echo a; exit 2' && echo never",
		"sh -c 'exit 1'; sh -c 'echo after; exit 0'",
		"cd sub && sh -c 'echo one' && pwd",
		"export A=5 && sh -c 'echo $A' && sh -c 'exit $A'",
	}
	for _, line := range lines {
		w, why := Wrap(line, filter, true)
		if why != "" {
			t.Fatalf("Wrap(%q): %s", line, why)
		}
		run := func(cmd string) (string, string) {
			dir := t.TempDir()
			_ = os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			_ = os.WriteFile(filepath.Join(dir, "data.txt"), []byte("b\na\n"), 0o644)
			// As Claude Code runs a command: eval'd, stdin /dev/null,
			// the directory noted after a success.
			script := "eval \"$1\" < /dev/null && pwd -P > \"$2\"; echo \"status=$?\""
			c := exec.Command(bash, "-c", script, "bash", cmd, filepath.Join(dir, ".cwd"))
			c.Dir, c.Env = dir, append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			out, _ := c.CombinedOutput()
			cwd, _ := os.ReadFile(filepath.Join(dir, ".cwd"))
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			return strings.ReplaceAll(string(out), dir, "DIR"), strings.TrimPrefix(string(cwd), dir) + " " + strings.Join(names, ",")
		}
		out, state := run(line)
		wout, wstate := run(w)
		if out != wout || state != wstate {
			t.Errorf("%q:\nunwrapped: %.300q %q\nwrapped:   %.300q %q", line, out, state, wout, wstate)
		}
	}
}
