package outline

import (
	"strings"

	"github.com/ctxkit/ctxkit/internal/lazyre"
)

// language is what Find knows of a language: the patterns of the lines
// that start a definition, and the comments and strings to look past.
type language struct {
	name string
	exts []string
	// rules are tried in order on a line without its indentation; the
	// first that matches names the definition.
	rules []rule
	// comments start a line that defines nothing and closes no block: a
	// comment, and C's preprocessor lines and C++'s access labels, which
	// sit left of the body they are in.
	comments []string
	// blocks are the comments and strings that can span lines.
	blocks []block
	// quotes are the characters that quote a string on one line, and
	// trailing the comment that runs to the end of a line.
	quotes, trailing string
	// heredoc matches what opens a heredoc, which ends at a line that is
	// the word one of its groups holds.
	heredoc *lazyre.Regexp
	// methods: a function in a class or a type's body is a method.
	methods bool
	// openers are the first characters of the blocks, quotes and trailing
	// comment: the characters a line must hold to open anything.
	openers string
}

type block struct{ open, close string }

// rule is one pattern: its first group is the name.
type rule struct {
	kind Kind
	re   *lazyre.Regexp
	// starts, when set, are the words one of which the line must start
	// with for re to be tried: most lines are not definitions, and most
	// patterns start with a keyword.
	starts []string
	// top: only at the left margin (C's functions, whose bodies' lines are
	// indented).
	top bool
	// inside: only in the body of a definition of this kind (a class's
	// members, the types of Go's "type (" group).
	inside []Kind
	// not are words the line must not start with: a statement or an
	// expression that a pattern would take for a definition.
	not []string
	// group: the line opens a group whose members the rules that are
	// inside it match (Go's "type ("), and is not itself a definition.
	group Kind
}

// applies reports whether the rule is worth trying on a line.
func (r rule) applies(body string, indent int, in Kind) bool {
	if r.top && indent > 0 {
		return false
	}
	if r.inside != nil {
		ok := false
		for _, k := range r.inside {
			ok = ok || k == in
		}
		if !ok {
			return false
		}
	}
	for _, w := range r.not {
		if strings.HasPrefix(body, w) {
			return false
		}
	}
	if r.starts == nil {
		return true
	}
	for _, w := range r.starts {
		if strings.HasPrefix(body, w) {
			return true
		}
	}
	return false
}

// typeGroup is Go's "type (": its lines define types.
const typeGroup Kind = "type group"

// members are the kinds whose bodies hold methods.
var members = []Kind{Class, Type}

var (
	cComments  = block{"/*", "*/"}
	jsTemplate = block{"`", "`"}
	atxHeading = lazyre.New(`^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?$`)
	setextLine = lazyre.New(`^ {0,3}(=+|-+)[ \t]*$`)
	listItem   = lazyre.New(`^(?:[-*+]|\d+[.)])(?:[ \t]|$)`)
	// A heredoc's opening: Ruby's has no space after "<<" (a << "x"
	// appends), and a bare word is in capitals unless "~" or "-" leads it.
	rubyHeredoc  = lazyre.New(`<<(?:[-~](?:"(\w+)"|'(\w+)'|([A-Za-z_]\w*))|"(\w+)"|'(\w+)'|([A-Z_][A-Z_0-9]*)\b)`)
	shellHeredoc = lazyre.New(`<<-?[ \t]*(?:"(\w+)"|'(\w+)'|\\?([A-Za-z_]\w*))`)
)

// javaStatements start the lines of a class's body that continue an
// expression (a field's initializer on the next line).
var javaStatements = []string{"new ", "return ", "throw ", "else ", "case ", "yield "}

// cName is a C++ name, qualified by its classes and namespaces, their
// template arguments too (SkipList<Key, Cmp>::Insert); cOperator an
// operator function's.
const (
	cName     = `(?:\w+(?:<[^<>;]*>)?::)*~?\w+`
	cOperator = `operator\s*(?:\(\)|[^\s(]+)`
)

// pub is Rust's visibility.
const pub = `(?:pub(?:\([^)]*\))?\s+)?`

