// Package transcripttest holds what the tests of the packages built on
// internal/transcript share: parsing a transcript or failing the test.
package transcripttest

import (
	"os"
	"testing"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Parse parses data, detecting its format, or fails the test.
func Parse(t testing.TB, data []byte) *transcript.Transcript {
	t.Helper()
	tr, err := transcript.Parse(data, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Load reads and parses the transcript at path, or fails the test.
func Load(t testing.TB, path string) *transcript.Transcript {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(t, data)
}
