package lazyre

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestSameAsRegexp: each method answers as regexp's does.
func TestSameAsRegexp(t *testing.T) {
	const pattern = `(\w+)=(\d+)`
	const s = "a=1, b=22, c"
	l, re := New(pattern), regexp.MustCompile(pattern)
	if l.String() != pattern {
		t.Errorf("String %q", l.String())
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"MatchString", l.MatchString(s), re.MatchString(s)},
		{"FindStringIndex", l.FindStringIndex(s), re.FindStringIndex(s)},
		{"FindStringSubmatch", l.FindStringSubmatch(s), re.FindStringSubmatch(s)},
		{"FindStringSubmatchIndex", l.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s)},
		{"ReplaceAllString", l.ReplaceAllString(s, "$2"), re.ReplaceAllString(s, "$2")},
		{"FindAllStringSubmatch", l.FindAllStringSubmatch(s, -1), re.FindAllStringSubmatch(s, -1)},
		{"ReplaceAllStringFunc", l.ReplaceAllStringFunc(s, strings.ToUpper), re.ReplaceAllStringFunc(s, strings.ToUpper)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestBadPattern: a bad pattern is found by CompileAll, and panics when
// used, not when made.
func TestBadPattern(t *testing.T) {
	if err := CompileAll(); err != nil {
		t.Fatalf("before: %v", err)
	}
	bad := New(`(`)
	defer func() {
		mu.Lock()
		all = all[:len(all)-1]
		mu.Unlock()
	}()
	if err := CompileAll(); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("CompileAll: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic on use")
		}
	}()
	bad.MatchString("x")
}
