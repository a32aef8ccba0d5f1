package outcome

import (
	"strings"
	"unicode"
)

// Paths returns the distinct paths an output names, in order: the words
// that name a file or a directory (a path with a slash in it: src/app.go,
// /usr/lib/, ./x; or a name with a file extension that source trees use:
// go.mod, app.py), without the ":12:3" of a location, outside web
// addresses, that look like paths (pathLike). It scans the text once,
// without regular expressions: ctx-summarize asks it of every old output.
func Paths(text string) []string {
	if !strings.ContainsAny(text, "./") {
		return nil
	}
	urls := webAddresses(text)
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(text); {
		if !isPathChar(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isPathChar(text[j]) {
			j++
		}
		for len(urls) > 0 && urls[0][1] <= i {
			urls = urls[1:]
		}
		if len(urls) == 0 || urls[0][0] >= j {
			if p := pathIn(text[i:j]); p != "" && !seen[p] && pathLike(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
		i = j
	}
	return out
}

// isPathChar reports whether a byte can be part of a path word.
func isPathChar(c byte) bool { return pathChars[c] }

// pathChars are the bytes of a path word: letters, digits, _.@+~-/.
var pathChars = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.@+~-/", byte(c)) >= 0
	}
	return t
}()

func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// pathIn is the path a word of path characters names: the word when a
// slash follows a name in it, else its longest start that ends in a source file's extension
// ("app.py" of "app.py.orig"), else "".
func pathIn(word string) string {
	if strings.IndexByte(strings.TrimPrefix(word, "/"), '/') > 0 {
		return word // a slash after a name: not /clear, a command
	}
	word = strings.TrimLeft(word, ".")
	for end := len(word); end > 0; {
		dot := strings.LastIndexByte(word[:end], '.')
		if dot <= 0 {
			return ""
		}
		ext := dot + 1
		for ext < len(word) && isWordChar(word[ext]) {
			ext++
		}
		if sourceExt[strings.ToLower(word[dot+1:ext])] && ext <= end {
			return word[:ext]
		}
		end = dot
	}
	return ""
}

// sourceExt are the extensions of the files source trees hold.
var sourceExt = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`go py pyi js jsx ts tsx mjs cjs rb ex exs eex heex erl rs java kt
		scala c h cc cpp hpp cs swift php lua md rst txt json jsonl yaml yml toml ini cfg conf xml html
		css scss sql sh bash lock mod sum vtt csv proto gradle`) {
		sourceExt[e] = true
	}
}

// webAddresses finds the URLs of a text (scheme://…, up to a space or a
// quote), whose paths are not files'.
func webAddresses(text string) [][2]int {
	var out [][2]int
	for off := 0; ; {
		k := strings.Index(text[off:], "://")
		if k < 0 {
			return out
		}
		k += off
		start := k
		for start > 0 && (isWordChar(text[start-1]) || strings.IndexByte("+.-", text[start-1]) >= 0) {
			start--
		}
		end := k + 3
		for end < len(text) && strings.IndexByte(" \t\r\n\"'<>", text[end]) < 0 {
			end++
		}
		if start < k {
			out = append(out, [2]int{start, end})
		}
		off = end
	}
}

// pathLike tells a path from prose that has slashes in it (CI/CD, 1/2,
// and/or): a name with an extension, a directory (a/b/), or a path that
// starts from a root (/usr/bin/env, ./run, ~/x).
func pathLike(p string) bool {
	if strings.IndexFunc(p, unicode.IsLetter) < 0 || strings.Contains(p, "...") {
		return false // 1/2; /Users/.../x, a path with its middle left out
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	dot := strings.LastIndexByte(last, '.')
	return strings.HasSuffix(p, "/") || dot > 0 && dot < len(last)-1 ||
		strings.HasPrefix(p, "/") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "~/")
}
