package setupcmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxkit/ctxkit/internal/hook/shellwrap"
)

// This file is the one source of what ctxkit puts into an agent's
// settings: ctx-setup writes it, and the files of examples/hooks are
// rendered from it (TestExamples fails when they differ).

// hookTimeout is every hook's timeout, in seconds: a hook that takes
// longer is stopped and the call goes on.
const hookTimeout = 10

// agentHook is one of ctxkit's hooks: the command the agent runs on the
// event, for the tools (or SessionStart sources) the matcher names.
type agentHook struct {
	Event, Matcher, Command string
}

// claudeHooks are Claude Code's: ctx-loops before every call and after it
// (its transcript lags behind its hooks), ctx-truncate's rewrite before a
// Bash call and its cut after one it did not rewrite, ctx-dedupe after a
// Read and when a compaction or /clear drops the earlier reads, and the
// playbook when a session starts with an empty context.
var claudeHooks = []agentHook{
	{"PreToolUse", "*", "ctx-loops --hook claude-code"},
	{"PreToolUse", "Bash", "ctx-truncate --hook claude-code"},
	{"PostToolUse", "*", "ctx-loops --hook claude-code"},
	{"PostToolUse", "Bash", "ctx-truncate --hook claude-code"},
	{"PostToolUse", "Read", "ctx-dedupe --hook claude-code"},
	{"PostToolUseFailure", "*", "ctx-loops --hook claude-code"},
	{"SessionStart", "compact|clear", "ctx-dedupe --hook claude-code"},
	{"SessionStart", "startup|clear|compact", "ctx-playbook render --hook claude-code"},
}

// codexHooks are Codex's: Codex takes a rewritten command only with an
// allow decision, which would skip the user's approvals, so ctx-truncate
// has no hook there (Codex cuts long output itself; ctx-proxy compacts).
var codexHooks = []agentHook{
	{"PreToolUse", "*", "ctx-loops --hook codex"},
	{"SessionStart", "startup|clear", "ctx-playbook render --hook codex"},
}

// recallServer is the MCP server's name, and memoryQuery its tool as
// Claude Code names it.
const (
	recallServer = "ctx-recall"
	memoryQuery  = "mcp__ctx-recall__memory_query"
)

// claudeAllow are the permission rules Claude Code's settings get: the
// MCP tool (in -p mode a tool not allowed is refused), and the two parts
// ctx-truncate's rewrite adds to a command line, which must not make
// Claude Code ask where it would not have asked.
func claudeAllow() []string {
	return append([]string{memoryQuery}, shellwrap.Rules("ctx-truncate")...)
}

// toolOutputLimit is Codex's tool_output_token_limit in config.toml: a
// memory_query answer (up to 40,000 bytes, some 12,000 tokens) passes whole.
const toolOutputLimit = 16000

// groupJSON is a hook group as both agents read it.
func groupJSON(h agentHook) string {
	return fmt.Sprintf(`{"matcher":%s,"hooks":[{"type":"command","command":%s,"timeout":%d}]}`,
		quoteJSON(h.Matcher), quoteJSON(h.Command), hookTimeout)
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hookAdds are the hook groups of hooks as additions to a JSON settings
// file (Claude Code's settings.json, Codex's hooks.json).
func hookAdds(hooks []agentHook) []jsonAdd {
	var out []jsonAdd
	for _, h := range hooks {
		out = append(out, jsonAdd{Kind: addHook, Path: "hooks." + h.Event, Value: groupJSON(h), Matcher: h.Matcher, Command: h.Command})
	}
	return out
}

// claudeSettings are the additions to Claude Code's settings.json; with
// project, the approval of the project's .mcp.json server too.
func claudeSettings(project bool) []jsonAdd {
	var out []jsonAdd
	for _, r := range claudeAllow() {
		out = append(out, jsonAdd{Kind: addItem, Path: "permissions.allow", Value: quoteJSON(r)})
	}
	if project {
		out = append(out, jsonAdd{Kind: addItem, Path: "enabledMcpjsonServers", Value: quoteJSON(recallServer)})
	}
	return append(out, hookAdds(claudeHooks)...)
}

// recallJSON is the MCP server as a project's .mcp.json and Claude Code's
// user file (~/.claude.json) declare it.
func recallJSON(withType bool) string {
	if withType {
		return `{"type":"stdio","command":"ctx-recall","args":["--mcp"],"env":{}}`
	}
	return `{"command":"ctx-recall","args":["--mcp"]}`
}

// codexTOML are the additions to Codex's config.toml: the output limit at
// the top, and the MCP server's table.
func codexTOML() []tomlAdd {
	return []tomlAdd{
		{Key: "tool_output_token_limit", Text: fmt.Sprintf("tool_output_token_limit = %d", toolOutputLimit)},
		{Table: "mcp_servers." + recallServer, Text: recallTOML},
	}
}

const recallTOML = `# ctxkit: memory_query gives back what ctxkit's hooks and filters archived.
[mcp_servers.ctx-recall]
command = "ctx-recall"
args = ["--mcp"]
`

// codexConfigExample is examples/hooks/codex/config.toml: the additions
// of codexTOML and the hooks of hooks.json as TOML, for a user who keeps
// everything in config.toml.
func codexConfigExample() string {
	var b strings.Builder
	b.WriteString(`# The same hooks as hooks.json, for ~/.codex/config.toml, with the MCP
# server that gives back what the hooks and filters archived
# (memory_query), and an output limit that lets its answer (up to 40,000
# bytes, some 12,000 tokens) through whole. ctx-setup codex writes the
# same, with the hooks in hooks.json.

`)
	adds := codexTOML()
	b.WriteString(adds[0].Text + "\n\n" + adds[1].Text)
	for _, h := range codexHooks {
		fmt.Fprintf(&b, "\n[[hooks.%s]]\nmatcher = %s\n\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n",
			h.Event, quoteJSON(h.Matcher), h.Event, quoteJSON(h.Command), hookTimeout)
	}
	return b.String()
}

// proxyURL is where ctx-proxy listens by default.
const proxyURL = "http://127.0.0.1:4747"

// claudeProxy points Claude Code at a ctx-proxy: its settings' env.
func claudeProxy(url string) []jsonAdd {
	return []jsonAdd{{Kind: addKey, Path: "env.ANTHROPIC_BASE_URL", Value: quoteJSON(url)}}
}

// codexProxy points Codex at a ctx-proxy: a provider with the proxy's
// address, and that provider chosen unless config.toml chooses another.
func codexProxy(url string) []tomlAdd {
	return []tomlAdd{
		{Key: "model_provider", Text: `model_provider = "ctx-proxy"`},
		{Table: "model_providers.ctx-proxy", Text: fmt.Sprintf(`# ctxkit: every request through ctx-proxy (docs/proxy.md).
[model_providers.ctx-proxy]
name = "OpenAI through ctx-proxy"
base_url = %s
env_key = "OPENAI_API_KEY"
wire_api = "responses"
`, quoteJSON(strings.TrimSuffix(url, "/")+"/v1"))},
	}
}
