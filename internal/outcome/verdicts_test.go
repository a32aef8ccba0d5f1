package outcome_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/summarize"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
	"github.com/ctxkit/ctxkit/internal/truncate"
)

// TestFiltersAgree feeds every line of the table, in the middle of a long
// failed command's output, through ctx-truncate and ctx-summarize, and
// checks that both keep it exactly when outcome says it tells what went
// wrong: the filters hold no list of their own.
func TestFiltersAgree(t *testing.T) {
	var filler []string
	for i := range 60 {
		filler = append(filler, fmt.Sprintf("step %d of the build", i))
	}
	pad := strings.Join(filler, "\n")
	call := &transcript.Call{Name: "Bash", Kind: tools.Shell, Args: tools.Args{Command: "make test"}, Result: &transcript.Result{}}
	for _, c := range outcome.LineKinds {
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		text := pad + "\n" + c.Text + "\n" + pad + "\n"
		want := c.Kind.IsError()

		cut, ok := truncate.Cut(text, truncate.Rules{Max: 500, Head: 100, Tail: 100, Failed: true})
		if !ok {
			t.Fatalf("%q: not cut", c.Text)
		}
		if got := keptUnderMarker(cut, c.Text); got != want {
			t.Errorf("ctx-truncate kept %q: %v, want %v (%v)", c.Text, got, want, c.Kind)
		}

		sum, ok := summarize.Rules{}.Summarize(call, text)
		if !ok {
			t.Fatalf("%q: not summarized", c.Text)
		}
		if got := hasLine(sum, c.Text); got != want {
			t.Errorf("ctx-summarize kept %q: %v, want %v (%v)", c.Text, got, want, c.Kind)
		}
	}
}

// keptUnderMarker reports whether a cut keeps line among the numbered
// lines under its marker ("  61: line").
func keptUnderMarker(cut, line string) bool {
	for _, l := range strings.Split(cut, "\n") {
		num, rest, ok := strings.Cut(strings.TrimLeft(l, " "), ": ")
		if ok && num != "" && strings.Trim(num, "0123456789") == "" && rest == line {
			return true
		}
	}
	return false
}

func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
