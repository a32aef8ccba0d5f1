package playbook

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxkit/ctxkit/internal/textfmt"
	"github.com/ctxkit/ctxkit/internal/tokens"
)

// Format is how Render writes the strategies.
type Format string

// The formats.
const (
	Markdown Format = "markdown" // sections and bullets, for a system prompt or a person
	ACE      Format = "ace"      // ACE's lines: [fil-00042] helpful=5 harmful=0 :: content, under ## SECTION
	JSON     Format = "json"     // the strategies as JSON, for scripts
)

// ParseFormat reads a format's name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case Markdown, ACE, JSON:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want markdown, ace or json)", s)
}

// RenderOptions bound what Render writes.
type RenderOptions struct {
	Format Format
	// MaxStrategies is the most strategies written (the design's 50); 0:
	// no limit.
	MaxStrategies int
	// MaxTokens is the most tokens the text may have, counted by Counter;
	// 0: no limit.
	MaxTokens int
	Counter   tokens.Counter
}

// Rendered is what Render wrote.
type Rendered struct {
	Text    []byte
	Shown   int // strategies written
	Omitted int // strategies left out by the limits
	Tokens  int // the text's tokens, when a Counter was given
}

// Rank returns the strategies best first: the most helpful less harmful,
// then the most effective, then the most used, then the oldest (the lowest
// id number).
func Rank(list []*Strategy) []*Strategy {
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b *Strategy) int {
		if d := (b.Helpful - b.Harmful) - (a.Helpful - a.Harmful); d != 0 {
			return d
		}
		if ea, eb := a.Effectiveness(), b.Effectiveness(); ea != eb {
			if ea > eb {
				return -1
			}
			return 1
		}
		if d := b.Total() - a.Total(); d != 0 {
			return d
		}
		na, _ := idNumber(a.ID)
		nb, _ := idNumber(b.ID)
		if na != nb {
			return na - nb
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Render writes the strategies best first (Rank), as many as fit both
// limits: a strategy that would take the text over MaxTokens is left out
// and the next ones tried. A playbook with nothing to show is no text in
// markdown and ace, and an empty list in JSON.
func Render(p *Playbook, o RenderOptions) (Rendered, error) {
	if o.MaxTokens > 0 && o.Counter == nil {
		return Rendered{}, errors.New("a token limit needs a counter")
	}
	if o.MaxStrategies < 0 || o.MaxTokens < 0 {
		return Rendered{}, errors.New("the limits are 0 (none) or more")
	}
	write := writer(o.Format)
	if write == nil {
		return Rendered{}, fmt.Errorf("unknown format %q", o.Format)
	}
	ranked := Rank(p.Strategies)
	var shown []*Strategy
	for _, s := range ranked {
		if o.MaxStrategies > 0 && len(shown) == o.MaxStrategies {
			break
		}
		try := append(slices.Clip(shown), s)
		if o.MaxTokens > 0 && o.Counter.Count(string(write(try))) > o.MaxTokens {
			continue
		}
		shown = try
	}
	return finish(write, shown, len(ranked)-len(shown), o), nil
}

func finish(write func([]*Strategy) []byte, shown []*Strategy, omitted int, o RenderOptions) Rendered {
	r := Rendered{Text: write(shown), Shown: len(shown), Omitted: omitted}
	if o.Counter != nil {
		r.Tokens = o.Counter.Count(string(r.Text))
	}
	return r
}

func writer(f Format) func([]*Strategy) []byte {
	switch f {
	case Markdown:
		return markdown
	case ACE:
		return ace
	case JSON:
		return jsonList
	}
	return nil
}

// sections groups strategies by category, in the order of each category's
// best strategy, each keeping its order.
func sections(list []*Strategy) [][]*Strategy {
	var out [][]*Strategy
	at := map[string]int{}
	for _, s := range list {
		i, ok := at[s.Category]
		if !ok {
			i = len(out)
			at[s.Category] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

// Title is a category as a heading: file_operations → File operations.
func Title(category string) string {
	t := strings.ReplaceAll(category, "_", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

const markdownHead = "# Playbook\n\nStrategies learned from earlier sessions, best first. The counts say how often following one was followed by success (helpful) or by a failure or a loop (harmful).\n"

func markdown(list []*Strategy) []byte {
	if len(list) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(markdownHead)
	for _, sec := range sections(list) {
		fmt.Fprintf(&b, "\n## %s\n\n", Title(sec[0].Category))
		for _, s := range sec {
			fmt.Fprintf(&b, "- [%s] %s (helpful %d, harmful %d)\n", s.ID, textfmt.Escape(s.Content), s.Helpful, s.Harmful)
		}
	}
	return []byte(b.String())
}

func ace(list []*Strategy) []byte {
	var b strings.Builder
	for i, sec := range sections(list) {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "## %s\n", sec[0].Category)
		for _, s := range sec {
			fmt.Fprintf(&b, "[%s] helpful=%d harmful=%d :: %s\n", s.ID, s.Helpful, s.Harmful, textfmt.Escape(s.Content))
		}
	}
	return []byte(b.String())
}

// Shown is a strategy as the JSON rendering gives it: no evidence, its
// effectiveness.
type Shown struct {
	Entry
	Effectiveness float64 `json:"effectiveness"`
}

func jsonList(list []*Strategy) []byte {
	out := make([]Shown, len(list))
	for i, s := range list {
		out[i] = Shown{Entry: s.Entry, Effectiveness: math.Round(s.Effectiveness()*1000) / 1000}
	}
	data, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return data
}

// Stats are a playbook's counts.
type Stats struct {
	Strategies  int             `json:"strategies"`
	Helpful     int             `json:"helpful"`
	Harmful     int             `json:"harmful"`
	Neutral     int             `json:"neutral"`
	Evidence    int             `json:"evidence"`    // pieces of evidence, kept and dropped
	Transcripts int             `json:"transcripts"` // sessions (or files) the kept evidence cites
	Prunable    int             `json:"prunable"`    // strategies prune would remove by effectiveness
	Categories  []CategoryStats `json:"categories"`
}

// CategoryStats are one category's counts.
type CategoryStats struct {
	Category   string `json:"category"`
	Strategies int    `json:"strategies"`
	Helpful    int    `json:"helpful"`
	Harmful    int    `json:"harmful"`
	Neutral    int    `json:"neutral"`
}

// Count returns the playbook's counts, categories in the design's order
// and then by name.
func (p *Playbook) Count() Stats {
	st := Stats{Categories: []CategoryStats{}}
	at := map[string]int{}
	sources := map[string]bool{}
	for _, s := range p.Strategies {
		st.Strategies++
		st.Helpful, st.Harmful, st.Neutral = st.Helpful+s.Helpful, st.Harmful+s.Harmful, st.Neutral+s.Neutral
		st.Evidence += len(s.Evidence) + len(s.Dropped)
		if s.Total() > 0 && s.Effectiveness() < DefaultPruneBelow {
			st.Prunable++
		}
		for _, e := range s.Evidence {
			k, _, _ := strings.Cut(e.key(), "\x00")
			sources[k] = true
		}
		i, ok := at[s.Category]
		if !ok {
			i = len(st.Categories)
			at[s.Category] = i
			st.Categories = append(st.Categories, CategoryStats{Category: s.Category})
		}
		c := &st.Categories[i]
		c.Strategies++
		c.Helpful, c.Harmful, c.Neutral = c.Helpful+s.Helpful, c.Harmful+s.Harmful, c.Neutral+s.Neutral
	}
	st.Transcripts = len(sources)
	order := func(c string) string {
		if i := slices.Index(Categories, c); i >= 0 {
			return strconv.Itoa(i)
		}
		return "9" + c
	}
	slices.SortFunc(st.Categories, func(a, b CategoryStats) int { return strings.Compare(order(a.Category), order(b.Category)) })
	return st
}
