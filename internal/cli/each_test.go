package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"
)

// TestEachParallelLetsGo: a run over many files holds a bounded number of
// them, whatever their number: when the Nth file is gathered, the bytes
// of every file more than a window of jobs before it are gone.
func TestEachParallelLetsGo(t *testing.T) {
	dir := t.TempDir()
	const n, jobs = 60, 2
	var srcs []Source
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("%02d.jsonl", i))
		if err := os.WriteFile(name, bytes.Repeat([]byte("{}\n"), 64<<10/3), 0o666); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, Source{Name: name, size: 64 << 10})
	}
	held := make([]weak.Pointer[byte], n)
	e := &Env{Name: "test", Stderr: &bytes.Buffer{}}
	gathered := 0
	err := e.each(srcs, jobs, func(in Input) (func() error, error) {
		i := indexOf(srcs, in.Name)
		p := weak.Make(&in.Data[0])
		return func() error {
			held[i] = p
			gathered++
			runtime.GC()
			for k := range max(0, i-2*jobs-1) {
				if held[k].Value() != nil {
					t.Errorf("file %d gathered: the bytes of file %d are still held", i, k)
				}
			}
			return nil
		}, nil
	})
	if err != nil || gathered != n {
		t.Fatalf("err %v, %d gathered, want nil, %d", err, gathered, n)
	}
}

func indexOf(srcs []Source, name string) int {
	for i, s := range srcs {
		if s.Name == name {
			return i
		}
	}
	return -1
}