var jsRules = []rule{
	{kind: Func, starts: []string{"export", "async", "function", "default", "declare"},
		re: lazyre.New(`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)`)},
	{kind: Class, starts: []string{"export", "class", "default", "declare", "abstract"},
		re: lazyre.New(`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([\w$]+)`)},
	{kind: Type, starts: []string{"export", "interface", "declare"},
		re: lazyre.New(`^(?:export\s+)?(?:declare\s+)?interface\s+([\w$]+)`)},
	{kind: Type, starts: []string{"export", "type", "declare"},
		re: lazyre.New(`^(?:export\s+)?(?:declare\s+)?type\s+([\w$]+)\s*(?:<[^=]*>)?\s*=`)},
	{kind: Type, starts: []string{"export", "enum", "const", "declare"},
		re: lazyre.New(`^(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([\w$]+)`)},
	// An object of methods assigned to a name (Hooks.Terminal = {…}).
	{kind: Class, top: true, re: lazyre.New(`^([\w$]+(?:\.[\w$]+)+)\s*=\s*\{\s*$`)},
	{kind: Module, starts: []string{"export", "namespace", "module", "declare"},
		re: lazyre.New(`^(?:export\s+)?(?:declare\s+)?(?:namespace|module)\s+([\w$.]+)\s*\{`)},
	// A function bound to a name: const f = (a) => …, = async (…, = function.
	{kind: Func, starts: []string{"export", "const", "let", "var"},
		re: lazyre.New(`^(?:export\s+)?(?:default\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|\(\s*$|\(\s*\{|[\w$]+\s*=>|<[^>]*>\s*\()`)},
	// Members of a class: methods, and arrow functions bound to fields.
	{kind: Method, inside: members,
		re: lazyre.New(`^(?:(?:public|private|protected|static|readonly|abstract|override|async|get|set|declare)\s+)*\*?\s*(#?[\w$]+)\s*(?:<[^>]*>)?\s*\([^;]*$`)},
	{kind: Method, inside: members,
		re: lazyre.New(`^(?:(?:public|private|protected|static|readonly)\s+)*(#?[\w$]+)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:\([^)]*\)|[\w$]+)\s*(?::[^=]*)?=>`)},
}

