// Package setupcmd is ctx-setup: ctxkit's hooks and its MCP server written
// into Claude Code's or Codex's settings, merged with what is there, and
// taken out again.
package setupcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/aymanbagabas/go-udiff"
	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/cli"
	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/userdir"
)

// Command is ctx-setup.
var Command = cli.Command{
	Name:      "ctx-setup",
	Usage:     "write ctxkit's hooks and MCP server into Claude Code's or Codex's settings",
	ArgsUsage: "claude-code|codex",
	Description: `Adds ctxkit's hooks (ctx-loops, ctx-truncate, ctx-dedupe, ctx-playbook; docs/hooks.md) and the
ctx-recall --mcp server (memory_query) to the agent's settings, merged with what is there:
other hooks, permissions, servers and settings stay as they are, and so do config.toml's
comments and order. What is there already is not added again: a second run changes nothing.

   claude-code   ~/.claude/settings.json (hooks; permissions.allow: memory_query and the two
                 parts ctx-truncate's rewrite adds to a command line) and ~/.claude.json (the
                 server); with --project, .claude/settings.json and .mcp.json here
   codex         ~/.codex/hooks.json (hooks) and ~/.codex/config.toml (the server and
                 tool_output_token_limit); $CODEX_HOME for ~/.codex; with --project,
                 .codex/ here, which Codex reads only in a project it trusts

Before a file changes, its old content is kept beside it (FILE.bak). A file it cannot parse
is an error and nothing changes. --uninstall takes out what ctx-setup added and nothing else
(it keeps a record of it in ctxkit/setup.json in the user's data directory); an addition
changed since is left, and said so. --dry-run prints the changes as a unified diff instead.

--proxy URL writes what points the agent at a running ctx-proxy instead (docs/proxy.md):
Claude Code's env.ANTHROPIC_BASE_URL in its settings; Codex's [model_providers.ctx-proxy]
and model_provider, unless config.toml chooses another provider (then it says how).

The binaries must be on the PATH the agent runs its hooks and commands with (make install).

EXAMPLES:
   ctx-setup claude-code
   ctx-setup codex --dry-run
   ctx-setup claude-code --project
   ctx-setup claude-code --proxy http://127.0.0.1:4747
   ctx-setup codex --uninstall`,
	Flags: []ucli.Flag{project, dryRun, uninstall, proxy},
	Run:   runSetup,
}

var (
	project = &ucli.BoolFlag{Name: "project", EnvVars: []string{"CTX_PROJECT"},
		Usage: "write the project's settings, in the current directory, instead of the user's"}
	dryRun = &ucli.BoolFlag{Name: "dry-run", EnvVars: []string{"CTX_DRY_RUN"},
		Usage: "print the changes as a unified diff; write nothing"}
	uninstall = &ucli.BoolFlag{Name: "uninstall", EnvVars: []string{"CTX_UNINSTALL"},
		Usage: "take out what ctx-setup added"}
	proxy = &ucli.StringFlag{Name: "proxy", EnvVars: []string{"CTX_PROXY"},
		Usage: "point the agent at the ctx-proxy at `URL` (" + proxyURL + " by default) instead"}
)

// target is a settings file and what ctxkit adds to it.
type target struct {
	path string
	json []jsonAdd
	toml []tomlAdd
	note string // said when the file changes
}

