package setupcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// TestExamples: the files of examples/hooks are what ctx-setup writes
// into empty settings (the project's, for Claude Code), rendered from the
// same source; go test -update writes them again.
func TestExamples(t *testing.T) {
	dir := filepath.Join(testutil.Root(t), "examples", "hooks")
	render := func(adds []jsonAdd) []byte {
		doc, _, err := addJSON(nil, adds)
		if err != nil {
			t.Fatal(err)
		}
		out, err := formatJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	testutil.Golden(t, filepath.Join(dir, "claude-code", "settings.json"), render(claudeSettings(true)))
	testutil.Golden(t, filepath.Join(dir, "claude-code", ".mcp.json"),
		render([]jsonAdd{{Kind: addKey, Path: "mcpServers." + recallServer, Value: recallJSON(false)}}))
	testutil.Golden(t, filepath.Join(dir, "codex", "hooks.json"), render(hookAdds(codexHooks)))
	testutil.Golden(t, filepath.Join(dir, "codex", "config.toml"), []byte(codexConfigExample()))

	// The TOML example holds what ctx-setup adds to config.toml, and the
	// same hooks as hooks.json.
	toml := []byte(codexConfigExample())
	if _, made, err := addTOML(toml, codexTOML()); err != nil || len(made) > 0 {
		t.Errorf("config.toml lacks %v (%v)", made, err)
	}
	m, err := parseTOML(toml)
	if err != nil {
		t.Fatal(err)
	}
	hooks := gjson.ParseBytes(render(hookAdds(codexHooks))).Get("hooks").Value()
	if !jsonEqual(m["hooks"], hooks) {
		t.Errorf("config.toml's hooks %v, hooks.json's %v", m["hooks"], hooks)
	}
}

// claudeUser is a user's settings.json as Claude Code writes it, with hooks,
// permissions and settings of their own.
const claudeUser = `{
  "model": "opus",
  "env": {
    "BASH_DEFAULT_TIMEOUT_MS": "300000"
  },
  "permissions": {
    "allow": [
      "Bash(npm test:*)",
      "Read(~/notes/**)"
    ],
    "deny": [
      "Bash(git push --force:*)"
    ],
    "defaultMode": "default"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/audit-bash.sh"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  }
}
`

// codexUser is a user's config.toml with comments, a provider, profiles
// and an MCP server and hooks of their own.
const codexUser = `# My Codex settings.
model = "gpt-5-codex" # the default
approval_policy = "on-request"

# A local gateway.
[model_providers.gateway]
name = "Gateway"
base_url = "http://localhost:8080/v1"
wire_api = "responses"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "audit"

[profiles.fast]
model = "gpt-5-mini"
`

// TestMergeClaude: into a real-shaped settings.json, the additions go in
// beside what is there, which stays; a second run adds nothing; taking
// them out gives back the file byte for byte.
func TestMergeClaude(t *testing.T) {
	doc, made, err := addJSON([]byte(claudeUser), claudeSettings(false))
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = formatJSON(doc); err != nil {
		t.Fatal(err)
	}
	v := gjson.ParseBytes(doc)
	for path, want := range map[string]string{
		"model": "opus", "env.BASH_DEFAULT_TIMEOUT_MS": "300000", "permissions.allow.0": "Bash(npm test:*)",
		"permissions.deny.0": "Bash(git push --force:*)", "permissions.defaultMode": "default",
		"hooks.PreToolUse.0.hooks.0.command": "~/bin/audit-bash.sh", "hooks.Stop.0.hooks.0.command": "notify-send done",
		"statusLine.command":  "~/.claude/statusline.sh",
		"permissions.allow.2": memoryQuery, "permissions.allow.3": "Bash(set -o pipefail)",
		"permissions.allow.4":                "Bash(ctx-truncate --output-of:*)",
		"hooks.PreToolUse.1.hooks.0.command": "ctx-loops --hook claude-code",
		"hooks.PreToolUse.2.hooks.0.command": "ctx-truncate --hook claude-code",
	} {
		if got := v.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if len(made) != len(claudeSettings(false)) {
		t.Errorf("made %d additions, want %d", len(made), len(claudeSettings(false)))
	}
	if _, again, err := addJSON(doc, claudeSettings(false)); err != nil || len(again) > 0 {
		t.Errorf("a second run adds %d: %v", len(again), err)
	}
	back, notes, err := removeJSON(doc, made)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	if back, _ = formatJSON(back); string(back) != claudeUser {
		t.Errorf("taken out, the file is:\n%s\nwant:\n%s", back, claudeUser)
	}
}

// TestMergeClaudeEmpty: into no file, the additions make one; taking them
// out leaves an empty object.
func TestMergeClaudeEmpty(t *testing.T) {
	doc, made, err := addJSON(nil, claudeSettings(false))
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := removeJSON(doc, made)
	if err != nil || strings.Join(strings.Fields(string(back)), "") != "{}" {
		t.Errorf("taken out: %s, %v", back, err)
	}
}

// TestRemoveKeepsUserChanges: a hook the user added to ctxkit's group
// stays (and so the group), a setting changed since is left and said so.
func TestRemoveKeepsUserChanges(t *testing.T) {
	adds := append(claudeSettings(false), claudeProxy("http://127.0.0.1:4747")...)
	doc, made, err := addJSON([]byte(claudeUser), adds)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"command":"ctx-truncate --hook claude-code","timeout":10}`) {
		t.Fatalf("no ctx-truncate hook to add to: %s", doc)
	}
	doc = []byte(strings.Replace(string(doc), `"command":"ctx-truncate --hook claude-code","timeout":10}`,
		`"command":"ctx-truncate --hook claude-code","timeout":10},{"type":"command","command":"mine"}`, 1))
	doc = []byte(strings.Replace(string(doc), `"http://127.0.0.1:4747"`, `"http://127.0.0.1:9999"`, 1))
	back, notes, err := removeJSON(doc, made)
	if err != nil {
		t.Fatal(err)
	}
	v := gjson.ParseBytes(back)
	if got := v.Get(`hooks.PreToolUse.#(matcher=="Bash")#.hooks.#.command`).String(); !strings.Contains(got, `"mine"`) || strings.Contains(got, "ctx-truncate") {
		t.Errorf("the Bash groups' commands: %s", got)
	}
	if v.Get("env.ANTHROPIC_BASE_URL").Str != "http://127.0.0.1:9999" || len(notes) != 1 || !strings.Contains(notes[0], "changed since") {
		t.Errorf("the changed setting: %s, notes %q", v.Get("env").Raw, notes)
	}
}

