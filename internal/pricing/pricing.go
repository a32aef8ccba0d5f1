// Package pricing holds what a token costs: an embedded table of the
// providers' prices per model (prices.tsv, dated), a lookup from a model's
// name as transcripts and request bodies spell it, the default model of
// each transcript format, and the overrides a user gives on the command
// line or in a file. Everything that says what a session cost or would
// cost (ctx-count --cost, ctx-compact --replay, the proxy's ledger) prices
// its tokens here.
package pricing

import (
	_ "embed"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ctxkit/ctxkit/internal/transcript"
)

// Rates are the prices of one model, in US dollars per million tokens.
type Rates struct {
	// Input is an input token that is neither read from nor written to the
	// cache.
	Input float64 `json:"input"`
	// CacheWrite is an input token written to the cache: Anthropic's
	// 5-minute write (1.25x input), OpenAI's write from GPT-5.6 on; where
	// a write costs what input costs (older OpenAI models, DeepSeek's
	// cache miss) it is Input.
	CacheWrite float64 `json:"cache_write"`
	// CacheWrite1h is Anthropic's 1-hour write (2x input); CacheWrite
	// where a provider has one kind of write.
	CacheWrite1h float64 `json:"cache_write_1h"`
	// CacheRead is an input token read from the cache.
	CacheRead float64 `json:"cache_read"`
	// Output is an output token, reasoning included.
	Output float64 `json:"output"`
}

// Tokens are the tokens of a request, or of many, by how they are billed.
type Tokens struct {
	Input        int64 `json:"input"`          // neither read from nor written to the cache
	CacheWrite   int64 `json:"cache_write"`    // written to the cache (for 5 minutes where there are two kinds)
	CacheWrite1h int64 `json:"cache_write_1h"` // written to the cache for an hour
	CacheRead    int64 `json:"cache_read"`     // read from the cache
	Output       int64 `json:"output"`         // written by the model, reasoning included
}

// Prompt is the tokens the model was sent.
func (t Tokens) Prompt() int64 { return t.Input + t.CacheWrite + t.CacheWrite1h + t.CacheRead }

// Add adds u to t, each count stopping at the largest int64 rather than
// wrapping (Sum).
func (t *Tokens) Add(u Tokens) {
	t.Input = Sum(t.Input, u.Input)
	t.CacheWrite = Sum(t.CacheWrite, u.CacheWrite)
	t.CacheWrite1h = Sum(t.CacheWrite1h, u.CacheWrite1h)
	t.CacheRead = Sum(t.CacheRead, u.CacheRead)
	t.Output = Sum(t.Output, u.Output)
}

// Sum is a + b, saturated: past the largest (or the smallest) int64 it
// stays there, where + would wrap a total of tokens to a negative one.
func Sum(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// Cost is the price of t at these rates, in dollars.
func (r Rates) Cost(t Tokens) float64 {
	return (float64(t.Input)*r.Input + float64(t.CacheWrite)*r.CacheWrite + float64(t.CacheWrite1h)*r.CacheWrite1h +
		float64(t.CacheRead)*r.CacheRead + float64(t.Output)*r.Output) / 1e6
}

// Price is what a model costs: its rates, and the rates of a request whose
// prompt is long, which apply to every token of such a request.
type Price struct {
	// Model is the name the table knows the model by, "" when the model is
	// not in the table.
	Model string `json:"model"`
	Rates
	// LongOver is the size of a long prompt: a request whose prompt has
	// more tokens than this pays Long. 0: one set of rates for all.
	LongOver int64  `json:"long_over,omitempty"`
	Long     *Rates `json:"long,omitempty"`
}

// Cost is the price of one request's tokens, in dollars: at the long
// prompt's rates when its prompt is over LongOver. A sum of requests must
// be priced request by request.
func (p Price) Cost(t Tokens) float64 {
	return p.RatesFor(t.Prompt()).Cost(t)
}

// RatesFor is the rates of a request whose prompt has n tokens.
func (p Price) RatesFor(n int64) Rates {
	if p.Long != nil && n > p.LongOver {
		return *p.Long
	}
	return p.Rates
}

// Table is a price list: rows by model, and other names of models.
type Table struct {
	date    string
	rows    map[string]Price
	aliases map[string]string
	// all, when set, overrides the named rates of every model (Override
	// without a model).
	all *Override
}

//go:embed prices.tsv
var embedded []byte

// Default is the embedded table. A Table does not change: With and
// WithFile return new ones.
var Default = sync.OnceValue(func() *Table {
	t, err := parseTSV(string(embedded))
	if err == nil {
		err = t.checkAliases()
	}
	if err != nil {
		panic("pricing: the embedded table: " + err.Error()) // TestEmbedded keeps it valid
	}
	t.date = datePattern.FindString(string(embedded))
	return t
})

var datePattern = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)