// languages are the languages Find knows.
var languages = []*language{
	{name: "Go", exts: []string{".go"}, comments: []string{"//"}, quotes: `"'`, trailing: "//", blocks: []block{cComments, {"`", "`"}}, methods: true,
		rules: []rule{
			{kind: Module, starts: []string{"package "}, top: true, re: lazyre.New(`^package\s+(\w+)`)},
			{kind: Method, starts: []string{"func"}, top: true, re: lazyre.New(`^func\s*\([^)]*\)\s*(\w+)`)},
			{kind: Func, starts: []string{"func "}, top: true, re: lazyre.New(`^func\s+(\w+)`)},
			{group: typeGroup, starts: []string{"type"}, top: true, re: lazyre.New(`^type\s*\(()`)},
			{kind: Class, starts: []string{"type "}, top: true, re: lazyre.New(`^type\s+(\w+)(?:\[[^\]]*\])?\s+struct\b`)},
			{kind: Type, starts: []string{"type "}, top: true, re: lazyre.New(`^type\s+(\w+)`)},
			{kind: Class, inside: []Kind{typeGroup}, re: lazyre.New(`^(\w+)(?:\[[^\]]*\])?\s+struct\b`)},
			{kind: Type, inside: []Kind{typeGroup}, re: lazyre.New(`^(\w+)(?:\[[^\]]*\])?\s+\S`)},
		}},
	{name: "Python", exts: []string{".py", ".pyi", ".pyw"}, comments: []string{"#"}, quotes: `"'`, trailing: "#", methods: true,
		blocks: []block{{`"""`, `"""`}, {`'''`, `'''`}},
		rules: []rule{
			{kind: Class, starts: []string{"class "}, re: lazyre.New(`^class\s+(\w+)`)},
			{kind: Func, starts: []string{"def ", "async "}, re: lazyre.New(`^(?:async\s+)?def\s+(\w+)`)},
		}},
	{name: "JavaScript", exts: []string{".js", ".jsx", ".mjs", ".cjs"}, comments: []string{"//"}, quotes: `"'`, trailing: "//",
		blocks: []block{cComments, jsTemplate}, methods: true, rules: jsRules},
	{name: "TypeScript", exts: []string{".ts", ".tsx", ".mts", ".cts"}, comments: []string{"//"}, quotes: `"'`, trailing: "//",
		blocks: []block{cComments, jsTemplate}, methods: true, rules: jsRules},
	{name: "Rust", exts: []string{".rs"}, comments: []string{"//"}, quotes: `"`, trailing: "//", methods: true,
		blocks: []block{cComments, {`r#"`, `"#`}, {`r##"`, `"##`}},
		rules: []rule{
			{kind: Func, starts: []string{"pub", "fn", "const", "async", "unsafe", "default", "extern"},
				re: lazyre.New(`^` + pub + `(?:(?:const|async|unsafe|default|extern(?:\s+"[^"]*")?)\s+)*fn\s+(\w+)`)},
			{kind: Class, re: lazyre.New(`^` + pub + `struct\s+(\w+)`)},
			{kind: Type, re: lazyre.New(`^` + pub + `(?:enum|union)\s+(\w+)`)},
			{kind: Type, re: lazyre.New(`^` + pub + `(?:unsafe\s+)?(?:auto\s+)?trait\s+(\w+)`)},
			{kind: Type, re: lazyre.New(`^` + pub + `type\s+(\w+)`)},
			{kind: Module, re: lazyre.New(`^` + pub + `mod\s+(\w+)`)},
			{kind: Type, starts: []string{"impl", "unsafe impl"}, re: lazyre.New(`^(?:unsafe\s+)?impl\b(?:\s*<[^{]*?>)?\s+([^{]+?)\s*(?:\{.*|where\b.*)?$`)},
			{kind: Func, starts: []string{"macro_rules!"}, re: lazyre.New(`^macro_rules!\s*(\w+)`)},
		}},
	{name: "Java", exts: []string{".java"}, comments: []string{"//"}, quotes: `"'`, trailing: "//", blocks: []block{cComments, {`"""`, `"""`}}, methods: true,
		rules: []rule{
			{kind: Module, starts: []string{"package "}, top: true, re: lazyre.New(`^package\s+([\w.]+)`)},
			{kind: Class, re: lazyre.New(`^(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|record)\s+(\w+)`)},
			{kind: Type, re: lazyre.New(`^(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(?:interface|enum|@interface)\s+(\w+)`)},
			// A method: words (its modifiers and type) before its name; a
			// constructor: its name alone, and its body's brace.
			{kind: Method, inside: members, not: javaStatements, re: lazyre.New(`^(?:[\w$.<>\[\],?@]+\s+)+(\w+)\s*\(`)},
			{kind: Method, inside: members, re: lazyre.New(`^(\w+)\s*\([^)]*\)\s*(?:throws\s+[\w.,\s]+)?\{\s*$`)},
		}},
	{name: "C/C++", exts: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ino"},
		comments: []string{"//", "#", "public:", "private:", "protected:"}, quotes: `"'`, trailing: "//", blocks: []block{cComments}, methods: true,
		rules: []rule{
			{kind: Module, starts: []string{"namespace", "inline namespace"}, re: lazyre.New(`^(?:inline\s+)?namespace\s+([\w:]+)`)},
			{kind: Class, starts: []string{"class", "struct", "typedef", "template"},
				re: lazyre.New(`^(?:typedef\s+)?(?:template\s*<.*>\s*)?(?:class|struct)\s+(?:\w+\s+)*?(` + cName + `)\s*(?:final\s*)?(?::[^;{]*)?(?:\{.*)?$`)},
			{kind: Type, starts: []string{"enum", "union", "typedef"}, re: lazyre.New(`^(?:typedef\s+)?(?:enum|union)\s+(?:class\s+|struct\s+)?(\w+)(?:[^;{]*\{.*|[^;]*)$`)},
			{kind: Type, starts: []string{"typedef"}, re: lazyre.New(`^typedef\s[^;]*?\b(\w+)\s*;\s*$`)},
			{kind: Type, starts: []string{"typedef"}, re: lazyre.New(`^typedef\s[^;(]*\(\s*\*\s*(\w+)\s*\)`)},
			{kind: Type, starts: []string{"using"}, re: lazyre.New(`^using\s+(\w+)\s*=`)},
			{kind: Type, starts: []string{"}"}, top: true, re: lazyre.New(`^}\s*(\w+)\s*;\s*$`)},
			// A function's definition: at the left margin, a name and its
			// parameters, and no semicolon after them (that is a prototype).
			{kind: Func, top: true, re: lazyre.New(`^(?:[\w*&:<>,~\[\]]+\s+)*[*&]*\s*(` + cName + `|(?:\w+::)*` + cOperator + `)\s*\((?:[^;]*|[^;{]*\)[^;{]*\{.*)$`)},
			// A member function defined in its class: its body, or no
			// semicolon (a prototype has one), after its parameters, or
			// parameters that go on on the next line.
			{kind: Method, inside: members, not: []string{"return ", "new ", "delete ", "throw ", "else "},
				re: lazyre.New(`^(?:[\w*&:<>,~]+\s+)*[*&]*(~?\w+|` + cOperator + `)\s*\((?:[^;{]*\)[^;{]*(?:\{.*)?|[^;)]*)$`)},
		}},
	{name: "Ruby", exts: []string{".rb", ".rake", ".gemspec"}, comments: []string{"#"}, quotes: `"'`, trailing: "#", blocks: []block{{"=begin", "=end"}},
		heredoc: rubyHeredoc, methods: true,
		rules: []rule{
			{kind: Module, starts: []string{"module "}, re: lazyre.New(`^module\s+([\w:]+)`)},
			{kind: Class, starts: []string{"class "}, re: lazyre.New(`^class\s+([\w:]+)`)},
			{kind: Func, starts: []string{"def "}, re: lazyre.New(`^def\s+((?:\w+\.)?(?:\w+[?!=]?|\[\]=?|[-+*/%<>=!~^&|]+))`)},
			{kind: Test, starts: []string{"describe", "context", "it ", "it(", "test "}, re: lazyre.New(`^(?:describe|context|it|test)\s*\(?\s*["']([^"']+)["']`)},
		}},
	{name: "Elixir", exts: []string{".ex", ".exs"}, comments: []string{"#"}, quotes: `"'`, trailing: "#", blocks: []block{{`"""`, `"""`}, {`'''`, `'''`}},
		rules: []rule{
			{kind: Module, starts: []string{"defmodule", "defprotocol"}, re: lazyre.New(`^(?:defmodule|defprotocol)\s+([\w.]+)`)},
			{kind: Type, starts: []string{"defimpl"}, re: lazyre.New(`^defimpl\s+([\w.]+)`)},
			{kind: Func, starts: []string{"def"}, re: lazyre.New(`^(?:def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)\s+([\w?!]+)`)},
			{kind: Type, starts: []string{"@"}, re: lazyre.New(`^@(?:type|typep|opaque|callback|macrocallback)\s+([\w?!]+)`)},
			{kind: Test, starts: []string{"test ", "describe ", "property "}, re: lazyre.New(`^(?:test|describe|property)\s+"([^"]+)"`)},
		}},
	{name: "Shell", exts: []string{".sh", ".bash", ".zsh", ".ksh"}, comments: []string{"#"}, quotes: `"'`, heredoc: shellHeredoc,
		rules: []rule{
			{kind: Func, starts: []string{"function "}, re: lazyre.New(`^function\s+([\w.:-]+)`)},
			{kind: Func, re: lazyre.New(`^([\w.:-]+)\s*\(\)`)},
		}},
	{name: "Markdown", exts: []string{".md", ".markdown", ".mdx"}},
}

var (
	byExt  = map[string]string{}
	byName = map[string]*language{}
)

// shebangs name the language of a script without an extension by the
// program its first line runs.
var shebangs = []struct{ prog, lang string }{
	{"python", "Python"}, {"node", "JavaScript"}, {"ruby", "Ruby"}, {"elixir", "Elixir"},
	{"bash", "Shell"}, {"/sh", "Shell"}, {"zsh", "Shell"}, {"ksh", "Shell"},
}

func init() {
	for _, l := range languages {
		byName[l.name] = l
		l.openers = l.quotes
		for _, b := range l.blocks {
			l.openers += b.open[:1]
		}
		if l.trailing != "" {
			l.openers += l.trailing[:1]
		}
		for _, e := range l.exts {
			byExt[e] = l.name
		}
	}
}
