//go:build linux

package commands

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDeepNesting: ten million opening brackets on stdin end every tool
// with exit 1 and one line, in memory that does not grow with the nesting
// (the recursive validator this replaced took a gigabyte of stack).
func TestDeepNesting(t *testing.T) {
	_, dir := shell(t)
	deep := bytes.Repeat([]byte("["), 10_000_000)
	args := map[string][]string{"ctx-playbook": {"learn"}} // the command that reads transcripts
	for _, cmd := range All {
		name := cmd.Name
		if name == "ctx-recall" || name == "ctx-proxy" || name == "ctx-setup" {
			continue // they read an archive, requests, settings: no transcript on stdin
		}
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(dir, name), args[name]...)
			cmd.Stdin = bytes.NewReader(deep)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Fatalf("exit %d (%v), want 1; stderr: %.300s", code, err, stderr.String())
			}
			want := name + ": <stdin>:1:10001: invalid JSON: nesting deeper than 10000\n"
			if stdout.Len() > 0 || stderr.String() != want {
				t.Errorf("stdout %q, stderr %.300q; want only %q", stdout.String(), stderr.String(), want)
			}
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				return
			}
			t.Logf("peak memory %d KB", ru.Maxrss)
			if rss := ru.Maxrss; rss > 400<<10 { // kilobytes, on Linux
				t.Errorf("peak memory %d KB for a 10 MB input", rss)
			}
		})
	}
}