// TestMergeCodex: config.toml keeps its comments, order and layout; the
// key goes after the last top-level key, the table at the end; a second
// run adds nothing; taking them out gives back the file byte for byte.
func TestMergeCodex(t *testing.T) {
	doc, made, err := addTOML([]byte(codexUser), codexTOML())
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(codexUser, "approval_policy = \"on-request\"\n", "approval_policy = \"on-request\"\ntool_output_token_limit = 16000\n", 1) + "\n" + recallTOML
	if string(doc) != want {
		t.Errorf("config.toml became:\n%s\nwant:\n%s", doc, want)
	}
	if _, again, err := addTOML(doc, codexTOML()); err != nil || len(again) > 0 {
		t.Errorf("a second run adds %v: %v", again, err)
	}
	back, notes, err := removeTOML(doc, made)
	if err != nil || len(notes) > 0 || string(back) != codexUser {
		t.Errorf("taken out (%v, %q):\n%s", err, notes, back)
	}
	// A file with no top-level key, and one without its last newline.
	for _, in := range []string{"", "[profiles.fast]\nmodel = \"x\"", "# just a comment\n"} {
		doc, made, err := addTOML([]byte(in), codexTOML())
		if err != nil || len(made) != 2 {
			t.Fatalf("%q: %v, %v", in, made, err)
		}
		back, _, err := removeTOML(doc, made)
		if err != nil || strings.TrimSpace(string(back)) != strings.TrimSpace(in) {
			t.Errorf("%q: added\n%s\ntaken out\n%q (%v)", in, doc, back, err)
		}
	}
	// The user's own limit is theirs: kept, and not taken out.
	own := "tool_output_token_limit = 4000\n"
	doc, made, _ = addTOML([]byte(own), codexTOML())
	if !strings.HasPrefix(string(doc), own) || len(made) != 1 {
		t.Errorf("with the user's own limit: %s", doc)
	}
}

