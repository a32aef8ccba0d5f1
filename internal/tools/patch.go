package tools

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/patch"
)

// patchPaths lists the files a patch touches, in order, each once: the
// apply_patch envelope's "*** Add/Update/Delete File:" and "*** Move to:"
// lines, or a unified diff's "+++ b/PATH" (or "--- a/PATH" for a deletion).
func patchPaths(text string) []string {
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" || p == "/dev/null" || seen[p] {
			return
		}
		seen[p] = true
		paths = append(paths, p)
	}
	var minus string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			add(line[len("*** Add File: "):])
		case strings.HasPrefix(line, "*** Update File: "):
			add(line[len("*** Update File: "):])
		case strings.HasPrefix(line, "*** Delete File: "):
			add(line[len("*** Delete File: "):])
		case strings.HasPrefix(line, "*** Move to: "):
			add(line[len("*** Move to: "):])
		case strings.HasPrefix(line, "--- "):
			minus = patch.HeaderPath(line[4:])
		case strings.HasPrefix(line, "+++ "):
			p := patch.HeaderPath(line[4:])
			if p == "/dev/null" {
				p = minus
			}
			add(p)
		}
	}
	return paths
}
