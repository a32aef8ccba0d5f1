package tokens

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
)

// benchSize is how much agent-like text the count benchmarks go through.
const benchSize = 4 << 20

// benchPieces is the agent-like text the count benchmarks use, cut in 8 KiB
// pieces like messages: the corpus's strings when it is present, generated Go
// source, JSON and shell output otherwise.
func benchPieces(tb testing.TB) []string {
	var b strings.Builder
	if texts := corpusTexts(tb); len(texts) > 0 {
		for b.Len() < benchSize {
			for _, s := range texts {
				b.WriteString(s)
				b.WriteByte('\n')
			}
		}
	} else {
		writeAgentText(&b, rand.New(rand.NewPCG(5, 6)), benchSize)
	}
	text := b.String()[:benchSize]
	var pieces []string
	for len(text) > 0 {
		n := min(8<<10, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		pieces = append(pieces, text[:n])
		text = text[n:]
	}
	return pieces
}

// corpusTexts returns the strings of the corpus files: none without the
// corpus (testutil.CorpusIfPresent, which fails a run that requires it).
func corpusTexts(tb testing.TB) []string {
	var texts []string
	for _, path := range testutil.CorpusIfPresent(tb) {
		t, err := jsonStrings(path)
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		texts = append(texts, t...)
	}
	return texts
}

// writeAgentText writes size bytes of what agents read and write: Go source,
// JSON tool calls and shell output.
func writeAgentText(b *strings.Builder, rng *rand.Rand, size int) {
	idents := []string{"ctx", "err", "resp", "handler", "config", "tokenCount", "ParseRequest",
		"http", "json", "buf", "NewServer", "writeHeader", "userID", "maxRetries", "i", "n"}
	words := []string{"the", "file", "test", "failed", "because", "of", "a", "missing", "import",
		"I'll", "fix", "it", "now", "let's", "run", "again", "passes", "function", "returns"}
	for b.Len() < size {
		id := func() string { return idents[rng.IntN(len(idents))] }
		switch rng.IntN(3) {
		case 0:
			fmt.Fprintf(b, "func (s *%s) %s(%s context.Context, %s string) (int, error) {\n", id(), id(), id(), id())
			fmt.Fprintf(b, "\tif %s != nil {\n\t\treturn 0, fmt.Errorf(\"%s: %%w\", %s)\n\t}\n", id(), id(), id())
			fmt.Fprintf(b, "\tfor %s := range %s.%s {\n\t\t%s += len(%s)\n\t}\n\treturn %d, nil\n}\n\n", id(), id(), id(), id(), id(), rng.IntN(5000))
		case 1:
			fmt.Fprintf(b, `{"type":"tool_use","id":"toolu_%016x","name":"Bash","input":{"command":"go test ./%s/...","description":"%s %s %s"}}`+"\n",
				rng.Uint64(), id(), words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		default:
			fmt.Fprintf(b, "$ ls -la /srv/%s\n", id())
			for k := rng.IntN(8); k >= 0; k-- {
				fmt.Fprintf(b, "-rw-r--r--  1 dev  staff  %6d Mar %2d 10:%02d %s.go\n", rng.IntN(100000), 1+rng.IntN(28), rng.IntN(60), id())
			}
			fmt.Fprintf(b, "--- FAIL: Test%s (0.%02ds)\n    %s_test.go:%d: got %d, want %d\n", id(), rng.IntN(100), id(), rng.IntN(900), rng.IntN(99), rng.IntN(99))
		}
	}
}

func BenchmarkCount(b *testing.B) {
	pieces := benchPieces(b)
	total := 0
	for _, p := range pieces {
		total += len(p)
	}
	for _, impl := range []string{"fast", "tiktoken"} {
		for _, name := range exactNames {
			b.Run(impl+"/"+name, func(b *testing.B) {
				var c Counter = fast(b, name)
				if impl == "tiktoken" {
					c = oracle(b, name)
				}
				c.Count("warm up: load the ranks outside the timer")
				b.SetBytes(int64(total))
				b.ResetTimer()
				tokens, cpu := 0, time.Duration(0)
				for range b.N {
					// Each round starts with an empty piece cache, as a new
					// process would.
					b.StopTimer()
					if e, ok := c.(*encoder); ok {
						e.cache.clear()
					}
					b.StartTimer()
					start := cpuTime()
					for _, p := range pieces {
						tokens += c.Count(p)
					}
					cpu += cpuTime() - start
				}
				b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
				if cpu > 0 {
					// Throughput per second of CPU: the per-core rate, even
					// when other work shares the cores.
					b.ReportMetric(float64(total*b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
				}
			})
		}
	}
}

// BenchmarkCountOneLetter counts 50 MB of one letter on one line, one
// piece of the split: the pathological case of merging (it took 20 s and
// 2 GB with the heap merge alone). The first round includes building the
// backtracker's tables, as a process pays it once; tiktoken-go does not
// finish it. MB-alloc/op is what a count allocates.
func BenchmarkCountOneLetter(b *testing.B) {
	text := strings.Repeat("a", 50<<20)
	for _, name := range exactNames {
		b.Run(name, func(b *testing.B) {
			c := fast(b, name)
			c.Count("warm up: load the ranks outside the timer")
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			for range b.N {
				c.Count(text)
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/(1<<20), "MB-alloc/op")
		})
	}
}

func (c *pieceCache) clear() {
	*c = pieceCache{}
}

// BenchmarkLoad measures what the first Count pays: parsing the embedded
// ranks into the map. MB-ranks is the heap the ranks keep.
func BenchmarkLoad(b *testing.B) {
	for _, name := range exactNames {
		b.Run(name, func(b *testing.B) {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			before := ms.HeapAlloc
			var ranks *rankTable
			for range b.N {
				var err error
				if ranks, err = loadRanks(name); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc-before)/(1<<20), "MB-ranks")
			runtime.KeepAlive(ranks)
		})
	}
}

// BenchmarkCountAll counts every string of the corpus (or of the generated
// text) the way filters do, with CountAll: on all cores, repeats once.
func BenchmarkCountAll(b *testing.B) {
	texts := corpusTexts(b)
	if len(texts) == 0 {
		texts = benchPieces(b)
	}
	total := 0
	for _, s := range texts {
		total += len(s)
	}
	for _, name := range exactNames {
		b.Run(name, func(b *testing.B) {
			c := fast(b, name).(*encoder)
			c.Count("warm up: load the ranks outside the timer")
			b.SetBytes(int64(total))
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				c.cache.clear()
				c.texts = newTextCache()
				b.StartTimer()
				Sum(c, texts)
			}
		})
	}
}
