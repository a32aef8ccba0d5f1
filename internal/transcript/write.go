package transcript

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"unsafe"

	"github.com/tidwall/sjson"

	"github.com/ctxkit/ctxkit/internal/jsonscan"
)

// edit replaces src[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

// SetText replaces a result's text. The new text goes where the old one was,
// in the same shape (a string stays a string; an array of blocks becomes one
// text block followed by the non-text blocks it had); the rest of the input
// is untouched. Mirrors are not changed: see SetMirror.
func (t *Transcript) SetText(r *Result, text string) {
	if text == r.Text() {
		return
	}
	c := r.content
	var repl string
	switch c.kind {
	case inString, inNull:
		repl = jsonscan.Quote(text)
	case inBlocks:
		var b bytes.Buffer
		b.WriteString(`[{"type":`)
		b.WriteString(jsonscan.Quote(c.textType))
		b.WriteString(`,"text":`)
		b.WriteString(jsonscan.Quote(text))
		b.WriteByte('}')
		for _, k := range c.keep {
			b.WriteByte(',')
			b.WriteString(k)
		}
		b.WriteByte(']')
		repl = b.String()
	case inMissing:
		repl = jsonscan.Quote(c.key) + ":" + jsonscan.Quote(text)
		if c.hasFields {
			repl = "," + repl
		}
	case inEmbedded:
		inner, err := sjson.Set(c.embedded, "output", text)
		if err != nil {
			panic(fmt.Sprintf("transcript: rewriting embedded output: %v", err))
		}
		repl = jsonscan.Quote(inner)
	}
	t.replace(c.start, c.end, repl)
	if !r.replaced {
		r.original, r.replaced = r.text, true // decoded by the comparison above
	}
	r.text, r.decoded = text, true
}

// SetInput replaces a call's arguments with input, a JSON object, where
// the format holds them (CanSetInput): in place of a tool_use block's input
// object, or as the string of a function call's arguments. A filter leaves
// the arguments of a call alone but to replace the text an edit changed
// with a note that says where it is (ctx-summarize --budget); the rest of
// the input is untouched.
func (t *Transcript) SetInput(c *Call, input string) {
	if !c.CanSetInput() || !jsonscan.Parse(input, 0).IsObject() || !jsonscan.Valid(input) {
		panic("transcript: SetInput of " + c.ID + " without a JSON object where the format can hold one")
	}
	if input == c.Input {
		return
	}
	repl := input
	if c.raw.IsString() {
		repl = jsonscan.Quote(input)
	}
	start, end := c.raw.Span()
	t.replace(start, end, repl)
	c.Input = input
}

// SetMirror replaces the text of a result's i-th mirror (see Result.Mirrors).
func (t *Transcript) SetMirror(r *Result, i int, text string) {
	m := &r.mirrors[i]
	// A text under a sixth of the raw string's size cannot be its value (an
	// escape takes at most six bytes for one): that spares decoding a large
	// mirror only to compare it with a short summary.
	if (m.set || 6*len(text) >= len(m.value.Raw)-2) && text == m.Text() {
		return
	}
	t.replace(m.start, m.end, jsonscan.Quote(text))
	m.text, m.set = text, true
}

func (t *Transcript) replace(start, end int, repl string) {
	if t.edits == nil {
		t.edits = map[int]edit{}
	}
	t.edits[start] = edit{start: start, end: end, repl: repl}
}

// Changed reports whether any result or mirror was changed.
func (t *Transcript) Changed() bool { return len(t.edits) > 0 }

// Size is the size of the input in bytes.
func (t *Transcript) Size() int { return len(t.src) }

// Bytes returns the transcript with its changes. Unchanged, it is the input
// itself, byte for byte: the input's own slice, which the caller must not
// change.
func (t *Transcript) Bytes() []byte {
	if !t.Changed() {
		return unsafe.Slice(unsafe.StringData(t.src), len(t.src)) // the input's own bytes (Parse)
	}
	// The size is known: one buffer of it, neither grown step by step
	// (a hundred megabytes) nor the input's size when filters shrank it.
	size := len(t.src)
	for _, e := range t.edits {
		size += len(e.repl) - (e.end - e.start)
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	t.WriteTo(b) //nolint:errcheck // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteTo writes the transcript with its changes to w.
func (t *Transcript) WriteTo(w io.Writer) (int64, error) {
	edits := make([]edit, 0, len(t.edits))
	for _, e := range t.edits {
		edits = append(edits, e)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var total int64
	pos := 0
	for _, e := range edits {
		n, err := io.WriteString(w, t.src[pos:e.start])
		total += int64(n)
		if err != nil {
			return total, err
		}
		n, err = io.WriteString(w, e.repl)
		total += int64(n)
		if err != nil {
			return total, err
		}
		pos = e.end
	}
	n, err := io.WriteString(w, t.src[pos:])
	return total + int64(n), err
}
