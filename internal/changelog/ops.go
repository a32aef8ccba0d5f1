package changelog

import (
	"errors"
	"fmt"

	"github.com/ctxkit/ctxkit/internal/patch"
)

// An op is how one call changes one file's content.
type op interface {
	// apply returns the content after the change, given the content before.
	apply(before string) (string, error)
	// pieces are the change's own old and new text, for counting and
	// diffing when the content before is not known; nil when the call does
	// not show them.
	pieces() []piece
}

// piece is a part of a change: old text replaced by new text. context,
// where the call names it, is the line the change is under (an apply_patch
// hunk's @@ line, a unified diff's section heading).
type piece struct {
	old, new string
	context  string
}

// errUnknown is the error of an op whose change the call does not show.
var errUnknown = errors.New("the change is not shown in the call")

// setOp replaces the whole content: a write, a file created.
type setOp struct{ content string }

func (o setOp) apply(string) (string, error) { return o.content, nil }
func (o setOp) pieces() []piece              { return []piece{{new: o.content}} }

// replaceOp is one or more old/new string replacements, in order.
type replaceOp []replacement

type replacement struct {
	old, new string
	all      bool
}

func (o replaceOp) apply(before string) (string, error) {
	s := before
	for i, r := range o {
		var err error
		if s, _, err = patch.Replace(s, r.old, r.new, r.all); err != nil {
			if len(o) > 1 {
				err = fmt.Errorf("edit %d of %d: %w", i+1, len(o), err)
			}
			return "", err
		}
	}
	return s, nil
}

func (o replaceOp) pieces() []piece {
	out := make([]piece, len(o))
	for i, r := range o {
		out[i] = piece{old: r.old, new: r.new}
	}
	return out
}

// insertOp inserts text after a line (0: at the top).
type insertOp struct {
	line int
	text string
}

func (o insertOp) apply(before string) (string, error) { return patch.Insert(before, o.line, o.text) }
func (o insertOp) pieces() []piece                     { return []piece{{new: o.text}} }

// linesOp replaces lines from to to (1-based, inclusive) with text:
// SWE-agent's edit N:M.
type linesOp struct {
	from, to int
	text     string
}

func (o linesOp) apply(before string) (string, error) {
	return patch.ReplaceLines(before, o.from, o.to, o.text)
}

// pieces is nil: the lines replaced are not in the call, only their number.
func (o linesOp) pieces() []piece { return nil }

// appendOp adds text at the end: cat >> F, tee -a.
type appendOp struct{ text string }

func (o appendOp) apply(before string) (string, error) { return before + o.text, nil }
func (o appendOp) pieces() []piece                     { return []piece{{new: o.text}} }

// patchOp is one file's part of a patch: apply_patch, a unified diff.
type patchOp struct{ f patch.File }

func (o patchOp) apply(before string) (string, error) { return o.f.Apply(before) }

func (o patchOp) pieces() []piece {
	if o.f.Op == patch.Add {
		return []piece{{new: o.f.Content}}
	}
	var out []piece
	for _, h := range o.f.Hunks {
		p := piece{old: h.Old(), new: h.New()}
		if len(h.Context) > 0 {
			p.context = h.Context[len(h.Context)-1]
		}
		out = append(out, p)
	}
	if o.f.Op == patch.Delete {
		return nil // the removed lines are not in the patch
	}
	return out
}

// sedOp is a sed -i script.
type sedOp struct{ sed *patch.Sed }

func (o sedOp) apply(before string) (string, error) { return o.sed.Apply(before) }
func (o sedOp) pieces() []piece                     { return nil }

// deleteOp removes the file.
type deleteOp struct{}

func (deleteOp) apply(string) (string, error) { return "", nil }
func (deleteOp) pieces() []piece              { return nil }

// undoOp is str_replace_editor's undo_edit: the content before the file's
// last edit comes back. The replay handles it.
type undoOp struct{}

func (undoOp) apply(string) (string, error) { return "", errUnknown }
func (undoOp) pieces() []piece              { return nil }

// unknownOp is a change the call does not show: why says what it was.
type unknownOp struct{ why string }

func (o unknownOp) apply(string) (string, error) { return "", fmt.Errorf("%s: %w", o.why, errUnknown) }
func (unknownOp) pieces() []piece                { return nil }
