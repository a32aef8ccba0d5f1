// Package pricetest holds the prices the tests of costs work with.
package pricetest

import (
	"testing"

	"github.com/ctxkit/ctxkit/internal/pricing"
)

// HandPrices are prices easy to work with by hand, per million tokens,
// for every model, that no update of the embedded table changes: input 1,
// a 5-minute cache write 1.25, an hour's 2, a read 0.1, output 5.
func HandPrices(t testing.TB) *pricing.Table {
	t.Helper()
	o, err := pricing.ParseOverride("input=1,cache_write=1.25,cache_write_1h=2,cache_read=0.1,output=5")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := pricing.Default().With(o)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}
