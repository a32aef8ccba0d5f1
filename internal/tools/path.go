package tools

import (
	"path"
	"strings"
)

// File is the path a call is about, normalised so that two calls naming the
// same file give the same string: relative paths are resolved against the
// call's own directory (workdir, cd DIR) and then the session's cwd, and
// the result is shown relative to cwd when it lies under it. A path that
// cannot be resolved is cleaned and kept relative. "" when the call names
// no path.
func (a Args) File(cwd string) string {
	return NormPath(a.Path, a.Dir, cwd)
}

// NormPath normalises p as File does.
func NormPath(p, dir, cwd string) string {
	if p == "" {
		return ""
	}
	p = strings.TrimPrefix(p, "file://")
	if !path.IsAbs(p) {
		switch {
		case path.IsAbs(dir):
			p = path.Join(dir, p)
		case path.IsAbs(cwd):
			p = path.Join(cwd, dir, p)
		}
	}
	p = path.Clean(p)
	if cwd != "" && path.IsAbs(p) {
		c := path.Clean(cwd)
		if rel, ok := strings.CutPrefix(p, c+"/"); ok {
			return rel
		}
	}
	return p
}
