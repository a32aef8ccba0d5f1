// Package transcripttest holds what the tests of the packages built on
// internal/transcript share: parsing a transcript or failing the test, and
// cutting one before a message (a live loop's history at a request;
// parse it in the original's format: a short history may not tell it).
package transcripttest

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
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

// Prefix is data, the bytes of tr, cut before its message i: the history
// an agent had before that message, in the same format and layout. A JSONL
// file is cut at the line the message starts on; a JSON document keeps
// everything but the elements of its messages array from the message's on.
func Prefix(t testing.TB, data []byte, tr *transcript.Transcript, i int) []byte {
	t.Helper()
	if i >= len(tr.Messages) {
		return data
	}
	pos := tr.Messages[i].Pos
	if tr.Layout == transcript.JSONL {
		off, line := 0, 1
		for line < pos.Line {
			nl := bytes.IndexByte(data[off:], '\n')
			if nl < 0 {
				t.Fatalf("no line %d", pos.Line)
			}
			off += nl + 1
			line++
		}
		return data[:off]
	}
	src := string(data)
	start := len(src) - len(strings.TrimLeft(src, " \t\r\n\ufeff"))
	root := jsonscan.Parse(strings.TrimRight(src[start:], " \t\r\n"), start)
	msgs := root
	if root.IsObject() {
		f := root.Fields("messages", "history")
		if msgs = f[0]; !msgs.IsArray() {
			msgs = f[1]
		}
	}
	if !msgs.IsArray() {
		t.Fatalf("no messages array to cut")
	}
	cut := msgs.Off + 1 // after the '[': an empty array when nothing is kept
	k := 0
	msgs.Each(func(v jsonscan.Value) bool {
		if k >= pos.Element {
			return false
		}
		_, cut = v.Span()
		k++
		return true
	})
	_, end := msgs.Span()
	return []byte(src[:cut] + src[end-1:])
}
