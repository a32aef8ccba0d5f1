package setupcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// addKind is what a jsonAdd adds.
type addKind string

const (
	addItem addKind = "item" // a value at the end of the array at Path
	addHook addKind = "hook" // a hook group at the end of the array at Path
	addKey  addKind = "key"  // a value at Path, an object's key
)

// jsonAdd is one addition to a JSON settings file, as ctx-setup makes it
// and as its record keeps it, to take out exactly what it put in.
type jsonAdd struct {
	Kind  addKind `json:"kind"`
	Path  string  `json:"path"`
	Value string  `json:"value"` // JSON
	// Matcher and Command name a hook group's hook (addHook).
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command,omitempty"`
	// Created are the objects and arrays on Path that the addition made,
	// taken out with it when nothing else is left in them.
	Created []string `json:"created,omitempty"`
}

// parseJSON checks a settings file: empty is an empty object; anything
// but an object is an error that says where.
func parseJSON(doc []byte) ([]byte, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return []byte("{}"), nil
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := textfmt.LineCol(string(doc), int(se.Offset))
			return nil, fmt.Errorf("not JSON at line %d, column %d: %v", line, col, err)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("not a JSON object")
	}
	return doc, nil
}

// present reports whether the settings already have what a holds, and
// fails where the path holds something of another type.
func (a jsonAdd) present(doc []byte) (bool, error) {
	v := gjson.GetBytes(doc, a.Path)
	switch {
	case !v.Exists():
		return false, nil
	case a.Kind == addKey:
		return true, nil
	case !v.IsArray():
		return false, fmt.Errorf("%s is not a list", a.Path)
	}
	return a.find(v) >= 0, nil
}

// find is the index of a's element in the array v, or -1: an equal value,
// or a group of a's matcher with a's command among its hooks.
func (a jsonAdd) find(v gjson.Result) int {
	want := gjson.Parse(a.Value).Value()
	for i, el := range v.Array() {
		switch a.Kind {
		case addHook:
			if el.Get("matcher").Str == a.Matcher && a.hookIndex(el) >= 0 {
				return i
			}
		default:
			if jsonEqual(el.Value(), want) {
				return i
			}
		}
	}
	return -1
}

// hookIndex is the index of a's command among a group's hooks, or -1.
func (a jsonAdd) hookIndex(group gjson.Result) int {
	for i, h := range group.Get("hooks").Array() {
		if h.Get("command").Str == a.Command {
			return i
		}
	}
	return -1
}

func jsonEqual(x, y any) bool {
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(bx, by)
}

// addJSON makes the additions that doc lacks, and returns the document and
// the additions made, each with the containers it created.
func addJSON(doc []byte, adds []jsonAdd) ([]byte, []jsonAdd, error) {
	doc, err := parseJSON(doc)
	if err != nil {
		return nil, nil, err
	}
	var made []jsonAdd
	for _, a := range adds {
		ok, err := a.present(doc)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			continue
		}
		parts := strings.Split(a.Path, ".")
		for i := range parts {
			p := strings.Join(parts[:i+1], ".")
			if v := gjson.GetBytes(doc, p); !v.Exists() && (a.Kind != addKey || i < len(parts)-1) {
				a.Created = append(a.Created, p)
			} else if v.Exists() && i < len(parts)-1 && !v.IsObject() {
				return nil, nil, fmt.Errorf("%s is not an object", p)
			}
		}
		path := a.Path
		if a.Kind != addKey {
			path += ".-1"
		}
		if doc, err = sjson.SetRawBytes(doc, path, []byte(a.Value)); err != nil {
			return nil, nil, err
		}
		made = append(made, a)
	}
	return doc, made, nil
}

// removeJSON takes out the additions of a record that are still there as
// they were made, and the containers they created that are left empty; the
// notes say what it left.
func removeJSON(doc []byte, adds []jsonAdd) ([]byte, []string, error) {
	doc, err := parseJSON(doc)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	for i := len(adds) - 1; i >= 0; i-- {
		a := adds[i]
		v := gjson.GetBytes(doc, a.Path)
		var del []string
		switch {
		case a.Kind == addKey && v.Exists() && jsonEqual(v.Value(), gjson.Parse(a.Value).Value()):
			del = []string{a.Path}
		case a.Kind == addKey:
			notes = append(notes, a.Path+" changed since ctx-setup wrote it: left")
		case v.IsArray() && a.find(v) >= 0:
			el := a.Path + "." + strconv.Itoa(a.find(v))
			del = []string{el}
			if group := gjson.GetBytes(doc, el); a.Kind == addHook && len(group.Get("hooks").Array()) > 1 {
				del = []string{el + ".hooks." + strconv.Itoa(a.hookIndex(group))} // others were added to the group
			}
		}
		if len(del) == 0 {
			continue // taken out since
		}
		for _, p := range append(del, reversed(a.Created)...) {
			if v := gjson.GetBytes(doc, p); v.Exists() && (p == del[0] || isEmpty(v)) {
				if doc, err = sjson.DeleteBytes(doc, p); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return doc, notes, nil
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func isEmpty(v gjson.Result) bool {
	raw := strings.Join(strings.Fields(v.Raw), "")
	return raw == "{}" || raw == "[]"
}

// formatJSON indents a settings file as Claude Code writes its own (two
// spaces), keys in their order, with a final newline.
func formatJSON(doc []byte) ([]byte, error) {
	var c, b bytes.Buffer
	if err := json.Compact(&c, doc); err != nil {
		return nil, err
	}
	if err := json.Indent(&b, c.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
