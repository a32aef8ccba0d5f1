package sessionpage

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/testkit/pricetest"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
)

// TestImpossibleUsage: a usage record whose counts cannot be (a negative
// input, an output of 1e308) is left out of the page's requests and bill,
// and the page says how many were.
func TestImpossibleUsage(t *testing.T) {
	data, _ := load(t, filepath.Join("testdata", "session.jsonl"))
	bad := bytes.Replace(data, []byte(`"output_tokens":`), []byte(`"output_tokens":1e308,"x":`), 1)
	bad = bytes.Replace(bad, []byte(`"input_tokens":`), []byte(`"input_tokens":-5000000,"y":`), 2)
	if bytes.Equal(bad, data) {
		t.Fatal("the session has no usage to spoil")
	}
	tr := transcripttest.Parse(t, bad)
	p := Build(tr, options(t, "session.jsonl", bad, tr, pricetest.HandPrices(t)))
	if p.UsageSkipped == 0 || len(p.Usage)+p.UsageSkipped != 12 {
		t.Errorf("%d usage rows, %d left out; want 12 in all, some left out", len(p.Usage), p.UsageSkipped)
	}
	for _, r := range p.Usage {
		if r.Billed < 0 || r.Tokens.Output > 1e9 || r.Tokens.Input < 0 {
			t.Errorf("a row shows an impossible count: %+v", r)
		}
	}
	page := string(write(t, p))
	checkPage(t, []byte(page))
	if !strings.Contains(page, "left out: a count of tokens in") {
		t.Error("the page does not say that records were left out")
	}
}