func runSetup(e *cli.Env) error {
	if e.NArg() != 1 {
		return cli.Usagef("name the agent: claude-code or codex")
	}
	targets, err := targetsOf(e.Args().First(), e.Bool(project.Name), e.String(proxy.Name))
	if err != nil {
		return err
	}
	rec, err := loadRecord()
	if err != nil {
		return err
	}
	// Every file is read and changed in memory first: one that cannot be
	// parsed stops the run before anything is written.
	var changes []change
	for _, t := range targets {
		c, err := t.change(rec, e.Bool(uninstall.Name))
		if err != nil {
			return cli.Failf("%s: %v; nothing changed", t.path, err)
		}
		if !bytes.Equal(c.old, c.new) {
			changes = append(changes, c)
		}
		for _, n := range c.notes {
			e.Note(t.path + ": " + n)
		}
	}
	if e.Bool(dryRun.Name) {
		for _, c := range changes {
			fmt.Fprint(e.Stdout, udiff.Unified(c.path, c.path, string(c.old), string(c.new)))
		}
		return nil
	}
	for _, c := range changes {
		if err := c.write(rec); err != nil {
			return cli.Failf("%s: %v", c.path, err)
		}
		e.Note(c.summary())
	}
	if len(changes) > 0 {
		return rec.save()
	}
	return nil
}

// targetsOf are the files of an agent's settings, the user's or the
// project's, and what goes into each.
func targetsOf(agent string, inProject bool, proxyURL string) ([]target, error) {
	root, err := settingsRoot(agent, inProject)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, cli.Failf("%v", err)
	}
	if proxyURL != "" {
		if agent == "codex" {
			return []target{{path: filepath.Join(root, "config.toml"), toml: codexProxy(proxyURL)}}, nil
		}
		return []target{{path: filepath.Join(root, "settings.json"), json: claudeProxy(proxyURL)}}, nil
	}
	switch {
	case agent == "codex":
		t := []target{
			{path: filepath.Join(root, "hooks.json"), json: hookAdds(codexHooks)},
			{path: filepath.Join(root, "config.toml"), toml: codexTOML()},
		}
		if inProject {
			t[0].note = "Codex runs a project's hooks only once you trust the project"
		}
		return t, nil
	case inProject:
		return []target{
			{path: filepath.Join(root, "settings.json"), json: claudeSettings(true)},
			{path: filepath.Join(filepath.Dir(root), ".mcp.json"), json: []jsonAdd{{Kind: addKey, Path: "mcpServers." + recallServer, Value: recallJSON(false)}}},
		}, nil
	}
	userFile := filepath.Join(filepath.Dir(root), ".claude.json") // where claude mcp add --scope user writes
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		userFile = filepath.Join(dir, ".claude.json")
	}
	return []target{
		{path: filepath.Join(root, "settings.json"), json: claudeSettings(false)},
		{path: userFile, json: []jsonAdd{{Kind: addKey, Path: "mcpServers." + recallServer, Value: recallJSON(true)}}},
	}, nil
}

// settingsRoot is the directory of an agent's settings.
func settingsRoot(agent string, inProject bool) (string, error) {
	dirs := map[string][2]string{"claude-code": {".claude", "CLAUDE_CONFIG_DIR"}, "codex": {".codex", "CODEX_HOME"}}
	d, ok := dirs[agent]
	if !ok {
		return "", cli.Usagef("unknown agent %q: claude-code or codex", agent)
	}
	if inProject {
		wd, err := os.Getwd()
		return filepath.Join(wd, d[0]), err
	}
	if dir := os.Getenv(d[1]); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", cli.Failf("no home directory: %v", err)
	}
	return filepath.Join(home, d[0]), nil
}

// change is a settings file before and after.
type change struct {
	path     string
	old, new []byte
	existed  bool
	made     fileRecord // what was added (nil on --uninstall)
	notes    []string
	remove   bool
	note     string
}

// change computes what the file becomes.
func (t target) change(rec record, remove bool) (change, error) {
	c := change{path: t.path, remove: remove, note: t.note}
	old, err := os.ReadFile(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, err
	default:
		c.existed = true
	}
	c.old, c.new = old, old
	if remove {
		c.made = t.recorded(rec[t.path])
		if len(c.made.JSON)+len(c.made.TOML) == 0 {
			return c, nil
		}
		if t.toml != nil {
			c.new, c.notes, err = removeTOML(old, c.made.TOML)
		} else {
			c.new, c.notes, err = removeJSON(old, c.made.JSON)
		}
	} else if t.toml != nil {
		c.new, c.made.TOML, c.notes, err = addTOMLNoting(old, t.toml)
	} else {
		c.new, c.made.JSON, err = addJSON(old, t.json)
	}
	if err != nil {
		return c, err
	}
	if t.toml == nil && (len(c.made.JSON) > 0 || remove) {
		c.new, err = formatJSON(c.new)
	}
	if remove && t.toml == nil && !c.existed {
		c.new = nil
	}
	return c, err
}

