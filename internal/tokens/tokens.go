// Package tokens counts tokens the way a model's tokenizer would.
//
// Every caller goes through the small Counter interface, so the exact
// encoder behind it can be swapped without touching the filters. Encodings
// load lazily: a program that never counts never pays for the ranks.
//
// The exact counters are this package's own encoder over the ranks embedded
// by tiktoken-go-loader: a pre-tokenizer written by hand for each encoding's
// split pattern, then byte-pair merging, with small tables of the counts of
// recent pieces. It gives the same counts as tiktoken-go, which the tests
// use as the oracle, tens of times faster (docs/performance.md).
//
// CountAll and Sum count many texts at once: on all cores when there is
// enough text, and, for the exact counters, each distinct text once, keyed by
// a hash of its content. They are package functions that take any Counter
// rather than methods, so that the Counter interface stays as small as it is
// for the filters and their test doubles.
package tokens

import (
	"fmt"
	"strings"
	"sync"
)

// Counter counts the tokens of a piece of text. Implementations are safe for
// concurrent use.
type Counter interface {
	// Count returns the number of tokens in s. Text that looks like a special
	// token (<|endoftext|>) is counted as ordinary text.
	Count(s string) int
	// Name is the encoding's name, as --encoding takes it.
	Name() string
}

// Default is the encoding used when none is chosen.
const Default = "o200k_base"

// Approx is the name of the fast estimate: one token per four bytes.
const Approx = "approx"

// Names lists the encodings New accepts, in the order --help shows them.
func Names() []string {
	return []string{Default, "cl100k_base", Approx}
}

// New returns the counter for an encoding name. The name is checked at once;
// the encoding's ranks are loaded on the first call to Count. Counters of the
// same encoding share their ranks and caches.
func New(name string) (Counter, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", Default:
		return o200k(), nil
	case "cl100k_base":
		return cl100k(), nil
	case Approx:
		return approx{}, nil
	}
	return nil, fmt.Errorf("unknown encoding %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// One encoder per encoding for the whole process: its ranks and caches are
// safe for concurrent use, and a second copy would only double the memory
// and start cold.
var (
	o200k  = sync.OnceValue(func() *encoder { return newEncoder(Default, true) })
	cl100k = sync.OnceValue(func() *encoder { return newEncoder("cl100k_base", false) })
)

// approx estimates one token per four bytes, rounding up: good enough for
// budgets, and free.
type approx struct{}

func (approx) Count(s string) int { return (len(s) + 3) / 4 }
func (approx) Name() string       { return Approx }
