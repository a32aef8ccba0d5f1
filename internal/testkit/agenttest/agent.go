package agenttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxkit/ctxkit/internal/userdir"
)

// Agent is a coding agent that installs from the npm registry, pinned to a
// version whose streaming events, transcript and hook payloads the tests
// were written against.
type Agent struct {
	Name    string // claude-code, codex
	Package string // the npm package
	Version string
	Bin     string // the command the package installs
}

// The agents, pinned.
var (
	ClaudeCode = Agent{Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: "2.1.197", Bin: "claude"}
	Codex      = Agent{Name: "codex", Package: "@openai/codex", Version: "0.169.0", Bin: "codex"}
)

// Enabled says whether the tests with the real agents run: they install
// hundreds of megabytes once and take seconds, so they run only when
// CTX_E2E=1 (make e2e).
func Enabled() bool { return os.Getenv("CTX_E2E") == "1" }

// CacheDir is where agents are installed: $CTX_AGENTS_DIR, else ctxkit/agents
// under the user's cache directory.
func CacheDir() (string, error) { return userdir.CacheDir("CTX_AGENTS_DIR", "agents") }

// Install returns the path of the agent's command, installing the pinned
// version into the cache directory first when it is not there. It skips the
// test unless the tests are enabled (CTX_E2E=1); once they are, a missing
// node or npm fails it: a run that asked for the real agents and ran none
// must not pass.
func (a Agent) Install(t testing.TB) string {
	t.Helper()
	if !Enabled() {
		t.Skip("tests with the real agents run with CTX_E2E=1 (make e2e)")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("CTX_E2E=1, and %s %s needs %s, which is not on the PATH (install Node.js and npm)", a.Package, a.Version, tool)
		}
	}
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, a.Name+"@"+a.Version)
	bin := filepath.Join(dir, "node_modules", ".bin", a.Bin)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	// Install beside the final place and rename, so that an interrupted
	// install is never taken for a finished one.
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, "."+a.Name+"-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Logf("installing %s@%s into %s", a.Package, a.Version, dir)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp, a.Package+"@"+a.Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s@%s: %v\n%s", a.Package, a.Version, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s was installed but %s is missing", a.Package, bin)
	}
	return bin
}

// Run is one headless run of an agent.
type Run struct {
	Home   string // the temporary HOME (and CODEX_HOME under it)
	Dir    string // the working directory the agent ran in
	Stdout string
	Stderr string
}

// Session is a run's setup.
type Session struct {
	Server *Server
	// BaseURL is where the agent sends its model requests, when not
	// straight to Server: a proxy in front of it.
	BaseURL string
	Prompt  string
	// Hooks is the agent's hook configuration, written where the agent reads
	// it: Claude Code's settings.json; for Codex, JSON goes to hooks.json and
	// TOML is added to config.toml. Empty for none.
	Hooks []byte
	// Dir is the working directory; a temporary one when empty.
	Dir string
	// Files are written into the working directory before the run.
	Files map[string]string
	// Env is added to the agent's environment (PATH=... puts the ctx-*
	// binaries where the hooks find them).
	Env []string
	// Args are added to the agent's command line, before the prompt
	// (Claude Code's --mcp-config FILE).
	Args []string
	// Config is TOML added to Codex's config.toml ([mcp_servers.NAME]).
	Config string
	// Home is the HOME the agent runs in (CODEX_HOME under it); a new
	// temporary one when empty.
	Home string
	// Prepare, when set, runs after the agent's own files are written into
	// the home (Hooks, Codex's config.toml pointing at the server) and
	// before the agent: a test sets the home up as a user would
	// (ctx-setup).
	Prepare func(home string)
	// AllowedTools, when set, runs Claude Code with permissions asked as a
	// user's session asks them: these tools allowed on the command line
	// (--allowedTools), the rest as the settings say, instead of
	// --dangerously-skip-permissions.
	AllowedTools []string
}

