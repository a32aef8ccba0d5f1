// Package docs holds the project's reference pages; its test checks that
// they, the README and the code's comments name only pages that exist.
package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdName matches a Markdown page named in a file: a link's target or a
// bare name such as docs/markers.md.
var mdName = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)

// TestPagesExist: every Markdown page that a page, a comment of the code, a
// test script or the Makefile names is in the repository, relative to the
// file that names it or to the repository's root, so that the docs stand on
// their own. Test data (transcripts, goldens) names other projects' pages.
func TestPagesExist(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := tracked(t, root)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if !prose(f, line) {
				continue
			}
			for _, loc := range mdName.FindAllStringIndex(line, -1) {
				if strings.Contains(line[:loc[0]], "://") {
					continue // a web address
				}
				name := line[loc[0]:loc[1]]
				if !exists(filepath.Join(root, filepath.Dir(f), name)) && !exists(filepath.Join(root, name)) {
					t.Errorf("%s:%d names %s, which is not in the repository", f, i+1, name)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d names of pages checked in %d files: the test looks at too little", checked, len(files))
	}
}

// tracked lists the repository's text files: git's list where there is
// one, else a walk.
func tracked(t *testing.T, root string) []string {
	var files []string
	if out, err := exec.Command("git", "-C", root, "ls-files").Output(); err == nil {
		files = strings.Fields(string(out))
	} else {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, path)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var text []string
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".md":
			if !strings.Contains(f, "testdata/") {
				text = append(text, f)
			}
		case ".go", ".txtar":
			text = append(text, f)
		default:
			if f == "Makefile" || strings.HasPrefix(f, "scripts/") || strings.HasPrefix(f, ".ci/") {
				text = append(text, f)
			}
		}
	}
	return text
}

// prose says whether a line of a file is the project's own words: a page's
// line, a comment of the code, of a script or of a test script.
func prose(file, line string) bool {
	line = strings.TrimSpace(line)
	switch filepath.Ext(file) {
	case ".md":
		return true
	case ".go":
		return strings.HasPrefix(line, "//")
	}
	return strings.HasPrefix(line, "#")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
