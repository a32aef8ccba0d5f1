// Package lazyre is a regular expression compiled on its first use, not
// when the program starts. Every ctx-* binary links every package, and the
// tables of patterns in a few of them took half of a process's start-up
// work: a cost that ctx-recall, the hooks and --version paid for patterns
// they never ran.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

// Regexp is a pattern compiled when first used. A bad pattern panics then,
// as regexp.MustCompile would have at start-up; CompileAll lets a test
// find it first.
type Regexp struct {
	pattern string
	re      func() *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns the pattern, not yet compiled.
func New(pattern string) *Regexp {
	r := &Regexp{pattern: pattern, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every pattern made so far (those of every package
// the program links), and returns the first that does not compile.
func CompileAll() error {
	mu.Lock()
	defer mu.Unlock()
	for _, r := range all {
		if _, err := regexp.Compile(r.pattern); err != nil {
			return fmt.Errorf("lazyre: %w", err)
		}
	}
	return nil
}

// String is the pattern.
func (r *Regexp) String() string { return r.pattern }

// The methods of regexp.Regexp that the toolkit uses.

func (r *Regexp) MatchString(s string) bool              { return r.re().MatchString(s) }
func (r *Regexp) FindStringIndex(s string) []int         { return r.re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string   { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }
func (r *Regexp) ReplaceAllString(s, repl string) string { return r.re().ReplaceAllString(s, repl) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) ReplaceAllStringFunc(s string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(s, repl)
}
