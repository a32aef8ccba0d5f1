package cli

import (
	"runtime/debug"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

func TestReorder(t *testing.T) {
	flags := []ucli.Flag{JSONFlag(""), &ucli.IntFlag{Name: "top"}, BudgetFlag("", ""), &ucli.BoolFlag{Name: "tee"}}
	cases := []struct{ in, want string }{
		{"ctx-count a.jsonl --json", "ctx-count --json -- a.jsonl"},
		{"ctx-count --top 3 a.jsonl b.jsonl --budget=9", "ctx-count --top 3 --budget=9 -- a.jsonl b.jsonl"},
		{"ctx-count a.jsonl -- --weird-name", "ctx-count -- a.jsonl -- --weird-name"},
		{"ctx-count - --tee", "ctx-count --tee -- -"},
		{"ctx-count --json", "ctx-count --json"},
	}
	for _, c := range cases {
		got := strings.Join(reorder(strings.Fields(c.in), flags), " ")
		if got != c.want {
			t.Errorf("reorder(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestVersion(t *testing.T) {
	built := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/ctxkit/ctxkit", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	vcs := func(at, rev, modified string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/ctxkit/ctxkit", Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}}, true
		}
	}
	cases := []struct {
		name, set string
		info      func() (*debug.BuildInfo, bool)
		want      string
	}{
		{"go install @v1.2.3", "", built("v1.2.3"), "v1.2.3"},
		{"go build in a checkout", "", built("v0.0.0-20260101120000-abcdef123456+dirty"), "v0.0.0-20260101120000-abcdef123456+dirty"},
		{"go run, no version stamped", "", built("(devel)"), "(devel)"},
		{"no build info", "", none, "(devel)"},
		{"go 1.23 in a checkout: the commit alone", "", vcs("2026-05-11T13:28:45+02:00", "0123456789abcdef0123", "true"), "v0.0.0-20260511112845-0123456789ab+dirty"},
		{"the commit, clean", "", vcs("2026-05-11T13:28:45Z", "0123456789abcdef0123", "false"), "v0.0.0-20260511132845-0123456789ab"},
		{"a commit without its time", "", vcs("", "0123456789abcdef0123", "false"), "(devel)"},
		{"-ldflags -X", "v9.9.9", built("v1.2.3"), "v9.9.9"},
	}
	for _, c := range cases {
		if got := version(c.set, c.info); got != c.want {
			t.Errorf("%s: version %q, want %q", c.name, got, c.want)
		}
	}
}

// TestOnCommandLine: a flag is given on the command line in any of its
// spellings, and not as a value, a file name or after "--".
func TestOnCommandLine(t *testing.T) {
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"--budget", "30k"}, true},
		{[]string{"-budget=30k"}, true},
		{[]string{"--budget=30k", "s.jsonl"}, true},
		{[]string{"s.jsonl", "--budget", "1"}, true},
		{[]string{"--budget-x", "1"}, false},
		{[]string{"--by", "budget"}, false},
		{[]string{"budget"}, false},
		{[]string{"--", "--budget"}, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := onCommandLine(c.args, "budget"); got != c.want {
			t.Errorf("onCommandLine(%q, budget) = %v, want %v", c.args, got, c.want)
		}
	}
}
