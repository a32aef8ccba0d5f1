package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/hook"
	"github.com/ctxkit/ctxkit/internal/parallel"
)

// TestHookNeverBlocks: whatever a hook's handler does wrong, even a panic in
// work spread over the cores, the call goes on: exit status 0, nothing on
// stdout, one line on stderr.
func TestHookNeverBlocks(t *testing.T) {
	handlers := map[string]Handler{
		"error": func(hook.Agent, hook.Payload) (hook.Answer, error) { return nil, errors.New("no luck\ntwo lines") },
		"panic": func(hook.Agent, hook.Payload) (hook.Answer, error) { panic("boom") },
		"panic in parallel work": func(hook.Agent, hook.Payload) (hook.Answer, error) {
			parallel.For(1000, 1, func(i int) {
				if i == 999 {
					panic("boom")
				}
			})
			return nil, nil
		},
	}
	for name, h := range handlers {
		cmd := Command{Name: "ctx-test", Flags: []ucli.Flag{HookFlag}, Run: func(e *Env) error { return e.Hook(h) }}
		var stdout, stderr bytes.Buffer
		code := Run(cmd, []string{"ctx-test", "--hook", "claude-code"}, strings.NewReader(`{"hook_event_name":"PreToolUse"}`), &stdout, &stderr)
		if code != ExitOK || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
			!strings.HasSuffix(stderr.String(), "; the agent goes on as if the hook were not there\n") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, stdout.String(), stderr.String())
		}
	}
}