// write keeps the old content beside the file, writes the new one and
// notes it in the record.
func (c change) write(rec record) error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	if c.existed {
		if err := safefile.Write(c.path+".bak", bytes.NewReader(c.old)); err != nil {
			return err
		}
	}
	if err := safefile.Write(c.path, bytes.NewReader(c.new)); err != nil {
		return err
	}
	r := rec[c.path]
	if c.remove {
		r = r.without(c.made)
	} else {
		r.JSON, r.TOML = append(r.JSON, c.made.JSON...), append(r.TOML, c.made.TOML...)
	}
	rec[c.path] = r
	if len(r.JSON)+len(r.TOML) == 0 {
		delete(rec, c.path)
	}
	return nil
}

// recorded are the additions of the record that are the target's own:
// --uninstall takes out the hooks and server, --proxy --uninstall the
// proxy's, each leaving the other.
func (t target) recorded(r fileRecord) fileRecord {
	var out fileRecord
	for _, a := range r.JSON {
		for _, b := range t.json {
			if a.Kind == b.Kind && a.Path == b.Path && a.Matcher == b.Matcher && a.Command == b.Command && (a.Kind == addKey || a.Value == b.Value) {
				out.JSON = append(out.JSON, a)
				break
			}
		}
	}
	for _, a := range r.TOML {
		for _, b := range t.toml {
			if a.Key == b.Key && a.Table == b.Table {
				out.TOML = append(out.TOML, a)
				break
			}
		}
	}
	return out
}

// without is the record less the additions taken out.
func (r fileRecord) without(gone fileRecord) fileRecord {
	var out fileRecord
	for _, a := range r.JSON {
		if !slices.ContainsFunc(gone.JSON, func(b jsonAdd) bool { return reflect.DeepEqual(a, b) }) {
			out.JSON = append(out.JSON, a)
		}
	}
	for _, a := range r.TOML {
		if !slices.Contains(gone.TOML, a) {
			out.TOML = append(out.TOML, a)
		}
	}
	return out
}

func (c change) summary() string {
	verb := fmt.Sprintf("added %d", len(c.made.JSON)+len(c.made.TOML))
	if c.remove {
		verb = "took out ctxkit's additions"
	}
	s := c.path + ": " + verb
	if c.existed {
		s += "; the old file is " + filepath.Base(c.path) + ".bak"
	}
	if c.note != "" {
		s += "; " + c.note
	}
	return s
}

// record is what ctx-setup added, by settings file (its absolute path).
type record map[string]fileRecord

type fileRecord struct {
	JSON []jsonAdd `json:"json,omitempty"`
	TOML []tomlAdd `json:"toml,omitempty"`
}

const recordName = "setup.json"

func loadRecord() (record, error) {
	path, err := userdir.DataFile(recordName)
	if err != nil {
		return nil, cli.Failf("%v", err)
	}
	rec := record{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rec, nil
	case err != nil:
		return nil, cli.Failf("%v", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, cli.Failf("%s: %v", path, err)
	}
	return rec, nil
}

func (r record) save() error {
	path, err := userdir.DataFile(recordName)
	if err != nil {
		return cli.Failf("%v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return cli.Failf("%v", err)
	}
	data, _ := json.MarshalIndent(r, "", "  ")
	if err := safefile.Write(path, bytes.NewReader(append(data, '\n'))); err != nil {
		return cli.Failf("%v", err)
	}
	return nil
}
