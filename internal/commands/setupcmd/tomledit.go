package setupcmd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml is edited as text, so that its comments, order and
// layout stay as they are: go-toml parses it (to refuse a file it cannot
// read, to know which keys are there, and to find where the top-level
// keys end), but neither it nor any other Go TOML library writes a
// document back with its comments. ctx-setup's additions are whole lines:
// a top-level key after the last top-level key, a table at the end; the
// result is parsed again before anything is written.

// tomlAdd is one addition to config.toml, inserted verbatim: a top-level
// key (Key) or a table (Table, by its dotted name).
type tomlAdd struct {
	Key   string `json:"key,omitempty"`
	Table string `json:"table,omitempty"`
	Text  string `json:"text"`
}

// parseTOML reads a config.toml into its values; the error says where.
func parseTOML(doc []byte) (map[string]any, error) {
	var m map[string]any
	if err := toml.Unmarshal(doc, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("not TOML at line %d, column %d: %v", line, col, de)
		}
		return nil, fmt.Errorf("not TOML: %v", err)
	}
	return m, nil
}

// present reports whether the document has a's key or table.
func (a tomlAdd) present(m map[string]any) bool {
	if a.Key != "" {
		_, ok := m[a.Key]
		return ok
	}
	var v any = m
	for _, k := range strings.Split(a.Table, ".") {
		t, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = t[k]; !ok {
			return false
		}
	}
	return true
}

// addTOML makes the additions doc lacks, and returns the document and the
// additions made.
func addTOML(doc []byte, adds []tomlAdd) ([]byte, []tomlAdd, error) {
	doc, made, _, err := addTOMLNoting(doc, adds)
	return doc, made, err
}

// addTOMLNoting is addTOML, with a note for each top-level key left as the
// user set it, to another value than ctxkit's.
func addTOMLNoting(doc []byte, adds []tomlAdd) ([]byte, []tomlAdd, []string, error) {
	m, err := parseTOML(doc)
	if err != nil {
		return nil, nil, nil, err
	}
	var made []tomlAdd
	var notes []string
	for _, a := range adds {
		if a.present(m) {
			if want, _ := parseTOML([]byte(a.Text)); a.Key != "" && !jsonEqual(want[a.Key], m[a.Key]) {
				notes = append(notes, fmt.Sprintf("%s is %v already: left as it is (ctxkit's: %s)", a.Key, m[a.Key], a.Text))
			}
			continue
		}
		if a.Key != "" {
			doc = insertAt(doc, topKeysEnd(doc), a.Text+"\n")
		} else {
			if len(doc) > 0 && !bytes.HasSuffix(doc, []byte("\n")) {
				doc = append(doc, '\n')
			}
			if len(doc) > 0 {
				doc = append(doc, '\n')
			}
			doc = append(doc, a.Text...)
		}
		made = append(made, a)
	}
	if _, err := parseTOML(doc); err != nil {
		return nil, nil, nil, fmt.Errorf("ctxkit's additions would not fit with what is there (%v)", err)
	}
	return doc, made, notes, nil
}

// topKeysEnd is where a new top-level key goes: after the line of the
// last top-level key, or at the start of a document that has none.
func topKeysEnd(doc []byte) int {
	p := unstable.Parser{}
	p.Reset(doc)
	end := 0
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			break
		}
		if e.Kind == unstable.KeyValue {
			end = int(e.Raw.Offset + e.Raw.Length)
		}
	}
	if end == 0 {
		return 0
	}
	if i := bytes.IndexByte(doc[end:], '\n'); i >= 0 {
		return end + i + 1
	}
	return len(doc)
}

func insertAt(doc []byte, at int, text string) []byte {
	if at == len(doc) && at > 0 && doc[at-1] != '\n' {
		text = "\n" + text
	}
	if at == 0 && len(doc) > 0 {
		text += "\n" // a blank line before what was first
	}
	out := append([]byte{}, doc[:at]...)
	out = append(out, text...)
	return append(out, doc[at:]...)
}

// removeTOML takes out the additions of a record that are still there as
// they were made; the notes say what it left.
func removeTOML(doc []byte, adds []tomlAdd) ([]byte, []string, error) {
	if _, err := parseTOML(doc); err != nil {
		return nil, nil, err
	}
	var notes []string
	for _, a := range adds {
		text := []byte(a.Text)
		if a.Key != "" {
			text = append(text, '\n')
		}
		i := lineIndex(doc, text)
		if i < 0 {
			notes = append(notes, fmt.Sprintf("%s%s changed since ctx-setup wrote it: left", a.Key, a.Table))
			continue
		}
		end := i + len(text)
		if a.Table != "" && i > 0 && bytes.HasSuffix(doc[:i], []byte("\n\n")) {
			i-- // the blank line put before it
		} else if a.Key != "" && i == 0 && bytes.HasPrefix(doc[end:], []byte("\n")) {
			end++
		}
		doc = append(doc[:i:i], doc[end:]...)
	}
	if _, err := parseTOML(doc); err != nil {
		return nil, nil, fmt.Errorf("taking out ctxkit's additions would break it (%v)", err)
	}
	return doc, notes, nil
}

// lineIndex is where text starts at the start of a line of doc, or -1.
func lineIndex(doc, text []byte) int {
	for off := 0; off <= len(doc); {
		i := bytes.Index(doc[off:], text)
		if i < 0 {
			return -1
		}
		if at := off + i; at == 0 || doc[at-1] == '\n' {
			return at
		}
		off += i + 1
	}
	return -1
}
