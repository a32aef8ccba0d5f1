package commands

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/commands/countcmd"
	"github.com/ctxkit/ctxkit/internal/commands/dedupecmd"
	"github.com/ctxkit/ctxkit/internal/lazyre"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctxkit/ctxkit/internal/llm"
	"github.com/ctxkit/ctxkit/internal/testkit/llmtest"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

func TestMain(m *testing.M) {
	// No test writes to the user's archive: a test that names none gets
	// the default one, in the temporary directory, and a filter archives
	// only in the tests that ask it to. The commands that the scripts run
	// are this binary too, and keep the environment their script gave them.
	mains := map[string]func(){}
	for _, cmd := range All {
		mains[cmd.Name] = func() { os.Exit(cli.Main(cmd, os.Args, os.Stdin, os.Stdout, os.Stderr)) }
	}
	if _, isCommand := mains[strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")]; !isCommand {
		os.Unsetenv("CTX_ARCHIVE")
		os.Setenv("XDG_DATA_HOME", filepath.Join(os.TempDir(), "ctxkit-cli-test-data"))
	}
	testscript.Main(m, mains)
}

// TestScripts runs testdata/script/*.txtar: the binaries as a user runs them.
// $FIXTURES is testdata/formats; $ROOT the module's root, for the examples
// and a package's own fixtures; $CORPUS the corpus of real transcripts, and
// the condition [corpus] says whether it is there. $LLM_URL is a fake
// OpenAI-compatible server (fakeModels) that wants the key sk-fake and
// max_tokens, $LLM_URL_MCT one that wants max_completion_tokens; answers
// are cached in $WORK/llm-cache.jsonl.
func TestScripts(t *testing.T) {
	root := testutil.Root(t)
	fixtures := filepath.Join(root, "testdata", "formats")
	corpus := testutil.CorpusDir(t)
	haveCorpus := len(testutil.CorpusIfPresent(t)) > 0
	llmURL := llmtest.New(t, llmtest.Expect{Key: "sk-fake"}, fakeModels()).URL
	llmURLMCT := llmtest.New(t, llmtest.Expect{Key: "sk-fake", CapField: llm.MaxCompletionTokens}, fakeModels()).URL
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", fixtures)
			env.Setenv("ROOT", root)
			env.Setenv("CORPUS", corpus)
			env.Setenv("LLM_URL", llmURL)
			env.Setenv("LLM_URL_MCT", llmURLMCT)
			env.Setenv("CTX_LLM_CACHE", filepath.Join(env.WorkDir, "llm-cache.jsonl"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				return haveCorpus, nil
			case "root": // permissions do not stop root
				return os.Geteuid() == 0, nil
			}
			return false, errors.New("unknown condition " + cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits CODE CMD ARGS... runs a command and checks its exit code.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits CODE CMD [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("%v", err)
				}
				if got != want {
					ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
				}
			},
			// islink FILE checks that FILE is a symbolic link.
			"islink": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: islink FILE")
				}
				st, err := os.Lstat(ts.MkAbs(args[0]))
				ts.Check(err)
				if isLink := st.Mode()&os.ModeSymlink != 0; isLink == neg {
					ts.Fatalf("%s: link %v, want %v", args[0], isLink, !neg)
				}
			},
			// mode FILE PERM checks FILE's permission bits (octal).
			"mode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: mode FILE PERM")
				}
				want, err := strconv.ParseUint(args[1], 8, 32)
				ts.Check(err)
				st, err := os.Stat(ts.MkAbs(args[0]))
				ts.Check(err)
				if got := st.Mode().Perm(); got != os.FileMode(want) {
					ts.Fatalf("%s: mode %#o, want %#o", args[0], got, want)
				}
			},
			// age FILE DURATION sets FILE's modification time DURATION back.
			"age": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: age FILE DURATION")
				}
				d, err := time.ParseDuration(args[1])
				ts.Check(err)
				then := time.Now().Add(-d)
				ts.Check(os.Chtimes(ts.MkAbs(args[0]), then, then))
			},
			// chop FILE N drops the last N bytes of FILE: a line an agent
			// is still writing.
			"chop": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: chop FILE N")
				}
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				path := ts.MkAbs(args[0])
				st, err := os.Stat(path)
				ts.Check(err)
				ts.Check(os.Truncate(path, max(st.Size()-int64(n), 0)))
			},
			// mkfifo FILE makes a named pipe.
			"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: mkfifo FILE")
				}
				ts.Check(mkfifo(ts.MkAbs(args[0])))
			},
		},
	})
}

