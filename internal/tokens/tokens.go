// Package tokens counts tokens the way a model's tokenizer would.
//
// Every caller goes through the small Counter interface, so the exact
// encoder behind it can be swapped without touching the filters. Encodings
// load lazily: a program that never counts never pays for the ranks.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
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
// the encoding's ranks are loaded on the first call to Count.
func New(name string) (Counter, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", Default:
		return &bpe{name: Default}, nil
	case "cl100k_base":
		return &bpe{name: "cl100k_base"}, nil
	case Approx:
		return approx{}, nil
	}
	return nil, fmt.Errorf("unknown encoding %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// approx estimates one token per four bytes, rounding up: good enough for
// budgets, and free.
type approx struct{}

func (approx) Count(s string) int { return (len(s) + 3) / 4 }
func (approx) Name() string       { return Approx }

// bpe counts exactly with tiktoken-go over the ranks embedded by
// tiktoken-go-loader.
type bpe struct {
	name string
	once sync.Once
	enc  *tiktoken.Tiktoken
}

var setLoader sync.Once

func (b *bpe) Name() string { return b.name }

func (b *bpe) Count(s string) int {
	if s == "" {
		return 0
	}
	b.once.Do(b.load)
	return len(b.enc.EncodeOrdinary(s))
}

func (b *bpe) load() {
	// Without the offline loader tiktoken-go downloads the ranks; set it
	// before the first encoding is built, once for the process.
	setLoader.Do(func() { tiktoken.SetBpeLoader(loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(b.name)
	if err != nil {
		// The ranks are embedded in the binary: failing here means a broken build.
		panic(fmt.Sprintf("tokens: loading embedded %s: %v", b.name, err))
	}
	b.enc = enc
}

// CountAll counts many texts; the filters and reports count a whole
// transcript through it, so that how the work is spread lives in one place.
func CountAll(c Counter, texts []string) []int {
	out := make([]int, len(texts))
	for i, s := range texts {
		out[i] = c.Count(s)
	}
	return out
}
