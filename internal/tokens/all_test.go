package tokens

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// allTexts returns texts for CountAll: the corpus's when present, with their
// repeats, plus generated ones, enough to go parallel.
func allTexts(t *testing.T) []string {
	texts := corpusTexts(t)
	if testing.Short() && len(texts) > 5000 {
		texts = texts[:5000]
	}
	gen := unicodeTexts(rand.New(rand.NewPCG(7, 8)), 100, 2000)
	texts = append(texts, gen...)
	texts = append(texts, gen[:10]...) // copies within one call
	return append(texts, "", "x", strings.Repeat("long enough to be cached ", 10))
}

func TestCountAllMatchesCount(t *testing.T) {
	texts := allTexts(t)
	for _, name := range Names() {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		want, sum := make([]int, len(texts)), 0
		for k, s := range texts {
			want[k] = c.Count(s)
			sum += want[k]
		}
		// Twice: the second call answers from the cache.
		for round := range 2 {
			got := CountAll(c, texts)
			for k := range texts {
				if got[k] != want[k] {
					t.Fatalf("%s round %d: CountAll()[%d] = %d, Count says %d", name, round, k, got[k], want[k])
				}
			}
		}
		if got := Sum(c, texts); got != sum {
			t.Errorf("%s: Sum = %d, want %d", name, got, sum)
		}
	}
}

// countFunc is a Counter CountAll knows nothing about.
type countFunc func(string) int

func (f countFunc) Count(s string) int { return f(s) }
func (countFunc) Name() string         { return "words" }

func TestCountAllAnyCounter(t *testing.T) {
	texts := allTexts(t)
	words := countFunc(func(s string) int { return len(strings.Fields(s)) })
	got := CountAll(words, texts)
	for k, s := range texts {
		if got[k] != words(s) {
			t.Fatalf("CountAll()[%d] = %d, want %d", k, got[k], words(s))
		}
	}
	if CountAll(words, nil) == nil || len(CountAll(words, nil)) != 0 {
		t.Error("CountAll(nil) should be an empty slice")
	}
}

// TestCountAllConcurrent shares one counter, its caches included, between
// goroutines; run it with -race.
func TestCountAllConcurrent(t *testing.T) {
	texts := allTexts(t)
	c := fast(t, Default)
	want := CountAll(c, texts)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part := texts[g*len(texts)/4:]
			got := CountAll(c, part)
			for k := range part {
				if got[k] != want[g*len(texts)/4+k] {
					t.Errorf("goroutine %d: count %d differs", g, k)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestTextCacheIsBounded(t *testing.T) {
	cache := newTextCache()
	for k := range maxCachedTexts + 10 {
		cache.put(textKey{len: k}, k)
	}
	if n := len(cache.counts); n > maxCachedTexts {
		t.Fatalf("%d entries, the bound is %d", n, maxCachedTexts)
	}
	if n, ok := cache.get(textKey{len: maxCachedTexts + 9}); !ok || n != maxCachedTexts+9 {
		t.Fatalf("latest entry lost: %d, %v", n, ok)
	}
}