// fakeModels answers as the model a request names: good (the prompt's first
// words), long (no shorter than the rules), flaky (429 the first time a
// prompt is seen), fail-500, missing (404), empty (the text in
// reasoning_content only), length (cut at the cap) and hang (no answer).
func fakeModels() func(llmtest.Request) llmtest.Reply {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(r llmtest.Request) llmtest.Reply {
		switch r.Model {
		case "good":
			return llmtest.Echo(20)(r)
		case "long":
			return llmtest.Reply{Content: strings.Repeat("The output has many lines. ", 200)}
		case "flaky":
			mu.Lock()
			defer mu.Unlock()
			if !seen[r.Prompt()] {
				seen[r.Prompt()] = true
				return llmtest.Reply{Status: 429, RetryAfter: "0", Message: "slow down"}
			}
			return llmtest.Echo(20)(r)
		case "fail-500":
			return llmtest.Reply{Status: 500, Message: "boom"}
		case "empty":
			return llmtest.Reply{Reasoning: "The user wants a summary."}
		case "length":
			return llmtest.Reply{Content: "The output", FinishReason: "length"}
		case "hang":
			return llmtest.Reply{Hang: true}
		case "reflector":
			return llmtest.Reply{Content: reflection(r.Prompt())}
		case "liar":
			return llmtest.Reply{Content: `{"key_insight": "Trust me.", "confidence": 0.9, "evidence": ["call_none"]}`}
		}
		return llmtest.Reply{Status: 404, Message: "model " + r.Model + " not found"}
	}
}

// reflection is a reflector's answer to a ctx-playbook learn --llm prompt:
// its insight cites the first two calls the prompt lists, and it tags the
// playbook's first strategy, if any, helpful.
func reflection(prompt string) string {
	var ids []string
	var tags string
	for line := range strings.Lines(prompt) {
		if id, _, ok := strings.Cut(line, " | "); ok && len(ids) < 2 {
			ids = append(ids, strconv.Quote(id))
		}
		if strings.HasPrefix(line, "[") && tags == "" {
			id, _, _ := strings.Cut(line[1:], "]")
			tags = `{"id": ` + strconv.Quote(id) + `, "tag": "helpful"}`
		}
	}
	return "```json\n" + `{"error_identification": "none", "root_cause_analysis": "none", "correct_approach": "as done",
 "key_insight": "Look before you leap: check a path before you use it.", "category": "file_operations", "confidence": 0.9,
 "evidence": [` + strings.Join(ids, ", ") + `], "tags": ["paths"], "bullet_tags": [` + tags + `]}` + "\n```"
}

// shell returns a runner of bash scripts in a directory that holds the
// script's files, with every binary on the PATH (the test binary under each
// command's name). Tests skip where there is no bash.
func shell(t *testing.T) (run func(script string, env ...string) (string, string, error), dir string) {
	t.Helper()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, cmd := range All {
		if err := os.Symlink(exe, filepath.Join(dir, cmd.Name)); err != nil {
			t.Fatal(err)
		}
	}
	return func(script string, env ...string) (string, string, error) {
		cmd := exec.Command(sh, "-c", "set -o pipefail; "+script)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH")), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}, dir
}

// TestTeeBrokenPipe runs ctx-count --tee | head in a shell: the transcript
// passed on is cut, but the report still reaches stderr, and the status (1)
// and one line after the report say what happened. (Without --tee, a closed
// pipe ends a run quietly: TestRunBrokenPipeIsQuiet, TestTruncatePipeline.)
func TestTeeBrokenPipe(t *testing.T) {
	run, dir := shell(t)
	// A transcript far larger than a pipe's buffer.
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"role":"user","content":"x"}`)
	}
	b.WriteString("]")
	if err := os.WriteFile(filepath.Join(dir, "in.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := run(`ctx-count --tee in.json | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}"`)
	if err != nil {
		t.Fatal(err)
	}
	if out != "1\n" {
		t.Errorf("ctx-count --tee | head exited with %q, want 1", out)
	}
	report, last, _ := strings.Cut(strings.TrimSuffix(errs, "\n"), "\nctx-count: ")
	if !strings.Contains(report, "  total ") || !strings.HasPrefix(last, "--tee: stdout was closed after ") || !strings.HasSuffix(last, " of 600,001 bytes: the transcript passed on is cut") {
		t.Errorf("stderr: %q, want the report, then the line that says the transcript was cut", errs)
	}
}

// errWriter fails every write as a closed pipe does.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

func TestRunBrokenPipeIsQuiet(t *testing.T) {
	var stderr bytes.Buffer
	in := strings.NewReader(`[{"role":"user","content":"hi"}]`)
	if code := cli.Run(countcmd.Command, []string{"ctx-count"}, in, errWriter{}, &stderr); code != cli.ExitOK || stderr.Len() > 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
}

