package compactcmd

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/cli"
)

func TestZZProf(t *testing.T) {
	f := os.Getenv("ZZ_FILE")
	if f == "" {
		t.Skip()
	}
	code := cli.Run(Command, []string{"ctx-compact", f}, strings.NewReader(""), io.Discard, os.Stderr)
	if code != 0 {
		t.Fatal(code)
	}
}
