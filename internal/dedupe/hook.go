package dedupe

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/ctxkit/ctxkit/internal/marker"
	"github.com/ctxkit/ctxkit/internal/tools"
	"github.com/ctxkit/ctxkit/internal/transcript"
)

// A hook sees one read at a time, as the agent makes it, and the session's
// transcript of everything before: Seen is what it keeps of the reads there,
// so that a re-read whose content is identical to a read above becomes a
// pointer before it ever enters the context.

// Seen holds, by file and range, the last whole read of a session: its
// call and a fingerprint of its content.
type Seen map[string]SeenRead

// SeenRead is one read that a later one may point at.
type SeenRead struct {
	CallID string `json:"call_id"`
	Hash   string `json:"hash"`
}

func seenKey(file string, rng tools.Range) string { return file + "\x00" + rng.String() }

// Remember adds the reads among calls of t (each with its result, in order)
// to seen and returns it. A failed read, one that a filter replaced, one
// whose content the transcript does not hold and one whose call a marker
// cannot name are not remembered; a read of a file and range replaces the
// one before it.
func Remember(seen Seen, t *transcript.Transcript, calls []*transcript.Call) Seen {
	if seen == nil {
		seen = Seen{}
	}
	for _, c := range calls {
		r := c.Result
		if c.Kind != tools.Read || r == nil || !r.OK() || len(r.Images) > 0 {
			continue
		}
		if content, ok := readContent(t, r); ok {
			seen.Add(c.Args.File(t.Cwd), c.Args.Range, c.ID, content)
		}
	}
	return seen
}

// Add notes a whole read of file and range by call id: the last read of it
// that a later one may point at. A result that a filter replaced is not a
// read to point at.
func (seen Seen) Add(file string, rng tools.Range, id, content string) {
	if file != "" && nameable(id) && !marker.Is(content, "") {
		seen[seenKey(file, rng)] = SeenRead{CallID: id, Hash: fingerprint(content)}
	}
}

// Pointer is the marker that replaces a read of file and range with this
// content when the last read of it above had the same content, and the
// marker is the shorter.
func (seen Seen) Pointer(file string, rng tools.Range, content string) (string, bool) {
	s, ok := seen[seenKey(file, rng)]
	if !ok || s.Hash != fingerprint(content) {
		return "", false
	}
	line := pointerLine(file, rng, content, s.CallID, false)
	return line, len(line) < len(content)
}

// readContent is a read's content as the file has it: in Claude Code's
// transcript the copy kept beside the result (toolUseResult.file.content),
// which has no line numbers and which a stub such as "file unchanged since
// your last Read" does not have; elsewhere the result's text.
func readContent(t *transcript.Transcript, r *transcript.Result) (string, bool) {
	if t.Format != transcript.ClaudeCode {
		return r.Text(), true
	}
	for _, m := range r.Mirrors() {
		if m.Field == "toolUseResult.file.content" {
			return m.Text, true
		}
	}
	return "", false
}

func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
