package tools

import (
	"slices"
	"testing"
)

func TestPurposes(t *testing.T) {
	cases := []struct {
		cmd  string
		want []Purpose
	}{
		{"go test ./...", []Purpose{Test}},
		{"go test -run TestX ./internal/x/ 2>&1 | tail -5", []Purpose{Test}},
		{"go build ./... && go test ./...", []Purpose{Build, Test}},
		{"go vet ./...", []Purpose{Build}},
		{"go mod download", []Purpose{Install}},
		{"go mod graph", nil},
		{"go version", []Purpose{Inspect}},
		{"cd /testbed && python -m pytest tests/test_x.py -q", []Purpose{Test}},
		{"python3 -m unittest discover", []Purpose{Test}},
		{"python3 test_repro.py", []Purpose{Test}},
		{"python3 repro.py", nil},
		{`python3 -c "import astroid"`, nil},
		{"python --version", []Purpose{Inspect}},
		{"./tests/runtests.py utils_tests", []Purpose{Test}},
		{"python tests/runtests.py --settings=x", []Purpose{Test}},
		{"python manage.py test app", []Purpose{Test}},
		{"python manage.py migrate", nil},
		{"python setup.py develop", []Purpose{Install}},
		{"pip install -e .", []Purpose{Install}},
		{`pip install "wrapt<1.14" --pre 2>&1 | tail -10`, []Purpose{Install}},
		{"python -m pip install requests", []Purpose{Install}},
		{"pip show wrapt", []Purpose{Inspect}},
		{"pip freeze", []Purpose{Inspect}},
		{"uv pip install x", []Purpose{Install}},
		{"poetry run pytest", []Purpose{Test}},
		{"npm install", []Purpose{Install}},
		{"npm ci", []Purpose{Install}},
		{"npm test", []Purpose{Test}},
		{"npm run test:unit", []Purpose{Test}},
		{"npm run build", []Purpose{Build}},
		{"npm run lint", nil},
		{"yarn", []Purpose{Install}},
		{"yarn build", []Purpose{Build}},
		{"pnpm test", []Purpose{Test}},
		{"npx jest src/a.test.ts", []Purpose{Test}},
		{"npx tsc --noEmit", []Purpose{Build}},
		{"cargo test", []Purpose{Test}},
		{"cargo clippy", []Purpose{Build}},
		{"mix compile --warnings-as-errors 2>&1 && mix test test/a_test.exs 2>&1", []Purpose{Build, Test}},
		{"mix deps.get 2>&1 | tail -5", []Purpose{Install}},
		{"mix credo --strict", nil},
		{"make", []Purpose{Build}},
		{"make test", []Purpose{Test}},
		{"mvn -q test", []Purpose{Test}},
		{"gradle build", []Purpose{Build}},
		{"bundle exec rspec spec/a_spec.rb", []Purpose{Test}},
		{"sudo apt-get install -y jq", []Purpose{Install}},
		{"apt-get update", nil},
		{"which python3", []Purpose{Inspect}},
		{"command -v go", []Purpose{Inspect}},
		{"env", []Purpose{Inspect}},
		{"env | grep PATH", []Purpose{Inspect}},
		{"env FOO=1 go test ./...", []Purpose{Test}},
		{"echo $PATH", []Purpose{Inspect}},
		{`echo "---"`, nil},
		{"node -v", []Purpose{Inspect}},
		{"git status", nil},
		{"git add a.go && git commit -m x", []Purpose{GitChange, GitChange}},
		{"git -C repo checkout main", []Purpose{GitChange}},
		{"git tag", nil},
		{"git tag v1.0", []Purpose{GitChange}},
		{"bash -lc 'go test ./...'", []Purpose{Test}},
		{"ls -la", nil},
		{"", nil},
	}
	for _, c := range cases {
		if got := Purposes(c.cmd); !slices.Equal(got, c.want) {
			t.Errorf("Purposes(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestIsTestFile(t *testing.T) {
	yes := []string{"internal/x/a_test.go", "tests/test_api.py", "api_test.py", "app/tests.py", "src/a.test.ts", "b.spec.jsx",
		"test/spotter/a_test.exs", "spec/user_spec.rb", "src/test/java/FooTest.java", "FooTests.cs"}
	no := []string{"a.go", "testing.go", "contest.py", "tests/data/module.py", "src/test.ts", "latest.js", "Test.java", ""}
	for _, p := range yes {
		if !IsTestFile(p) {
			t.Errorf("IsTestFile(%q) = false, want true", p)
		}
	}
	for _, p := range no {
		if IsTestFile(p) {
			t.Errorf("IsTestFile(%q) = true, want false", p)
		}
	}
}

// FuzzPurposes: any command line has purposes or none, never a panic,
// and only the purposes there are.
func FuzzPurposes(f *testing.F) {
	for _, s := range []string{"go test ./...", "bash -lc 'npm run test:unit'", "env", "command -v", "python -m", "git -C", "npx", "bundle exec"} {
		f.Add(s)
	}
	known := []Purpose{Test, Build, Install, Inspect, GitChange}
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, p := range Purposes(cmd) {
			if !slices.Contains(known, p) {
				t.Fatalf("Purposes(%q) has %q", cmd, p)
			}
		}
	})
}