// TestTeeCorpus: with --tee, every real transcript passes through byte for
// byte, and the report goes to stderr.
func TestTeeCorpus(t *testing.T) {
	for _, path := range testutil.FixturesAndCorpus(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := cli.Run(countcmd.Command, []string{"ctx-count", "--tee", "--encoding", "approx", path}, strings.NewReader(""), &stdout, &stderr)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", path, code, stderr.String())
		}
		if !bytes.Equal(stdout.Bytes(), data) {
			t.Errorf("%s: --tee output differs from the input", path)
		}
		if !strings.Contains(stderr.String(), "tool output") {
			t.Errorf("%s: no report on stderr: %q", path, stderr.String())
		}
	}
}

// TestTruncatePipeline runs ctx-truncate in a shell pipe between two
// ctx-counts, and into head: the pipe carries the transcript, the stats line
// goes to stderr, and a closed pipe ends it quietly.
func TestTruncatePipeline(t *testing.T) {
	run, _ := shell(t)
	session := "S=" + filepath.Join(testutil.Root(t), "internal", "truncate", "testdata", "sessions", "claude-code.jsonl")
	out, errs, err := run(`ctx-count --tee --top 0 "$S" 2>before.txt | ctx-truncate --stats | ctx-count --before "$S" --top 0`, session)
	if err != nil {
		t.Fatalf("pipeline: %v\n%s", err, errs)
	}
	if !strings.HasPrefix(errs, "ctx-truncate: 7 of 12 results changed ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("stderr: %q, want the stats line alone", errs)
	}
	if !strings.Contains(out, "  saved ") || strings.Contains(out, "  saved        0") {
		t.Errorf("ctx-count after ctx-truncate saw no saving:\n%s", out)
	}
	if _, errs, err := run(`ctx-truncate "$S" | head -c 10 >/dev/null`, session); err != nil || errs != "" {
		t.Errorf("ctx-truncate | head: %v, stderr %q; want status 0 and nothing on stderr", err, errs)
	}
}

// TestErrorsEscapeNames: a file name is printed escaped in an error, in a
// --stats line and in ctx-count's headline, so that a hostile name found in
// a directory cannot drive the terminal.
func TestErrorsEscapeNames(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "s\x1b[2J.jsonl")
	bad := filepath.Join(dir, "b\x1b]0;x\x07.jsonl")
	if err := os.WriteFile(good, []byte(`{"role":"user","content":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f]")
	var stdout, stderr bytes.Buffer
	code := cli.Run(dedupecmd.Command, []string{"ctx-dedupe", "--stats", "-o", filepath.Join(dir, "out"), dir}, strings.NewReader(""), &stdout, &stderr)
	if code != cli.ExitFailure || raw.MatchString(stderr.String()) ||
		!strings.Contains(stderr.String(), `b\x1b]0;x\x07.jsonl:`) || !strings.Contains(stderr.String(), `s\x1b[2J.jsonl: 0 of 0 results changed`) {
		t.Errorf("exit %d, stderr %q: want 1, and both names escaped", code, stderr.String())
	}
	stdout.Reset()
	code = cli.Run(countcmd.Command, []string{"ctx-count", good}, strings.NewReader(""), &stdout, &stderr)
	if code != cli.ExitOK || raw.MatchString(stdout.String()) || !strings.Contains(stdout.String(), `s\x1b[2J.jsonl: openai, `) {
		t.Errorf("exit %d, stdout %q: want 0, and the name escaped", code, stdout.String())
	}
}

// TestEveryPatternCompiles: the patterns of every package the binaries
// link compile (they are compiled on first use, not at start-up).
func TestEveryPatternCompiles(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}

// TestTableIsEveryBinary: the table lists every binary of cmd/ and no
// other, each main runs its own command, and no two commands share a name.
func TestTableIsEveryBinary(t *testing.T) {
	root := testutil.Root(t)
	dirs, err := filepath.Glob(filepath.Join(root, "cmd", "ctx-*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no binaries under cmd/: %v", err)
	}
	seen := map[string]bool{}
	for _, c := range All {
		if seen[c.Name] {
			t.Errorf("%s is in the table twice", c.Name)
		}
		seen[c.Name] = true
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if !seen[name] {
			t.Errorf("cmd/%s is not in the table", name)
			continue
		}
		delete(seen, name)
		main, err := os.ReadFile(filepath.Join(dir, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(name, "ctx-") + "cmd"
		if !strings.Contains(string(main), "internal/commands/"+pkg+`"`) || !strings.Contains(string(main), "cli.Main("+pkg+".Command,") {
			t.Errorf("cmd/%s/main.go does not run %s.Command", name, pkg)
		}
	}
	for name := range seen {
		t.Errorf("%s is in the table but has no cmd/%s", name, name)
	}
}
