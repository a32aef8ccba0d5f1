package outcome

import (
	"regexp"
	"strings"
	"unicode"
)

// pathWord is a word that names a file or a directory: a path with a slash
// in it (src/app.go, /usr/lib/, ./x), or a name with a file extension that
// source trees use (go.mod, app.py).
var pathWord = regexp.MustCompile(`/?(?:[A-Za-z0-9_.@+~-]+/)+[A-Za-z0-9_.@+~-]*|[A-Za-z0-9_@+~-][A-Za-z0-9_.@+~-]*\.(?:go|py|pyi|js|jsx|ts|tsx|mjs|cjs|rb|ex|exs|eex|heex|erl|rs|java|kt|scala|c|h|cc|cpp|hpp|cs|swift|php|lua|md|rst|txt|json|jsonl|yaml|yml|toml|ini|cfg|conf|xml|html|css|scss|sql|sh|bash|lock|mod|sum|vtt|csv|proto|gradle)\b`)

// webAddress is a URL, whose path is not a file's.
var webAddress = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*`)

// Paths returns the distinct paths an output names, in order: the words
// pathWord finds (so without the ":12:3" of a location) outside web
// addresses that look like paths (pathLike).
func Paths(text string) []string {
	if !strings.ContainsAny(text, "./") {
		return nil
	}
	urls := webAddress.FindAllStringIndex(text, -1)
	var out []string
	seen := map[string]bool{}
	for _, loc := range pathWord.FindAllStringIndex(text, -1) {
		for len(urls) > 0 && urls[0][1] <= loc[0] {
			urls = urls[1:]
		}
		p := text[loc[0]:loc[1]]
		if len(urls) > 0 && urls[0][0] < loc[1] || seen[p] || !pathLike(p) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
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
