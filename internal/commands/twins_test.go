package commands

import (
	"fmt"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
)

// TestEnvTwinsMeanOneThing: an environment twin exported for one tool is
// read by every tool that has it, so the flags that share a twin, across
// the binaries and their subcommands, have one name and one type: a
// CTX_WINDOW=200k for ctx-count and ctx-summarize must not be a usage
// error, or another number, to a flag of another tool. CTX_ARCHIVE is the
// one twin of two names: ctx-archive's --db and the filters' --archive
// name the same archive.
func TestEnvTwinsMeanOneThing(t *testing.T) {
	type use struct {
		where, name, kind string
	}
	twins := map[string][]use{}
	var walk func(prefix string, cmds []cli.Command)
	walk = func(prefix string, cmds []cli.Command) {
		for _, c := range cmds {
			where := prefix + c.Name
			for _, f := range c.Flags {
				vars, ok := f.(interface{ GetEnvVars() []string })
				if !ok {
					continue
				}
				for _, v := range vars.GetEnvVars() {
					twins[v] = append(twins[v], use{where, f.Names()[0], fmt.Sprintf("%T", f)})
				}
			}
			walk(where+" ", c.Subcommands)
		}
	}
	walk("", All)
	if len(twins) < 20 {
		t.Fatalf("only %d environment twins found: the test looks at too little", len(twins))
	}
	for v, uses := range twins {
		for _, u := range uses[1:] {
			if u.name != uses[0].name && v != "CTX_ARCHIVE" || u.kind != uses[0].kind {
				t.Errorf("%s is the twin of %s --%s (%s) and of %s --%s (%s)", v, uses[0].where, uses[0].name, uses[0].kind, u.where, u.name, u.kind)
			}
		}
	}
}
