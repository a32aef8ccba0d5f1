package count

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// A partial count is ctx-count --by's count of some of the transcripts in a
// form that adds up: every number a group's row is made of (its tools'
// tokens too, of which the row shows only the top three), none of the
// shares. Counts of parts of a corpus, made on many machines, merged in the
// order of the parts, give the report of the whole corpus counted in one
// run (docs/scale.md).

// PartialCount is the value of "partial" in a partial --by count.
const PartialCount = "count"

// partialGrouped is the JSON form of a partial --by count.
type partialGrouped struct {
	Partial  string         `json:"partial"`
	Version  int            `json:"version"`
	Encoding string         `json:"encoding"`
	By       By             `json:"by"`
	Since    *time.Time     `json:"since,omitempty"`
	Until    *time.Time     `json:"until,omitempty"`
	Sessions int            `json:"sessions"`
	Skipped  int            `json:"skipped"`
	Groups   []partialGroup `json:"groups"`
}

// partialGroup is a group with its tools' tokens. Its shares and top tools
// are left for the report of the whole.
type partialGroup struct {
	Group
	Tools map[string]int `json:"tools"`
}

// MarshalPartial is the count so far as a partial count, its groups by key.
func (g *Grouped) MarshalPartial() ([]byte, error) {
	p := partialGrouped{Partial: PartialCount, Version: g.Version, Encoding: g.Encoding, By: g.By, Since: g.Since, Until: g.Until,
		Sessions: g.Sessions, Skipped: g.Skipped, Groups: make([]partialGroup, 0, len(g.byKey))}
	for _, x := range g.byKey {
		p.Groups = append(p.Groups, partialGroup{Group: *x, Tools: x.tools})
	}
	sort.Slice(p.Groups, func(i, j int) bool { return p.Groups[i].Key < p.Groups[j].Key })
	return json.Marshal(p)
}

// UnmarshalPartial reads a partial count that MarshalPartial wrote.
func UnmarshalPartial(data []byte) (*Grouped, error) {
	var p partialGrouped
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if p.Partial != PartialCount {
		return nil, fmt.Errorf("not a partial --by count (partial %q)", p.Partial)
	}
	if p.Version != SchemaVersion {
		return nil, fmt.Errorf("a partial count of schema version %d (this ctx-count reads %d)", p.Version, SchemaVersion)
	}
	if _, err := ParseBy(string(p.By)); err != nil {
		return nil, err
	}
	g := &Grouped{Version: p.Version, Encoding: p.Encoding, By: p.By, Since: p.Since, Until: p.Until,
		Sessions: p.Sessions, Skipped: p.Skipped, byKey: make(map[string]*Group, len(p.Groups))}
	for _, x := range p.Groups {
		if g.byKey[x.Key] != nil {
			return nil, fmt.Errorf("group %q twice", x.Key)
		}
		grp := x.Group
		grp.tools = x.Tools
		if grp.tools == nil {
			grp.tools = map[string]int{}
		}
		grp.Share, grp.ToolOutputShare, grp.TopTools = 0, 0, nil
		g.byKey[grp.Key] = &grp
	}
	return g, nil
}

// Merge adds the count of other transcripts, counted alike (the same
// grouping, encoding and span of time), after those of g: partial counts
// merged in the order of their transcripts give what one count of them
// all gives.
func (g *Grouped) Merge(o *Grouped) error {
	if err := g.alike(o); err != nil {
		return err
	}
	g.Sessions += o.Sessions
	g.Skipped += o.Skipped
	for k, x := range o.byKey {
		if y := g.byKey[k]; y != nil {
			y.add(x)
		} else {
			g.byKey[k] = x
		}
	}
	return nil
}

// alike says how two counts were not made alike, if they were not.
func (g *Grouped) alike(o *Grouped) error {
	switch {
	case g.By != o.By:
		return fmt.Errorf("counted by %s, not by %s", o.By, g.By)
	case g.Encoding != o.Encoding:
		return fmt.Errorf("counted in %s, not in %s", o.Encoding, g.Encoding)
	case !WindowOf(g.Since, g.Until).Equal(WindowOf(o.Since, o.Until)):
		return errors.New("counted over another span of time (--since, --until)")
	}
	return nil
}
