package fenwick

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstSlice: after random changes, every range's sum is the plain
// sum.
func TestAgainstSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 64, 100} {
		v := make([]int, n)
		for i := range v {
			v[i] = rng.IntN(1000)
		}
		tr := New(v)
		for range 200 {
			if n > 0 {
				i, d := rng.IntN(n), rng.IntN(200)-100
				v[i] += d
				tr.Add(i, d)
			}
			i, j := rng.IntN(n+1), rng.IntN(n+1)
			want := 0
			for k := i; k < j; k++ {
				want += v[k]
			}
			if got := tr.Sum(i, j); got != want {
				t.Fatalf("n=%d: Sum(%d, %d) = %d, want %d", n, i, j, got, want)
			}
		}
	}
}
