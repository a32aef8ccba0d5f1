package tools

import (
	"path"
	"strings"
)

// Purpose is what a shell command is for, as far as its program and
// subcommand tell: running tests, building, installing dependencies, looking
// at the environment, or changing a git repository. Most commands have none.
type Purpose string

// The purposes.
const (
	Test    Purpose = "test"    // go test, pytest, npm test, mix test, python test_x.py
	Build   Purpose = "build"   // go build, make, tsc, cargo build, mix compile
	Install Purpose = "install" // pip install, npm install, go mod download, mix deps.get
	// Inspect looks at the environment: versions, installed packages, the
	// PATH and variables (which, env, python --version, pip show).
	Inspect Purpose = "inspect"
	// GitChange changes a repository: add, commit, push, checkout, reset…
	GitChange Purpose = "git-change"
)

// Purposes returns the purposes of the commands a command line runs, in
// order, one for each command that has one: "go build ./... && go test
// ./..." is Build, Test. Only the first command of each pipeline counts
// (go test ./... | tail -5 is a test run); wrappers such as bash -lc '…' are
// unwrapped.
func Purposes(cmd string) []Purpose {
	return purposes(cmd, 0)
}

func purposes(src string, depth int) []Purpose {
	script := parseScript(src)
	var out []Purpose
	for _, pl := range script {
		if len(pl) == 0 || pl[0].compound {
			continue
		}
		if isInspectPrefix(pl[0].words) {
			out = append(out, Inspect) // env, command -v go: before the prefixes are dropped
			continue
		}
		words := stripPrefixes(pl[0].words)
		if inner, ok := shellWrapped(words); ok && depth < 4 {
			out = append(out, purposes(inner, depth+1)...)
			continue
		}
		if p := commandPurpose(words, 0); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// isInspectPrefix reports whether a command is one of the programs that
// run others (and so are dropped as prefixes) used alone to look at the
// environment: env, command -v NAME.
func isInspectPrefix(words []string) bool {
	switch {
	case len(words) == 0:
		return false
	case path.Base(words[0]) == "env":
		return len(skipFlags(words[1:])) == 0
	case words[0] == "command":
		return len(words) > 1 && (words[1] == "-v" || words[1] == "-V")
	}
	return false
}

// commandPurpose is the purpose of one command's words.
func commandPurpose(words []string, depth int) Purpose {
	if len(words) == 0 || depth > 3 {
		return ""
	}
	prog, args := path.Base(words[0]), words[1:]
	sub := firstOperand(args)
	if len(args) == 1 && isVersionFlag(args[0]) {
		return Inspect // node -v, python3 --version, go version below
	}
	switch prog {
	case "go":
		switch sub {
		case "test":
			return Test
		case "build", "vet", "install", "generate":
			return Build
		case "get":
			return Install
		case "mod":
			if s := firstOperand(args[1:]); s == "download" || s == "tidy" {
				return Install
			}
		case "version", "env":
			return Inspect
		}
	case "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest", "karma", "ava", "nextest":
		return Test
	case "python", "python2", "python3", "py", "pypy", "pypy3":
		return pythonPurpose(args)
	case "pip", "pip3", "pipx", "conda", "mamba", "micromamba", "poetry", "pipenv", "uv", "pdm":
		return packagerPurpose(prog, args, depth)
	case "npm", "pnpm", "yarn", "bun":
		return nodePurpose(prog, args, depth)
	case "npx", "bunx":
		return commandPurpose(skipFlags(args), depth+1)
	case "cargo":
		switch sub {
		case "test", "nextest":
			return Test
		case "build", "check", "clippy":
			return Build
		case "fetch", "install", "add":
			return Install
		}
	case "mix":
		switch sub {
		case "test":
			return Test
		case "compile", "deps.compile":
			return Build
		case "deps.get":
			return Install
		}
	case "make", "gmake":
		switch sub {
		case "test", "tests", "check":
			return Test
		}
		return Build
	case "mvn", "gradle", "gradlew", "dotnet", "bazel", "bazelisk", "swift", "deno", "sbt":
		if sub == "test" || strings.HasSuffix(sub, ":test") {
			return Test
		}
		if sub == "version" {
			return Inspect
		}
		return Build
	case "tsc", "gcc", "g++", "cc", "clang", "clang++", "javac", "rustc", "cmake", "ninja", "msbuild", "webpack", "vite", "esbuild":
		return Build
	case "bundle":
		switch sub {
		case "install":
			return Install
		case "exec":
			return commandPurpose(args[1:], depth+1)
		}
	case "gem", "apt", "apt-get", "brew", "apk", "dnf", "yum", "pacman", "port", "choco", "winget", "snap":
		if sub == "install" || sub == "add" || prog == "pacman" && len(args) > 0 && strings.HasPrefix(args[0], "-S") {
			return Install
		}
	case "which", "whereis", "type", "env", "printenv", "uname", "whoami", "hostname", "id", "locale", "nproc", "free", "df", "ulimit":
		return Inspect
	case "echo", "printf":
		for _, a := range args {
			if strings.Contains(a, "$") {
				return Inspect // echo $PATH
			}
		}
	case "git":
		return gitPurpose(args)
	case "runtests.py", "runtests":
		return Test
	case "manage.py":
		if sub == "test" {
			return Test
		}
	}
	if IsTestFile(words[0]) {
		return Test // ./test_parser.py
	}
	return ""
}

// pythonPurpose: python -m pytest, -m pip install, a test script, setup.py.
func pythonPurpose(args []string) Purpose {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			switch mod := args[i+1]; mod {
			case "pytest", "unittest", "nose", "nose2", "tox":
				return Test
			case "pip", "pip3", "ensurepip":
				return packagerPurpose("pip", args[i+2:], 0)
			case "build", "compileall", "py_compile":
				return Build
			}
			return ""
		case a == "-c" || a == "-":
			return "" // inline code: a run, whatever it does
		case strings.HasPrefix(a, "-"):
			continue
		}
		base := path.Base(a)
		switch {
		case base == "runtests.py" || IsTestFile(a):
			return Test
		case base == "manage.py" && firstOperand(args[i+1:]) == "test":
			return Test
		case base == "setup.py":
			switch firstOperand(args[i+1:]) {
			case "test":
				return Test
			case "build", "build_ext", "bdist_wheel", "sdist":
				return Build
			case "install", "develop":
				return Install
			}
		}
		return ""
	}
	return ""
}

