package outline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/testkit/testutil"
	"github.com/ctxkit/ctxkit/internal/testkit/transcripttest"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// The outline measured against a parser: Universal Ctags (ctags, on the
// PATH) on the files the corpus's sessions read, and Go's own parser on
// this module's Go files. Neither ships: they are the reference of the
// table in docs/summarize.md, which TestReference prints with
// CTX_NUMBERS=1 (scripts/measure).

// refKinds are the kinds of Ctags's tags, by its language, that are
// definitions in the outline's sense (modules, classes, types, functions
// and methods, tests, headings): not its variables, constants, fields,
// enumerators or imports. A constant or variable whose line binds a
// function (an arrow function) counts as a function.
var refKinds = map[string][]string{
	"Go":         {"package", "func", "type", "struct", "interface", "talias"},
	"Python":     {"class", "function", "member"},
	"JavaScript": {"function", "class", "method", "generator", "getter", "setter"},
	"TypeScript": {"function", "class", "interface", "enum", "method", "namespace", "generator", "alias"},
	"Rust":       {"module", "struct", "interface", "implementation", "function", "enum", "typedef", "macro", "method"},
	"Java":       {"annotation", "class", "enum", "interface", "method", "package"},
	"C":          {"function", "enum", "struct", "typedef", "union"},
	"C++":        {"function", "enum", "struct", "typedef", "union", "class", "namespace"},
	"Ruby":       {"class", "method", "module", "singletonMethod"},
	"Elixir":     {"macro", "callback", "delegate", "exception", "function", "guard", "implementation", "module", "protocol", "test", "type"},
	"Sh":         {"function"},
	"Markdown":   {"chapter", "section", "subsection", "subsubsection", "l4subsection", "l5subsection"},
}

// tag is one of Ctags's tags.
type tag struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Language string `json:"language"`
	Line     int    `json:"line"`
	Kind     string `json:"kind"`
	Pattern  string `json:"pattern"`
}

// isDef reports whether a tag is a definition the outline should find.
func (g tag) isDef() bool {
	if g.Name == "const" || g.Name == "let" || g.Name == "var" || strings.HasPrefix(g.Name, "__anon") {
		return false // Ctags's name for "const f = (…): T =>", and for what has no name
	}
	for _, k := range refKinds[g.Language] {
		if g.Kind == k {
			return true
		}
	}
	return (g.Kind == "constant" || g.Kind == "variable") && (g.Language == "JavaScript" || g.Language == "TypeScript") &&
		boundFunc.MatchString(g.Pattern)
}

// boundFunc matches a line that binds a function to a name: "= (a) =>",
// "= async x =>", "= function".
var boundFunc = regexp.MustCompile(`=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[\w$]+\s*=>)`)

// sameDef reports whether a definition of the outline is the tag: the same
// line, and one name in the other (Ctags names Elixir's modules and C++'s
// methods by their last part).
func sameDef(d Def, line int, name string) bool {
	ours, theirs := strings.ReplaceAll(d.Name, " ", ""), strings.ReplaceAll(name, " ", "") // "operator ==" or "operator=="
	return d.Line == line && (strings.Contains(ours, theirs) || strings.Contains(theirs, ours))
}

// score counts, for one language, the reference's definitions the outline
// found and the outline's definitions the reference has (any kind).
type score struct {
	files, ref, found, ours, confirmed int
}

// add scores the outline of one file, and logs (go test -v) what the
// two disagree on. tests says whether the reference has tests: Ctags has
// Elixir's, not RSpec's nor minitest's, which the comparison leaves out.
func (s *score) add(t *testing.T, file string, defs []Def, ref, all []tag, tests bool) {
	s.files++
	s.ref += len(ref)
	for _, g := range ref {
		found := false
		for _, d := range defs {
			found = found || sameDef(d, g.Line, g.Name)
		}
		if found {
			s.found++
		} else {
			t.Logf("%s:%d: not found: %s %s: %s", file, g.Line, g.Kind, g.Name, g.Pattern)
		}
	}
	for _, d := range defs {
		if d.Kind == Test && !tests {
			continue
		}
		s.ours++
		confirmed := false
		for _, g := range all {
			confirmed = confirmed || sameDef(d, g.Line, g.Name)
		}
		if confirmed {
			s.confirmed++
		} else {
			t.Logf("%s:%d: not in the reference: %s %s", file, d.Line, d.Kind, d.Name)
		}
	}
}

func percent(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

// sample is the lines of one file that a read showed.
type sample struct {
	file  string
	lines []string
	first int
}

// readsOf are the windows of files that the reads of the transcripts at
// paths showed (first 0 where the read does not say where it starts).
func readsOf(t *testing.T, paths []string) []sample {
	var out []sample
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcripttest.Parse(t, data)
		for _, r := range tr.Results {
			if c := r.Call; c != nil && c.Kind == tools.Read && !r.Failed() {
				lines, first := outcome.FileLines(r.Text(), c.Args.Range.Start, c.Args.Range.Last != 0)
				if len(lines) > 0 {
					out = append(out, sample{c.Args.File(tr.Cwd), lines, first})
				}
			}
		}
	}
	return out
}