// TestUnparsable: a file ctx-setup cannot parse is an error that says
// where, and nothing changes.
func TestUnparsable(t *testing.T) {
	if _, _, err := addJSON([]byte("{\n  \"model\": \"opus\",\n}\n"), claudeSettings(false)); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("JSON: %v", err)
	}
	if _, _, err := addJSON([]byte(`{"permissions": {"allow": "Bash"}}`), claudeSettings(false)); err == nil || !strings.Contains(err.Error(), "not a list") {
		t.Errorf("allow not a list: %v", err)
	}
	if _, _, err := addTOML([]byte("model = \"x\"\n[broken\n"), codexTOML()); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("TOML: %v", err)
	}
	if _, _, err := addTOML([]byte("mcp_servers = { docs = { command = \"d\" } }\n"), codexTOML()); err == nil {
		t.Errorf("an inline mcp_servers table took a [mcp_servers.ctx-recall] after it")
	}
}

// setup runs ctx-setup in a home of its own.
func setup(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "CTX_PROJECT", "CTX_DRY_RUN", "CTX_UNINSTALL", "CTX_PROXY"} {
		t.Setenv(v, "")
	}
	var stdout, stderr bytes.Buffer
	code := cli.Run(Command, append([]string{Command.Name}, args...), strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCommand: ctx-setup on a user's files: --dry-run prints a diff and
// writes nothing; a run writes, keeps the old file beside it, and a second
// changes nothing; --uninstall gives back the files as they were; a file it
// cannot parse stops it before anything is written.
func TestCommand(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	_ = os.MkdirAll(filepath.Dir(settings), 0o755)
	_ = os.WriteFile(settings, []byte(claudeUser), 0o644)

	out, _, code := setup(t, home, "claude-code", "--dry-run")
	if code != 0 || !strings.Contains(out, "+++ "+settings) || !strings.Contains(out, `+      "mcp__ctx-recall__memory_query",`) || read(t, settings) != claudeUser {
		t.Fatalf("--dry-run: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Fatal("--dry-run wrote ~/.claude.json")
	}
	if _, stderr, code := setup(t, home, "claude-code"); code != 0 || !strings.Contains(stderr, "settings.json.bak") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if read(t, settings+".bak") != claudeUser || gjson.Get(read(t, filepath.Join(home, ".claude.json")), "mcpServers.ctx-recall.command").Str != "ctx-recall" {
		t.Errorf("the backup, or the server in ~/.claude.json")
	}
	written := read(t, settings)
	if out, stderr, code := setup(t, home, "claude-code"); code != 0 || out != "" || stderr != "" || read(t, settings) != written {
		t.Errorf("a second run: exit %d, %q %q", code, out, stderr)
	}
	if _, stderr, code := setup(t, home, "claude-code", "--uninstall"); code != 0 || read(t, settings) != claudeUser {
		t.Errorf("--uninstall: exit %d: %s\n%s", code, stderr, read(t, settings))
	}

	_ = os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	config := filepath.Join(home, ".codex", "config.toml")
	_ = os.WriteFile(config, []byte("model = [\n"), 0o644)
	if _, stderr, code := setup(t, home, "codex"); code != 1 || !strings.Contains(stderr, "config.toml: not TOML at line") || !strings.Contains(stderr, "nothing changed") {
		t.Errorf("a broken config.toml: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); err == nil {
		t.Error("hooks.json was written beside a broken config.toml")
	}
	_ = os.WriteFile(config, []byte("model_provider = \"gateway\"\n"), 0o644)
	if _, stderr, code := setup(t, home, "codex", "--proxy", "http://127.0.0.1:4747"); code != 0 || !strings.Contains(stderr, "model_provider is gateway already: left as it is") ||
		!strings.Contains(read(t, config), `base_url = "http://127.0.0.1:4747/v1"`) {
		t.Errorf("--proxy beside another provider: exit %d: %s\n%s", code, stderr, read(t, config))
	}
	if _, stderr, code := setup(t, home, "cursor"); code != 2 || !strings.Contains(stderr, "claude-code or codex") {
		t.Errorf("an unknown agent: exit %d: %s", code, stderr)
	}
}
