package loops

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkit/ctxkit/internal/outcome"
	"github.com/ctxkit/ctxkit/internal/tools"
)

// Steps for the tests: a shell call of cmd that succeeded (ok), failed with
// an error (fail), or an edit that succeeded (edit).
func ok(cmd string) Step { return Step{Tool: "Bash", Key: shellKey + cmd, What: cmd} }
func fail(cmd, err string) Step {
	return Step{Tool: "Bash", Key: shellKey + cmd, What: cmd, Failed: true, Error: err, ErrorHash: err}
}
func edit(path string) Step {
	return Step{Tool: "Edit", Key: "call:edit " + path, What: path, Progress: true}
}
func failTool(tool, args, err string) Step {
	return Step{Tool: tool, Key: "call:" + strings.ToLower(tool) + " " + args, What: args, Failed: true, Error: err, ErrorHash: err}
}

func detector(t testing.TB) *Detector {
	d, err := New(Options{Min: DefaultMin, Cycles: DefaultCycles})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// describe is a loop in a short form the cases compare.
func describe(l Loop) string {
	s := fmt.Sprintf("%s %v", l.Kind, l.Steps)
	if l.Kind == Cycle {
		s += fmt.Sprintf(" p%d×%d", l.Period, l.Rounds)
	}
	return s
}

func TestFind(t *testing.T) {
	cases := []struct {
		name  string
		steps []Step
		want  []string
	}{
		{"three identical failures", []Step{fail("go test", "FAIL"), fail("go test", "FAIL"), fail("go test", "FAIL")},
			[]string{"repeat [0 1 2]"}},
		{"two are not enough", []Step{fail("go test", "FAIL"), fail("go test", "FAIL")}, nil},
		{"other calls in between do not break it",
			[]Step{fail("make", "E1"), ok("ls"), fail("make", "E1"), ok("cat a.go"), fail("make", "E1")},
			[]string{"repeat [0 2 4]"}},
		{"an edit in between does",
			[]Step{fail("make", "E1"), fail("make", "E1"), edit("a.go"), fail("make", "E1"), fail("make", "E1")}, nil},
		{"a success of the call itself does",
			[]Step{fail("make", "E1"), fail("make", "E1"), ok("make"), fail("make", "E1")}, nil},
		{"different commands, one error",
			[]Step{failTool("Edit", "a", "String not found"), failTool("Edit", "b", "String not found"), failTool("Edit", "c", "String not found")},
			[]string{"same-error [0 1 2]"}},
		{"different commands, different errors",
			[]Step{fail("cat a", "no a"), fail("cat b", "no b"), fail("cat c", "no c")}, nil},
		{"one error from other tools is not one loop",
			[]Step{failTool("Edit", "a", "E"), failTool("Write", "b", "E"), failTool("Read", "c", "E")}, nil},
		{"A,B,A,B with failures",
			[]Step{ok("cat a.go"), fail("go build", "E"), ok("cat a.go"), fail("go build", "E")},
			[]string{"cycle [0 1 2 3] p2×2"}},
		{"A,B,A,B without failures is not an error loop",
			[]Step{ok("cat a.go"), ok("go build"), ok("cat a.go"), ok("go build")}, nil},
		{"A,B,C,A,B,C,A",
			[]Step{edit("a.go"), fail("go test", "E"), ok("git diff"), edit("a.go"), fail("go test", "E"), ok("git diff"), edit("a.go")},
			[]string{"cycle [0 1 2 3 4 5] p3×2"}},
		{"A,B,A,B,A,B,A,B is a cycle of 2, not also of 4",
			[]Step{ok("a"), fail("b", "E"), ok("a"), fail("b", "E"), ok("a"), fail("b", "E"), ok("a"), fail("b", "E")},
			[]string{"repeat [1 3 5 7]", "cycle [0 1 2 3 4 5 6 7] p2×4"}},
		{"a cycle whose failures change is not one",
			[]Step{ok("a"), fail("b", "E"), ok("a"), ok("b")}, nil},
	}
	d := detector(t)
	for _, c := range cases {
		var got []string
		for _, l := range d.Find(c.steps) {
			got = append(got, describe(l))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name  string
		steps []Step
		next  Step
		want  string // the loop, "" to allow
	}{
		{"the third identical failing call", []Step{fail("go test", "FAIL"), fail("go test", "FAIL")}, ok("go test"), "repeat [0 1 2]"},
		{"the second is allowed", []Step{fail("go test", "FAIL")}, ok("go test"), ""},
		{"after an edit", []Step{fail("go test", "FAIL"), fail("go test", "FAIL"), edit("a.go")}, ok("go test"), ""},
		{"a call that last succeeded", []Step{fail("go test", "FAIL"), fail("go test", "FAIL"), ok("go test")}, ok("go test"), ""},
		{"a call never made", []Step{fail("go test", "FAIL"), fail("go test", "FAIL")}, ok("go vet"), ""},
		{"the fourth call of a cycle", []Step{ok("cat a.go"), fail("go build", "E"), ok("cat a.go")}, ok("go build"), "cycle [0 1 2 3] p2×2"},
		{"a same-error loop going on",
			[]Step{failTool("Edit", "a", "not found"), failTool("Edit", "b", "not found")}, failTool("Edit", "a", ""), "same-error [0 1 2]"},
	}
	d := detector(t)
	for _, c := range cases {
		l, found := d.Check(c.steps, c.next)
		got := ""
		if found {
			got = describe(l)
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// The properties, over random histories: N identical failures with only
// unrelated calls between them are found; a success of the call, or an edit,
// between any two of them, leaves fewer than N in a row and nothing found;
// Check denies exactly the call that would make the N-th.
func TestProperties(t *testing.T) {
	d := detector(t)
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func() Step { return ok(fmt.Sprintf("echo %d", rng.IntN(1_000_000))) }
	for iter := 0; iter < 500; iter++ {
		n := DefaultMin + rng.IntN(4)
		var steps []Step
		var at []int
		for i := 0; i < n; i++ {
			for j := rng.IntN(3); j > 0; j-- {
				steps = append(steps, noise())
			}
			at = append(at, len(steps))
			steps = append(steps, fail("go test ./...", "FAIL x"))
		}
		loops := d.Find(steps)
		if len(loops) != 1 || loops[0].Kind != Repeat || !slices.Equal(loops[0].Steps, at) {
			t.Fatalf("%d identical failures: found %v, want one repeat of %v", n, loops, at)
		}
		// The hook would have denied the N-th and every later one.
		for i, idx := range at {
			_, deny := d.Check(steps[:idx], steps[idx])
			if deny != (i >= DefaultMin-1) {
				t.Fatalf("call %d of %d identical failures: deny=%v", i+1, n, deny)
			}
		}
		// Breaking every stretch of N-1 with an edit or a success of the
		// call leaves no loop.
		var broken []Step
		for i, idx := range at {
			if i > 0 && i%(DefaultMin-1) == 0 {
				if rng.IntN(2) == 0 {
					broken = append(broken, edit(fmt.Sprintf("x.go %d", i)))
				} else {
					broken = append(broken, ok("go test ./..."))
				}
			}
			broken = append(broken, steps[idx])
		}
		if loops := d.Find(broken); len(loops) != 0 {
			t.Fatalf("interleaved successes: found %v", loops)
		}
		// Varying arguments with one error: a same-error loop.
		var varying []Step
		for i := 0; i < n; i++ {
			varying = append(varying, failTool("Edit", fmt.Sprintf("old %d", i), "String to replace not found"), noise())
		}
		if loops := d.Find(varying); len(loops) != 1 || loops[0].Kind != SameError || len(loops[0].Steps) != n {
			t.Fatalf("varying args, one error: found %v", loops)
		}
		// A random period of 2 to 4 distinct calls, one failing, twice or
		// more: one cycle of that period.
		p, rounds := minPeriod+rng.IntN(maxPeriod-minPeriod+1), DefaultCycles+rng.IntN(2)
		period := make([]Step, p)
		for i := range period {
			period[i] = ok(fmt.Sprintf("step %d", i))
		}
		period[rng.IntN(p)] = fail("make", "E")
		var cyc []Step
		for r := 0; r < rounds; r++ {
			cyc = append(cyc, period...)
		}
		var cycles []Loop
		for _, l := range d.Find(cyc) {
			if l.Kind == Cycle {
				cycles = append(cycles, l)
			}
		}
		if len(cycles) != 1 || cycles[0].Period != p || cycles[0].Rounds != rounds {
			t.Fatalf("period %d × %d: found %v", p, rounds, cycles)
		}
	}
}

// TestRecent: Check gives the same answer on the steps a hook keeps as on
// the whole history.
func TestRecent(t *testing.T) {
	d := detector(t)
	rng := rand.New(rand.NewPCG(3, 4))
	pick := []func() Step{
		func() Step { return ok(fmt.Sprintf("c%d", rng.IntN(3))) },
		func() Step { return fail(fmt.Sprintf("c%d", rng.IntN(3)), "E") },
		func() Step { return edit("a.go") },
	}
	for iter := 0; iter < 2000; iter++ {
		var steps []Step
		for i := rng.IntN(40); i > 0; i-- {
			steps = append(steps, pick[rng.IntN(3)]())
		}
		next := ok(fmt.Sprintf("c%d", rng.IntN(3)))
		l1, deny1 := d.Check(steps, next)
		l2, deny2 := d.Check(d.Recent(steps), next)
		if deny1 != deny2 || l1.Kind != l2.Kind {
			t.Fatalf("Check on all steps: %v %v; on the recent ones: %v %v", deny1, l1, deny2, l2)
		}
	}
}

// TestDone: two runs of a command that failed the same way have the same
// error, whatever changes from run to run in the agent's wrapper.
func TestDone(t *testing.T) {
	codex := "Chunk ID: 10bba6\nWall time: 0.0123 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\ncat: a.txt: No such file or directory\n"
	codex2 := strings.Replace(strings.Replace(codex, "10bba6", "77aa01", 1), "0.0123", "0.0456", 1)
	var a, b, c Step
	a.Done(tools.Shell, true, codex, outcome.Code{})
	b.Done(tools.Shell, true, codex2, outcome.Code{})
	c.Done(tools.Shell, true, strings.Replace(codex, "a.txt", "b.txt", 2), outcome.Code{})
	if a.ErrorHash != b.ErrorHash || a.Error != "cat: a.txt: No such file or directory" {
		t.Errorf("two runs: %q %s, %q %s", a.Error, a.ErrorHash, b.Error, b.ErrorHash)
	}
	if c.ErrorHash == a.ErrorHash {
		t.Errorf("another error has the same hash")
	}
	for _, silent := range []string{"Exit code 1", "<returncode>1</returncode>\n<output>\n</output>", ""} {
		var g Step
		g.Done(tools.Shell, true, silent, outcome.Code{})
		if !g.Failed || g.Error != "" || g.ErrorHash != "" {
			t.Errorf("%q: a failure with no error text gave %q", silent, g.Error)
		}
	}
	var e Step
	e.Done(tools.Edit, false, "The file a.go has been updated.", outcome.Code{})
	if !e.Progress || e.Failed || e.Error != "" {
		t.Errorf("a successful edit: %+v", e)
	}
}