// corpusReads are the windows of files the corpus's sessions read, each
// once, in a language the outline knows, where the read says where it
// starts.
func corpusReads(t *testing.T) []sample {
	var out []sample
	seen := map[string]bool{}
	for _, s := range readsOf(t, testutil.CorpusFiles(t)) {
		key := fmt.Sprint(s.file, s.first, strings.Join(s.lines, "\n"))
		if s.first > 0 && Lang(s.file, s.lines[0]) != "" && !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	return out
}

// ctags runs Universal Ctags on the samples, written to dir with their
// extension, and returns every tag by sample, at the sample's file lines.
func ctags(t *testing.T, samples []sample) [][]tag {
	bin, err := exec.LookPath("ctags")
	if err != nil {
		t.Fatal("the reference is Universal Ctags: install it (apt-get install universal-ctags)")
	}
	dir := t.TempDir()
	var names []string
	for i, s := range samples {
		ext := filepath.Ext(s.file)
		if l := byName[Lang(s.file, s.lines[0])]; byExt[ext] != l.name {
			ext = l.exts[0] // a script named by its shebang
		}
		name := fmt.Sprintf("%03d%s", i, ext)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(s.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	cmd := exec.Command(bin, append([]string{"--output-format=json", "--fields=+nl", "--map-TypeScript=+.tsx", "--map-JavaScript=+.jsx",
		"--map-Elixir=+.exs", "--kinds-C=+p", "--kinds-C++=+p", "-f", "-"}, names...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctags: %v", err)
	}
	tags := make([][]tag, len(samples))
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var g tag
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil || g.Path == "" {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(g.Path, "%03d", &i); err != nil || i >= len(samples) {
			t.Fatalf("ctags named a file it was not given: %q", g.Path)
		}
		g.Line += samples[i].first - 1
		tags[i] = append(tags[i], g)
	}
	return tags
}

// TestReference prints the table of docs/summarize.md: per language, how
// many of the reference's definitions the outline finds on the files the
// corpus's sessions read (Ctags), on this module's Go files (go/parser),
// and on the source trees CTX_OUTLINE_SOURCES names (directories, separated
// by colons: Ctags), and how many of the outline's the reference has.
func TestReference(t *testing.T) {
	if os.Getenv("CTX_NUMBERS") == "" {
		t.Skip("prints the docs' table: CTX_NUMBERS=1")
	}
	fmt.Print(ctagsTable(t, "files read in the corpus", corpusReads(t)))
	fmt.Println()
	goScore := goParserScore(t)
	fmt.Println("| this module's Go files | files | go/parser's definitions | found by the outline | the outline's | go/parser has them |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	fmt.Printf("| Go | %d | %d | %d (%s) | %d | %d (%s) |\n", goScore.files, goScore.ref, goScore.found, percent(goScore.found, goScore.ref),
		goScore.ours, goScore.confirmed, percent(goScore.confirmed, goScore.ours))
	if dirs := os.Getenv("CTX_OUTLINE_SOURCES"); dirs != "" {
		fmt.Println()
		fmt.Print(ctagsTable(t, "other sources", sourceFiles(t, filepath.SplitList(dirs))))
	}
}

// ctagsTable scores the outline of samples against Ctags, by language.
func ctagsTable(t *testing.T, title string, samples []sample) string {
	scores := map[string]*score{}
	var langs []string
	for i, tags := range ctags(t, samples) {
		s := samples[i]
		lang := Lang(s.file, s.lines[0])
		if scores[lang] == nil {
			scores[lang] = &score{}
			langs = append(langs, lang)
		}
		var ref []tag
		for _, g := range tags {
			if g.isDef() {
				ref = append(ref, g)
			}
		}
		scores[lang].add(t, s.file, Find(lang, s.lines, s.first), ref, tags, lang == "Elixir")
	}
	sort.Strings(langs)
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | files | Ctags's definitions | found by the outline | the outline's | Ctags has them |\n", title)
	b.WriteString("|---|---:|---:|---:|---:|---:|\n")
	for _, l := range langs {
		s := scores[l]
		fmt.Fprintf(&b, "| %s | %d | %d | %d (%s) | %d | %d (%s) |\n", l, s.files, s.ref, s.found, percent(s.found, s.ref), s.ours, s.confirmed, percent(s.confirmed, s.ours))
	}
	return b.String()
}

// sourceFiles are the files under dirs in a language the outline knows,
// whole.
func sourceFiles(t *testing.T, dirs []string) []sample {
	var out []sample
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
			if Lang(p, lines[0]) != "" && filepath.Ext(p) != "" {
				out = append(out, sample{p, lines, 1})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// goParserScore measures the outline against go/parser's declarations (the
// package clause, functions, methods, types) on this module's Go files.
func goParserScore(t *testing.T) score {
	var s score
	err := filepath.WalkDir(testutil.Root(t), func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ref := []tag{{Name: f.Name.Name, Line: fset.Position(f.Package).Line}}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				ref = append(ref, tag{Name: d.Name.Name, Line: fset.Position(d.Name.Pos()).Line})
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						ref = append(ref, tag{Name: ts.Name.Name, Line: fset.Position(ts.Name.Pos()).Line})
					}
				}
			}
		}
		s.add(t, p, Find("Go", strings.Split(string(src), "\n"), 1), ref, ref, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