// packagerPurpose: pip, conda, poetry, pipenv, uv and their kin.
func packagerPurpose(prog string, args []string, depth int) Purpose {
	sub := firstOperand(args)
	if prog == "uv" && sub == "pip" {
		return packagerPurpose("pip", args[1:], depth)
	}
	switch sub {
	case "install", "add", "sync", "update", "upgrade", "lock":
		return Install
	case "show", "list", "freeze", "info", "--version":
		return Inspect
	case "run":
		return commandPurpose(skipFlags(args[1:]), depth+1)
	}
	return ""
}

// nodePurpose: npm, pnpm, yarn and bun, their scripts by name.
func nodePurpose(prog string, args []string, depth int) Purpose {
	sub := firstOperand(args)
	switch sub {
	case "":
		if prog == "yarn" {
			return Install // a bare yarn installs
		}
	case "install", "i", "ci", "add":
		return Install
	case "test", "t":
		return Test
	case "ls", "list", "outdated", "why":
		return Inspect
	case "exec", "x", "dlx":
		return commandPurpose(skipFlags(args[1:]), depth+1)
	case "run", "run-script":
		return scriptPurpose(firstOperand(args[1:]))
	default:
		if prog != "npm" {
			return scriptPurpose(sub) // yarn build, pnpm test:unit
		}
	}
	return ""
}

// scriptPurpose reads a package script's name: test, test:unit, build,
// typecheck.
func scriptPurpose(name string) Purpose {
	switch n := strings.ToLower(name); {
	case strings.Contains(n, "test") || strings.HasPrefix(n, "e2e") || n == "spec":
		return Test
	case strings.Contains(n, "build") || strings.Contains(n, "compile") || strings.Contains(n, "typecheck") || n == "tsc":
		return Build
	}
	return ""
}

// gitPurpose: the subcommands that change a repository, its index or its
// working tree.
func gitPurpose(args []string) Purpose {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if (args[0] == "-C" || args[0] == "-c") && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	switch args[0] {
	case "add", "commit", "push", "pull", "checkout", "switch", "reset", "rebase", "merge", "stash", "restore",
		"cherry-pick", "rm", "mv", "revert", "am", "apply", "clean":
		return GitChange
	case "tag", "branch":
		if len(operands(args[1:], nil)) > 0 {
			return GitChange // git tag v1, not git tag (a listing)
		}
	case "version":
		return Inspect
	}
	return ""
}

// firstOperand is the first word that is not a flag.
func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

func isVersionFlag(a string) bool {
	switch a {
	case "--version", "-version", "-V", "-v", "version":
		return true
	}
	return false
}

// IsTestFile reports whether a path names a test file by the conventions of
// the common languages: x_test.go, test_x.py, x_test.py, tests.py,
// x.test.ts, x.spec.js, x_test.exs, x_spec.rb, XTest.java, XTests.cs.
func IsTestFile(p string) bool {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch ext {
	case ".go":
		return strings.HasSuffix(stem, "_test")
	case ".py":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "tests" || stem == "test"
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs":
		return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec")
	case ".exs", ".rs":
		return strings.HasSuffix(stem, "_test")
	case ".rb":
		return strings.HasSuffix(stem, "_spec") || strings.HasSuffix(stem, "_test")
	case ".java", ".kt", ".scala", ".cs", ".swift", ".php":
		return properSuffix(stem, "Test") || properSuffix(stem, "Tests") || properSuffix(stem, "Spec")
	}
	return false
}

// properSuffix reports whether s ends in suffix and has more before it.
func properSuffix(s, suffix string) bool {
	return len(s) > len(suffix) && strings.HasSuffix(s, suffix)
}