// Date is the day the embedded table's prices were checked, as its first
// line says.
func (t *Table) Date() string { return t.date }

// Models lists the models of the table and their other names, sorted.
func (t *Table) Models() []string {
	var names []string
	for n := range t.rows {
		names = append(names, n)
	}
	for n := range t.aliases {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup finds a model's price by its name as a transcript or a request
// body spells it: claude-sonnet-4-5-20250929, anthropic/claude-opus-4-6,
// gpt-5-codex, deepseek/deepseek-chat. A name the table does not hold
// takes the price of the longest name it starts with, followed by a dash
// and not by a version number (gpt-5-codex is gpt-5, claude-opus-4-9 is
// not claude-opus-4); then, for a Claude model, its family's (opus,
// sonnet, haiku). false when none fits.
func (t *Table) Lookup(model string) (Price, bool) {
	name := Normalize(model)
	if p, ok := t.find(name); ok {
		return t.override(p), true
	}
	best := ""
	for key := range t.rows {
		if len(key) > len(best) && extends(name, key) {
			best = key
		}
	}
	for key := range t.aliases {
		if len(key) > len(best) && extends(name, key) {
			best = key
		}
	}
	if best != "" {
		p, _ := t.find(best)
		return t.override(p), true
	}
	if strings.HasPrefix(name, "claude") {
		for _, family := range []string{"fable", "mythos", "opus", "sonnet", "haiku"} {
			if strings.Contains(name, family) {
				if p, ok := t.find(family); ok {
					return t.override(p), true
				}
			}
		}
	}
	return Price{}, false
}

// For is the price of a model of a transcript in format f: Lookup, or when
// the table does not know the model (or the transcript names none) the
// price of the format's default model (DefaultModel). known says the model
// was found.
func (t *Table) For(model string, f transcript.Format) (p Price, known bool) {
	if p, ok := t.Lookup(model); ok && model != "" {
		return p, true
	}
	p, _ = t.Lookup(DefaultModel(f))
	return p, false
}

// DefaultModel is the model a transcript of format f is priced as when it
// names none the table knows: the model most such transcripts were made
// with.
func DefaultModel(f transcript.Format) string {
	switch f {
	case transcript.ClaudeCode, transcript.Anthropic:
		return "sonnet"
	case transcript.SWEAgent:
		return "gpt-4o"
	}
	return "gpt-5"
}

// find is the row of a name or of the model it is another name for.
func (t *Table) find(name string) (Price, bool) {
	if to, ok := t.aliases[name]; ok {
		name = to
	}
	p, ok := t.rows[name]
	return p, ok
}

// override applies the overrides of every model.
func (t *Table) override(p Price) Price {
	if t.all != nil {
		p = t.all.apply(p)
	}
	return p
}

// extends reports whether name is key followed by a dash and something
// that is not a version number: gpt-5-codex extends gpt-5, gpt-5.1 and
// claude-opus-4-9 extend neither gpt-5 nor claude-opus-4.
func extends(name, key string) bool {
	rest, ok := strings.CutPrefix(name, key+"-")
	return ok && rest != "" && !(rest[0] >= '0' && rest[0] <= '9')
}

var (
	dateSuffix   = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)
	regionPrefix = regexp.MustCompile(`^(us|eu|apac|global|jp|au)\.`)
)

// Normalize is the name a model is looked up by: lower case, without a
// provider's prefix (openrouter/anthropic/, deepseek/, Bedrock's
// us.anthropic.), a date, a Vertex @version, Bedrock's -v1:0, a context
// tag such as [1m], or -latest.
func Normalize(model string) string {
	s := strings.ToLower(model)
	for { // until nothing is left to strip: a normalized name normalizes to itself
		n := normalizeOnce(s)
		if n == s {
			return s
		}
		s = n
	}
}

func normalizeOnce(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = regionPrefix.ReplaceAllString(s, "")
	s = strings.TrimPrefix(s, "anthropic.")
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "-v"); i >= 0 && strings.Contains(s[i:], ":") {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "-latest")
	return dateSuffix.ReplaceAllString(s, "")
}