// Run runs the agent headless on the session's prompt against the scripted
// server, in a temporary home and working directory, and returns what it
// printed. A run that fails fails the test.
func (a Agent) Run(t testing.TB, bin string, s Session) *Run {
	t.Helper()
	r := &Run{Home: s.Home, Dir: s.Dir}
	if r.Home == "" {
		r.Home = t.TempDir()
	}
	if r.Dir == "" {
		r.Dir = t.TempDir()
	}
	for name, content := range s.Files {
		path := filepath.Join(r.Dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A new user's home: the hooks' default archive, and the MCP server's,
	// are in its data directory.
	env := append(os.Environ(), "HOME="+r.Home, "NO_COLOR=1", "XDG_DATA_HOME="+filepath.Join(r.Home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(r.Home, ".cache"))
	base := s.Server.URL
	if s.BaseURL != "" {
		base = s.BaseURL
	}
	var args []string
	switch a.Name {
	case ClaudeCode.Name:
		env = append(env, "ANTHROPIC_BASE_URL="+base, "ANTHROPIC_API_KEY=test-key",
			"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"IS_SANDBOX=1") // bypassing permissions as root needs it
		args = []string{"--output-format", "json", "--dangerously-skip-permissions"}
		if s.AllowedTools != nil {
			args = []string{"--output-format", "json", "--allowedTools", strings.Join(s.AllowedTools, ",")}
		}
		args = append(args, s.Args...)
		args = append(args, "-p", s.Prompt)
		a.writeConfig(t, filepath.Join(r.Home, ".claude", "settings.json"), s.Hooks)
	case Codex.Name:
		codexHome := filepath.Join(r.Home, ".codex")
		env = append(env, "CODEX_HOME="+codexHome, "FAKE_API_KEY=test-key")
		args = append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			"--dangerously-bypass-hook-trust"}, s.Args...)
		args = append(args, s.Prompt)
		config := codexConfig(base) + s.Config
		if bytes.HasPrefix(bytes.TrimSpace(s.Hooks), []byte("{")) {
			a.writeConfig(t, filepath.Join(codexHome, "hooks.json"), s.Hooks)
		} else {
			config = joinTOML(config, string(s.Hooks))
		}
		a.writeConfig(t, filepath.Join(codexHome, "config.toml"), []byte(config))
	default:
		t.Fatalf("unknown agent %q", a.Name)
	}
	if s.Prepare != nil {
		s.Prepare(r.Home)
	}
	env = append(env, s.Env...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.Dir, env, nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", a.Name, strings.Join(args, " "), err, r.Stdout, r.Stderr)
	}
	return r
}

func (a Agent) writeConfig(t testing.TB, path string, data []byte) {
	t.Helper()
	if len(data) == 0 {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// joinTOML joins two TOML documents: the keys before the first table of
// each, then the tables of each. A key after a table header belongs to
// that table, so a user's config.toml with tables takes the example's
// top-level keys (tool_output_token_limit) above them.
func joinTOML(a, b string) string {
	root := func(s string) (string, string) {
		for off := 0; off < len(s); {
			line := s[off:]
			if i := strings.IndexByte(line, '\n'); i >= 0 {
				line = line[:i+1]
			}
			if strings.HasPrefix(strings.TrimSpace(line), "[") {
				return s[:off], s[off:]
			}
			off += len(line)
		}
		return s, ""
	}
	ra, ta := root(a)
	rb, tb := root(b)
	return ra + "\n" + rb + "\n" + ta + "\n" + tb
}

// codexConfig points Codex at the scripted server, with no retries so that
// a broken reply fails at once.
func codexConfig(url string) string {
	return fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, url)
}

// Transcript returns the path of the one session file the run wrote:
// Claude Code's ~/.claude/projects/<dir>/<session id>.jsonl, Codex's
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl.
func (r *Run) Transcript(t testing.TB) string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(r.Home, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.Home, path)
		if !d.IsDir() && transcriptPath.MatchString(filepath.ToSlash(rel)) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("want one transcript under %s, found %d: %v", r.Home, len(found), found)
	}
	return found[0]
}

var transcriptPath = regexp.MustCompile(`^(\.claude/projects/[^/]+/[^/]+\.jsonl|\.codex/sessions/\d{4}/\d\d/\d\d/rollout-[^/]+\.jsonl)$`)
